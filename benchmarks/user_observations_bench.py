"""A ReAct-style session whose observations arrive as user messages, replayed turn by turn.

The agent's loop is scripted; what it observes is real: `cat -n` of installed modules,
`grep -rn` and `ls -l` over installed packages, run now on this machine. Each turn
resends the whole history plus one new observation, as an agent does. Measured per turn
with headroom's observation handling on and off (off = user turns never touched, the
behaviour before issue 35):

- input tokens sent, summed over the session, and weighted by the prompt cache (the
  unchanged prefix of each turn at a tenth of the price);
- prefix breaks: a turn whose already-sent part changed bytes (only the newest
  observation of the previous turn may change, once: it was the latest user turn then);
- compress() time per turn, and the classification's own time per turn once warm;
- the speed rule's budget for the first sight of each observation (2.5 × tiktoken's
  count time + 2 ms) against the time the request took over the same request with the
  handling off.

Run: PYTHONPATH=. .venv/bin/python benchmarks/user_observations_bench.py [--turns 30]
"""

from __future__ import annotations

import argparse
import copy
import json
import statistics
import subprocess
import sys
import time
from pathlib import Path

import httpx

from headroom import pipeline as pipeline_module
from headroom.ccr.store import CompressionStore
from headroom.config import HeadroomConfig
from headroom.pipeline import Pipeline
from headroom.tokens import counter_for
from headroom.transforms import router as router_module
from headroom.transforms.observations import latest_user_index, observation_blocks, question_text

SITE = Path(httpx.__file__).resolve().parents[1]
CACHE_READ = 0.1
PACKAGES = ["httpx", "starlette", "fastapi", "pydantic", "click", "anyio", "h11", "idna", "certifi", "jinja2"]


def observations(turns: int) -> list[tuple[str, str]]:
    """(action, observation) pairs from real commands over installed packages."""
    out: list[tuple[str, str]] = []
    k = 0
    while len(out) < turns:
        pkg = SITE / PACKAGES[k % len(PACKAGES)]
        files = sorted(p for p in pkg.rglob("*.py") if p.stat().st_size > 4000)
        kind = k % 3
        if kind == 0 and files:
            f = files[(k // 3) % len(files)]
            text = subprocess.run(["cat", "-n", str(f)], capture_output=True, text=True, check=False).stdout
            out.append((f"cat -n {f.relative_to(SITE)}", text[:40_000]))
        elif kind == 1:
            text = subprocess.run(["grep", "-rn", "def ", str(pkg)], capture_output=True, text=True, check=False).stdout
            out.append((f"grep -rn 'def ' {pkg.name}", text.replace(str(SITE) + "/", "")[:30_000]))
        else:
            text = subprocess.run(["ls", "-lR", str(pkg)], capture_output=True, text=True, check=False).stdout
            out.append((f"ls -lR {pkg.name}", text[:20_000]))
        k += 1
    return out


def session(steps: list[tuple[str, str]], n: int) -> list[dict]:
    msgs = [{"role": "system", "content": "Solve the task with Thought / Action / Observation steps."},
            {"role": "user", "content": "Find where the HTTP client sets its default timeout and explain it."}]
    for action, obs in steps[:n]:
        msgs.append({"role": "assistant", "content": f"Thought: next I look at this.\nAction: {action}"})
        msgs.append({"role": "user", "content": f"Observation:\n{obs}"})
    return msgs


def replay(steps, turns: int, enabled: bool) -> dict:
    saved_blocks, saved_question = router_module.observation_blocks, pipeline_module.question_text
    if not enabled:
        router_module.observation_blocks = lambda conv, ctx: iter(())
        pipeline_module.question_text = lambda conv, turns=2: conv.latest_user_text(turns=turns)
    try:
        p = Pipeline(HeadroomConfig(), store=CompressionStore())
        counter = counter_for("gpt-4o")
        sent_total, breaks, times, prev, cost = 0, 0, [], None, 0.0
        for t in range(1, turns + 1):
            body = {"model": "gpt-4o", "messages": copy.deepcopy(session(steps, t))}
            t0 = time.perf_counter()
            r = p.compress_body(body, "openai_chat")
            times.append((time.perf_counter() - t0) * 1000)
            sent_total += r.tokens_after
            msgs = [json.dumps(m, sort_keys=True) for m in r.body["messages"]]
            sizes = [counter.count(m["content"] or "") for m in r.body["messages"]]
            common = 0
            while prev is not None and common < min(len(prev), len(msgs)) and prev[common] == msgs[common]:
                common += 1
            # Prompt-cache weighted input: the unchanged prefix read from the cache at a
            # tenth of the price (OpenAI's and Anthropic's read discount), the rest in full.
            cost += CACHE_READ * sum(sizes[:common]) + sum(sizes[common:])
            if prev is not None:
                # Everything before the previous turn's newest observation must be unchanged.
                stable = len(prev) - 1
                breaks += msgs[:stable] != prev[:stable]
            prev = msgs
        return {"tokens_sent": sent_total, "cache_weighted_tokens": round(cost), "prefix_breaks": breaks, "median_ms": statistics.median(times),
                "max_ms": max(times)}
    finally:
        router_module.observation_blocks, pipeline_module.question_text = saved_blocks, saved_question


def classification_ms(steps, turns: int) -> float:
    """The classification's own time for the last turn's conversation, once warm."""
    from headroom.formats import parse
    from headroom.transforms.base import TransformContext

    body = {"model": "gpt-4o", "messages": session(steps, turns)}
    ctx = TransformContext(config=HeadroomConfig(), counter=counter_for("gpt-4o"), store=None)
    for _ in range(2):
        conv = parse(copy.deepcopy(body), "openai_chat")
        list(observation_blocks(conv, ctx))
        question_text(conv)
    runs = []
    for _ in range(5):
        conv = parse(copy.deepcopy(body), "openai_chat")
        t0 = time.perf_counter()
        list(observation_blocks(conv, ctx))
        question_text(conv)
        runs.append((time.perf_counter() - t0) * 1000)
    assert latest_user_index(conv) == len(conv.messages) - 1
    return statistics.median(runs)


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--turns", type=int, default=30)
    args = ap.parse_args()
    steps = observations(args.turns)
    counter = counter_for("gpt-4o")
    obs_tokens = sum(counter.count(o) for _, o in steps)
    off = replay(steps, args.turns, enabled=False)
    on = replay(steps, args.turns, enabled=True)
    cls = classification_ms(steps, args.turns)
    result = {"turns": args.turns, "observation_tokens": obs_tokens, "off": off, "on": on,
              "tokens_sent_change_pct": round(100.0 * (on["tokens_sent"] - off["tokens_sent"]) / off["tokens_sent"], 1),
              "cache_weighted_change_pct": round(100.0 * (on["cache_weighted_tokens"] - off["cache_weighted_tokens"])
                                                 / off["cache_weighted_tokens"], 1),
              "classification_ms_warm": round(cls, 3)}
    print(json.dumps(result, indent=2))
    ok = on["prefix_breaks"] == 0 and on["tokens_sent"] < off["tokens_sent"]
    print("OK" if ok else "FAILED: prefix breaks or no savings")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
