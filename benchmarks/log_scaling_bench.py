"""How the whole ``compress()`` of a real text log scales with its length (issue 11).

    .venv/bin/python benchmarks/log_scaling_bench.py
    .venv/bin/python benchmarks/log_scaling_bench.py --sizes 1000,2000,5000,10000 --rounds 5

The text-form logs of the real corpus (dev split, one per source, longest first) are
each cut to their first N lines, and for sizes longer than a log, the logs are
concatenated in that order (as ``cat *.log`` would) and cut; every timed call is cold (fresh store and memo, emptied
token-count cache), as a first sight of the output would be. Prints the best round's
median per size, the cost per 1 000 lines (linear scaling keeps it flat), and the
targets: 2 000 lines <= 30 ms, 10 000 lines <= 150 ms.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

from headroom import HeadroomConfig, Pipeline, compress
from headroom.ccr.store import CompressionStore
from headroom.eval.corpus import load_cases
from headroom.tokens import counter_for
from headroom.transforms.router import CompressionMemo

sys.path.insert(0, str(Path(__file__).parent))
from bench_common import MODEL

TARGETS_MS = {2000: 30.0, 10000: 150.0}
QUESTION = "Summarise the log: what unusual or one-off events does it contain?"


def dev_logs() -> dict[str, list[str]]:
    """The longest text log of each dev source, longest first."""
    out: dict[str, list[str]] = {}
    for case in load_cases(split="dev"):
        lines = case.content.splitlines()
        if case.form == "text" and len(lines) > len(out.get(case.source, [])):
            out[case.source] = lines
    return dict(sorted(out.items(), key=lambda kv: -len(kv[1])))


def inputs_of(n: int, logs: dict[str, list[str]]) -> list[str]:
    """Every log with at least ``n`` lines cut to ``n``; or, when none is that long,
    all logs concatenated and cut (one input)."""
    long_enough = ["\n".join(lines[:n]) for lines in logs.values() if len(lines) >= n]
    if long_enough:
        return long_enough
    joined = [ln for lines in logs.values() for ln in lines]
    return ["\n".join(joined[:n])] if len(joined) >= n else []


def time_once(text: str) -> float:
    messages = [
        {"role": "user", "content": QUESTION},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "bash", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": text},
    ]
    pipeline = Pipeline(HeadroomConfig(), store=CompressionStore(), memo=CompressionMemo(read_store=False))
    counter_for(MODEL)._cache.clear()  # a cached count of these bytes would make the call warm
    t0 = time.perf_counter()
    compress(messages, model=MODEL, query=QUESTION, pipeline=pipeline)
    return (time.perf_counter() - t0) * 1000


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--sizes", default="2000,10000")
    ap.add_argument("--rounds", type=int, default=3, help="rounds per size (best round's median reported)")
    ap.add_argument("--repeats", type=int, default=3, help="calls per log per round")
    args = ap.parse_args()
    sizes = sorted(int(s) for s in args.sizes.split(","))
    logs = dev_logs()
    print(f"logs: {', '.join(f'{s} ({len(v)} lines)' for s, v in logs.items())}")
    time_once("\n".join(next(iter(logs.values()))[:200]))  # imports, tokenizer, pipeline
    print("| lines | inputs | median ms (best round) | slowest round | ms per 1 000 lines |")
    print("|---|---|---|---|---|")
    ok = True
    for n in sizes:
        texts = inputs_of(n, logs)
        if not texts:
            print(f"| {n:,} | 0 | - | - | - |")
            continue
        medians = [statistics.median(time_once(t) for t in texts for _ in range(args.repeats))
                   for _ in range(args.rounds)]
        best, worst = min(medians), max(medians)
        print(f"| {n:,} | {len(texts)} | {best:.1f} | {worst:.1f} | {best / n * 1000:.1f} |")
        if n in TARGETS_MS:
            passed = best <= TARGETS_MS[n]
            ok &= passed
            print(f"{'PASS' if passed else 'FAIL'} {n} lines <= {TARGETS_MS[n]:.0f} ms: {best:.1f} ms")
    return 0 if ok else 1


if __name__ == "__main__":
    raise SystemExit(main())
