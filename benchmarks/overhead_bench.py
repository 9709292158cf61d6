"""Per-call overhead: cold ``compress()`` latency on small and mid-size tool outputs.

    .venv/bin/python benchmarks/overhead_bench.py
    .venv/bin/python benchmarks/overhead_bench.py --upstream-python /tmp/upstream-venv/bin/python --rounds 21

One conversation per call (a question, the agent's tool call, the tool output), with
outputs of about 200, 1 500 and 8 000 tokens in three kinds: log lines, JSON rows and
plain prose, cut from the eval families. Each round uses a different seed, so no package's
content cache can answer; ours also starts every call from a fresh pipeline, CCR store,
memo and an emptied token-count cache (as ``real_corpus_bench.py`` does). Reported: the
median and best ms per output, the share spent in the content router (detection plus the
compressor, from the decisions) and what the rest of the pipeline costs (parse, token
counts, the other stages, render). With ``--upstream-python`` the upstream package
compresses the same outputs in one warmed-up child process; its median sits beside ours.
The machine is shared: compare the two columns of one run, not runs with each other.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from headroom import HeadroomConfig, Pipeline, compress
from headroom.ccr.store import CompressionStore
from headroom.eval.scenarios import FAMILIES
from headroom.tokens import counter_for
from headroom.transforms.router import CompressionMemo

sys.path.insert(0, str(Path(__file__).parent))  # the shared helpers, also when loaded by path (tests)
from bench_common import MODEL, UPSTREAM_PRELUDE, run_in_upstream

SIZES = (200, 1500, 8000)
KINDS = {"log": "text_logs", "json": "json_logs", "prose": "plain_text"}
QUESTION = "What happened here? Anything unusual?"


def tool_output(kind: str, tokens: int, seed: int) -> str:
    """An output of the family behind ``kind`` cut to about ``tokens`` tokens: whole lines
    for text, whole records for JSON (so it stays valid JSON)."""
    s = FAMILIES[KINDS[kind]](max(20, tokens // 8), seed)
    text = s.openai_messages(s.probes[0])[-1]["content"]
    counter = counter_for(MODEL)
    if kind == "json":
        rows = json.loads(text)
        out = []
        while rows and counter.count(json.dumps(out)) < tokens:
            out.append(rows.pop(0))
        return json.dumps(out)
    lines = text.splitlines()
    n = len(lines)
    while n > 1 and counter.count("\n".join(lines[:n])) > tokens:
        n = max(1, int(n * 0.9))
    return "\n".join(lines[:n])


def conversation(output: str) -> list[dict[str, Any]]:
    return [{"role": "user", "content": QUESTION},
            {"role": "assistant", "content": None, "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "run", "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": "c1", "content": output}]


def time_ours(messages: list[dict[str, Any]]) -> tuple[float, float]:
    """Cold wall ms of one compress(), and the ms the content router spent on the block."""
    store = CompressionStore(max_entries=10_000)
    pipeline = Pipeline(HeadroomConfig(), store=store)
    pipeline.memo = CompressionMemo(read_store=False)
    counter_for(MODEL)._cache.clear()
    t0 = time.perf_counter()
    result = compress(messages, model=MODEL, pipeline=pipeline)
    ms = (time.perf_counter() - t0) * 1000
    router = sum(d.duration_ms or 0 for d in result.decisions if d.transform == "content_router")
    return ms, router


UPSTREAM_RUNNER = UPSTREAM_PRELUDE + r"""
out = {}
for key, outputs in payload["cases"].items():
    ms = []
    for output in outputs:
        t0 = time.perf_counter()
        headroom.compress(conv(output, payload["question"]), model=payload["model"])
        ms.append((time.perf_counter() - t0) * 1000)
    out[key] = ms
print(json.dumps(out))
"""


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--rounds", type=int, default=15, help="calls per output (one seed each)")
    ap.add_argument("--sizes", default=",".join(map(str, SIZES)), help="output sizes in tokens, comma-separated")
    ap.add_argument("--upstream-python", help="python of a venv with headroom-ai installed (side by side)")
    ap.add_argument("--json", help="also write the rows to this JSON file")
    args = ap.parse_args(argv)
    sizes = [int(x) for x in args.sizes.split(",")]

    cases = {f"{kind}/{size}": [tool_output(kind, size, seed) for seed in range(args.rounds)]
             for size in sizes for kind in KINDS}
    compress(conversation("warm up " * 10), model=MODEL)  # imports, tokenizer
    upstream: dict[str, list[float]] = {}
    if args.upstream_python:
        upstream = run_in_upstream(args.upstream_python, UPSTREAM_RUNNER,
                                   {"model": MODEL, "question": QUESTION, "cases": cases})
    counter = counter_for(MODEL)
    rows = []
    print(f"{'output':12s} {'tokens':>6s} {'ours ms':>8s} {'best':>6s} {'router':>7s} {'rest':>6s}"
          + (f" {'upstream':>9s} {'ratio':>6s}" if upstream else ""))
    for key, outputs in cases.items():
        timed = [time_ours(conversation(o)) for o in outputs]
        ms = statistics.median(t for t, _ in timed)
        router = statistics.median(r for _, r in timed)
        row = {"output": key, "tokens": statistics.median(counter.count(o) for o in outputs), "ms": ms,
               "best_ms": min(t for t, _ in timed), "router_ms": router, "rest_ms": ms - router}
        line = (f"{key:12s} {row['tokens']:6.0f} {ms:8.2f} {row['best_ms']:6.2f} {router:7.2f} "
                f"{row['rest_ms']:6.2f}")
        if upstream:
            row["upstream_ms"] = statistics.median(upstream[key])
            line += f" {row['upstream_ms']:9.2f} {ms / row['upstream_ms']:5.2f}x"
        rows.append(row)
        print(line)
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=1))
    return 0


if __name__ == "__main__":
    sys.exit(main())
