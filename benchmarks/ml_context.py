"""IntelligentContext vs RollingWindow: planted facts kept at the same token budget.

    .venv/bin/python benchmarks/ml_context.py [--scenarios 10] [--turns 24] [--budget 0.35]

Each scenario is a long agent session (OpenAI Chat format): every turn the user asks for
something, the assistant calls a tool (read_file, search_code, get_logs, run_tests,
query_db) and gets ~40 lines of output (tool-shaped lines plus up to six unrelated prose
notes, so facts are not the only prose), then says a sentence. Ten fact lines
are planted in tool outputs of the first two thirds of the session:

- 3 errors          (an ERROR line; distractor error lines appear in other outputs too)
- 3 forward-refs    (a later user/assistant message names the fact's file or id)
- 2 asked           (the final question asks about them, in other words)
- 2 control         (nothing later points at them)

Both strategies get the same budget (a fraction of the session's tokens; system prompt and
the last 2 turns protected). A fact counts as kept when its line is still in the prompt
verbatim (dropped or squeezed-away content is only in CCR).
"""

from __future__ import annotations

import argparse
import json
import random
import time
from collections import defaultdict

from headroom.ccr.store import CompressionStore
from headroom.config import ContextConfig, HeadroomConfig, RollingWindowConfig
from headroom.pipeline import Pipeline

SERVICES = ["billing", "auth", "search", "inventory", "gateway", "notifier", "reports", "scheduler"]
TOOLS = ["read_file", "search_code", "get_logs", "run_tests", "query_db"]
WORDS = ["request", "handled", "cache", "warm", "pool", "size", "worker", "batch", "queue", "flushed", "metrics", "exported", "config", "loaded", "session", "renewed", "index", "refreshed", "shard", "rebalanced", "heartbeat", "ok", "connection", "reused"]

FACTS = {
    "error": [
        ("ERROR billing: settlement batch 8841 rejected, currency mismatch EUR vs USD", ""),
        ("ERROR auth: signing key kid-77 not found in JWKS, tokens rejected", ""),
        ("ERROR inventory: stock sync for warehouse WH-12 failed, upstream returned 502", ""),
    ],
    "forward": [
        ("note: migration db/migrations/0042_add_tenant.sql adds column tenant_id to users",
         "Before deploying, double-check what 0042_add_tenant.sql changes."),
        ("feature flag checkout_v3_rollout is set to 15 percent in flags/prod.yaml",
         "Keep checkout_v3_rollout in mind when we look at conversion later."),
        ("rate limiter config: limits/api-gateway.toml sets burst=40 refill=5/s",
         "The numbers in limits/api-gateway.toml will matter for the load test."),
    ],
    "asked": [
        ("the nightly backup to the s3 bucket acme-archive-eu completes at 02:40 UTC", ""),
        ("on-call rotation: Priya Raman covers the platform team this week", ""),
    ],
    "control": [
        ("the logo asset is stored at assets/brand/logo_v7.svg", ""),
        ("the staging cluster runs kubernetes 1.29.4", ""),
    ],
}
# Natural-language lines every kind of output carries (status notes, hints, comments), so
# planted facts are not the only prose in a sea of uniform filler.
NOISE = [
    "note: the dashboard link moved to the new observability portal last quarter",
    "hint: run with --verbose to see per-request timings",
    "the release train leaves every Tuesday after the change advisory meeting",
    "remember to update the runbook when thresholds change",
    "this service is owned by the platform group and reviewed monthly",
    "the vendor SDK was upgraded to pick up the new retry defaults",
    "capacity planning for next year assumes twenty percent growth",
    "a customer survey praised the faster search results page",
    "the old cron host will be decommissioned at the end of the month",
    "documentation for the public API lives in the developer portal",
    "the design review approved splitting the monolith into two services",
    "quarterly access reviews are tracked in the compliance tracker",
    "traffic usually peaks on Monday mornings in the US east region",
    "the marketing site is served from a separate static bucket",
    "an intern is prototyping a new admin dashboard this summer",
    "the office network maintenance window is Saturday night",
]
FINAL_QUESTION = ("Summarise what we found. Also: when does the nightly archive copy finish, "
                  "and who is the person on call for the platform this week?")


def _filler_line(rng: random.Random, tool: str, service: str, n: int) -> str:
    w = " ".join(rng.choice(WORDS) for _ in range(rng.randint(5, 9)))
    if tool == "get_logs":
        return f"2024-05-{rng.randint(1, 28):02d}T{rng.randint(0, 23):02d}:{rng.randint(0, 59):02d}:00Z INFO {service}: {w}"
    if tool == "run_tests":
        return f"tests/test_{service}.py::test_{rng.choice(WORDS)}_{n} PASSED"
    if tool == "query_db":
        return f"| {n} | {service} | {rng.choice(WORDS)} | {rng.randint(1, 999)} |"
    if tool == "search_code":
        return f"src/{service}/{rng.choice(WORDS)}.py:{rng.randint(1, 400)}: # {w}"
    return f"    {rng.choice(WORDS)}_{n} = {rng.choice(WORDS)}({rng.randint(0, 99)})  # {w}"


def make_scenario(seed: int, turns: int = 24) -> tuple[list[dict], dict[str, list[str]]]:
    """Messages (OpenAI Chat) and the planted fact lines by category."""
    rng = random.Random(seed)
    plan: dict[int, list[tuple[str, str, str]]] = defaultdict(list)  # turn -> (category, fact, later mention)
    planted = defaultdict(list)
    slots = list(range(1, max(3, turns * 2 // 3)))
    for category, facts in FACTS.items():
        for fact, mention in facts:
            t = rng.choice(slots)
            plan[t].append((category, fact, mention))
            planted[category].append(fact)
    mentions: dict[int, list[str]] = defaultdict(list)
    for t, items in plan.items():
        for _cat, _fact, mention in items:
            if mention:
                mentions[min(turns - 3, t + rng.randint(2, 5))].append(mention)
    msgs: list[dict] = [{"role": "system", "content": "You are a careful SRE agent. Use the tools."}]
    for t in range(1, turns + 1):
        service, tool = rng.choice(SERVICES), rng.choice(TOOLS)
        ask = f"Step {t}: please check {service} with {tool}."
        if mentions.get(t):
            ask += " " + " ".join(mentions[t])
        if t == turns:
            msgs.append({"role": "user", "content": FINAL_QUESTION})
            break
        msgs.append({"role": "user", "content": ask})
        call_id = f"call_{seed}_{t}"
        args = {"service": service, "path": f"src/{service}/main.py"} if tool == "read_file" else {"service": service}
        msgs.append({"role": "assistant", "content": None, "tool_calls": [
            {"id": call_id, "type": "function", "function": {"name": tool, "arguments": json.dumps(args)}}]})
        lines = [_filler_line(rng, tool, service, k) for k in range(40)]
        for _ in range(6):
            lines[rng.randrange(40)] = rng.choice(NOISE)
        if rng.random() < 0.3:  # distractor: errors that nobody needs later
            lines[rng.randrange(40)] = f"WARN {service}: transient error talking to cache, retried ok"
        for _cat, fact, _m in plan.get(t, []):
            lines.insert(rng.randrange(len(lines)), fact)
        msgs.append({"role": "tool", "tool_call_id": call_id, "content": "\n".join(lines)})
        msgs.append({"role": "assistant", "content": f"Checked {service} ({tool}); noted the output."})
    return msgs, dict(planted)


def prompt_text(body: dict) -> str:
    return json.dumps(body.get("messages"), ensure_ascii=False)


def run(strategy: str, messages: list[dict], budget: int) -> tuple[dict, float]:
    cfg = HeadroomConfig(context=ContextConfig(strategy=strategy, max_tokens=budget,
                                               rolling_window=RollingWindowConfig(keep_last_turns=2)))
    if strategy == "rolling_window":
        from headroom.transforms.rolling_window import RollingWindow as T
    else:
        from headroom.transforms.intelligent_context import IntelligentContext as T
    pipe = Pipeline(cfg, store=CompressionStore(), transforms=[T()])
    t0 = time.perf_counter()
    res = pipe.compress_body({"model": "gpt-4o", "messages": messages})
    return {"body": res.body, "before": res.tokens_before, "after": res.tokens_after}, time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--scenarios", type=int, default=10)
    ap.add_argument("--turns", type=int, default=24)
    ap.add_argument("--budget", type=float, default=0.35, help="budget as a fraction of the session's tokens")
    args = ap.parse_args()
    from headroom.ml.embeddings import embed

    t0 = time.perf_counter()
    embed(["warm up"], "cpu")  # MiniLM loads once per process; report it apart from per-request time
    print(f"MiniLM load: {time.perf_counter() - t0:.1f}s")
    kept: dict[str, dict[str, int]] = {s: defaultdict(int) for s in ("rolling_window", "intelligent")}
    totals: dict[str, int] = defaultdict(int)
    seconds: dict[str, float] = defaultdict(float)
    tokens: dict[str, list[int]] = defaultdict(list)
    warm_seconds = 0.0
    for seed in range(args.scenarios):
        messages, planted = make_scenario(seed, args.turns)
        full = Pipeline(HeadroomConfig(context=ContextConfig(strategy="off")), transforms=[]) \
            .compress_body({"model": "gpt-4o", "messages": messages}).tokens_before
        budget = int(full * args.budget)
        for strategy, counts in kept.items():
            out, dt = run(strategy, messages, budget)
            if strategy == "intelligent":  # the next request resends the same history: cached embeddings
                warm_seconds += run(strategy, messages, budget)[1]
            seconds[strategy] += dt
            tokens[strategy].append(out["after"])
            text = prompt_text(out["body"])
            for category, facts in planted.items():
                for fact in facts:
                    counts[category] += fact in text
                    if strategy == "intelligent":
                        totals[category] += 1
    cats = list(FACTS)
    print(f"{args.scenarios} scenarios x {args.turns} turns, budget {args.budget:.0%} of each session's tokens")
    print(f"{'strategy':<15}" + "".join(f"{c:>10}" for c in cats) + f"{'all':>10}{'tokens':>9}{'ms/req':>9}")
    for strategy, counts in kept.items():
        allk, alln = sum(counts.values()), sum(totals.values())
        cells = "".join(f"{counts[c]:>5}/{totals[c]:<4}" for c in cats)
        avg_tokens = sum(tokens[strategy]) / len(tokens[strategy])
        print(f"{strategy:<15}{cells}{allk:>5}/{alln:<4}{avg_tokens:>9.0f}"
              f"{1000 * seconds[strategy] / args.scenarios:>9.0f}")
    print(f"intelligent, same session again (embedding cache warm): "
          f"{1000 * warm_seconds / args.scenarios:.0f} ms/req")


if __name__ == "__main__":
    main()
