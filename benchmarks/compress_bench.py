"""Compression benchmark: tokens, savings, latency and planted facts, per scenario family.

    .venv/bin/python benchmarks/compress_bench.py                      # 100, 1 000, 10 000 items
    .venv/bin/python benchmarks/compress_bench.py --sizes 1000 --repeats 20
    .venv/bin/python benchmarks/compress_bench.py --upstream-python /tmp/upstream-venv/bin/python

For every family (metrics, JSON logs, text logs, code search, diffs, DB rows, API lists)
and size, one OpenAI-chat conversation (the question, the agent's tool call, the tool
output) goes through ``headroom.compress()``:

- tokens before/after and savings, with one counter (o200k, as for gpt-4o) for both
  headroom and the upstream package, so the numbers compare;
- median latency of ``compress()``, warm (imports, tokenizer and pipeline built) and
  repeated; each repetition compresses a fresh output of the same family and size (the
  next seeds), so no cache answers it and both packages see the same inputs
  (``memo ms`` is the repeat-turn cost, when our memo answers). The timed loop runs
  ``--rounds`` times, a short pause apart: these shared 2-core VMs change speed by
  1.5-2x from one second to the next, for every program alike. ``median ms`` is the
  best round's median (as ``timeit`` reports its best repeat) and ``slowest round`` the
  worst round's, so both the machine's quiet and its noisy speed are on the record;
- every planted fact (error, spike, anomaly, the item the question names): kept
  verbatim, recoverable (inside the CCR original behind a marker), or lost; each probe
  is asked in its own conversation, as a user would.

``--upstream-python`` runs the same conversations through ``headroom-ai`` (installed in a
separate venv) in a subprocess and adds its savings, latency and kept facts. Its public
``compress(messages, model=...)`` is the only API used; it has no retrieval API we
call, so its facts are reported as kept or not.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from headroom import HeadroomConfig, Pipeline, compress
from headroom.ccr.store import CompressionStore
from headroom.eval.evidence import check_evidence, recoverable_text, visible_text
from headroom.eval.scenarios import FAMILIES, Scenario
from headroom.transforms.router import CompressionMemo

sys.path.insert(0, str(Path(__file__).parent))  # the shared helpers, also when loaded by path (tests)
from bench_common import MODEL, run_in_upstream, tokens_of

BENCH_FAMILIES = ("metrics", "json_logs", "text_logs", "code_search", "git_diff", "db_rows", "api_listing")
# Families whose tool output is a repetitive JSON array (the >= 70 % savings target).
REPETITIVE_JSON = ("metrics", "json_logs")
# Families whose tool output is JSON (the latency targets).
JSON_FAMILIES = ("metrics", "json_logs", "db_rows", "api_listing")
ROUND_PAUSE_S = 0.3


def scenario_size(family: str, items: int) -> int:
    """Diff scenarios are sized in hunks; 10 changed lines per hunk makes ``items`` lines."""
    return max(3, items // 10) if family == "git_diff" else items


@dataclass
class Row:
    family: str
    items: int
    tokens_before: int
    tokens_after: int
    median_ms: float
    slowest_round_ms: float
    memo_ms: float
    facts: int
    kept: int
    recoverable: int
    lost: list[str] = field(default_factory=list)
    upstream: dict[str, Any] | None = None

    @property
    def savings(self) -> float:
        return 1 - self.tokens_after / self.tokens_before if self.tokens_before else 0.0


def timing_inputs(s: Scenario, repeats: int) -> list[list[dict[str, Any]]]:
    """Same family and size, a different seed per repetition (a warm-up and ``repeats``
    timed calls, over all rounds): every timed call sees new content, so no cache (ours,
    the token counter's or the upstream package's) can answer it."""
    gen = FAMILIES[s.family]
    return [(v := gen(s.size, s.seed + 1000 + k)).openai_messages(v.probes[0]) for k in range(repeats + 1)]


def bench_scenario(s: Scenario, timing: list[list[dict[str, Any]]], rounds: int = 3) -> Row:
    store = CompressionStore(max_entries=100_000)
    pipeline = Pipeline(HeadroomConfig(), store=store)
    compress(timing[0], model=MODEL, pipeline=pipeline)  # warm-up: imports, tokenizer, pipeline
    round_medians = []
    per_round = (len(timing) - 1) // rounds
    for r in range(rounds):
        times = []
        for messages in timing[1 + r * per_round: 1 + (r + 1) * per_round]:
            pipeline.memo = CompressionMemo(read_store=False)
            t0 = time.perf_counter()
            compress(messages, model=MODEL, pipeline=pipeline)
            times.append((time.perf_counter() - t0) * 1000)
        round_medians.append(statistics.median(times))
        time.sleep(ROUND_PAUSE_S)
    first = s.openai_messages(s.probes[0])
    result = compress(first, model=MODEL, pipeline=pipeline)
    t0 = time.perf_counter()
    compress(first, model=MODEL, pipeline=pipeline)  # memo hit: what a later turn costs
    memo_ms = (time.perf_counter() - t0) * 1000
    before, after = tokens_of(first), tokens_of(result.messages)
    facts = kept = rec = 0
    lost: list[str] = []
    for probe in s.probes:
        pipeline.memo = CompressionMemo(read_store=False)
        r = compress(s.openai_messages(probe), model=MODEL, pipeline=pipeline)
        visible = visible_text(r.conversation)
        ev = check_evidence(probe.evidence, visible, recoverable_text(visible, store))
        facts, kept, rec = facts + ev.total, kept + ev.kept, rec + ev.recoverable
        lost += ev.lost_strings
    return Row(s.family, s.size, before, after, min(round_medians), max(round_medians), memo_ms, facts, kept, rec,
               lost)


# Runs inside the upstream venv: reads cases on stdin, prints results as JSON.
UPSTREAM_RUNNER = r"""
import json, statistics, sys, time
import headroom
cases = json.load(sys.stdin)
out = []
for case in cases:
    runs, timing = case["runs"], case["timing"]
    headroom.compress(timing[0], model=case["model"])
    medians = []
    per_round = (len(timing) - 1) // case["rounds"]
    for r in range(case["rounds"]):
        times = []
        for messages in timing[1 + r * per_round: 1 + (r + 1) * per_round]:
            t0 = time.perf_counter()
            headroom.compress(messages, model=case["model"])
            times.append((time.perf_counter() - t0) * 1000)
        medians.append(statistics.median(times))
        time.sleep(case["pause"])
    r = headroom.compress(runs[0]["messages"], model=case["model"])
    kept = facts = 0
    for run in runs:
        res = headroom.compress(run["messages"], model=case["model"])
        text = json.dumps(res.messages, ensure_ascii=False)
        for e in run["evidence"]:
            facts += 1
            kept += json.dumps(e, ensure_ascii=False)[1:-1] in text
    out.append({"id": case["id"], "messages": r.messages, "median_ms": min(medians), "slowest_round_ms": max(medians),
                "facts": facts, "kept": kept, "version": getattr(headroom, "__version__", "?")})
print(json.dumps(out))
"""


def run_upstream(python: str, scenarios: list[Scenario], timings: list[list[list[dict[str, Any]]]],
                 rounds: int = 3) -> dict[str, dict[str, Any]]:
    cases = [{"id": f"{s.family}/{s.size}", "model": MODEL, "timing": timing, "rounds": rounds, "pause": ROUND_PAUSE_S,
              "runs": [{"messages": s.openai_messages(p), "evidence": list(p.evidence)} for p in s.probes]}
             for s, timing in zip(scenarios, timings)]
    results = run_in_upstream(python, UPSTREAM_RUNNER, cases)
    out = {}
    for r in results:
        r["tokens_after"] = tokens_of(r.pop("messages"))
        out[r["id"]] = r
    return out


def markdown(rows: list[Row], upstream: bool) -> str:
    head = ["family", "items", "tokens before", "tokens after", "savings", "median ms", "slowest round", "memo ms",
            "facts kept", "recoverable", "lost"]
    if upstream:
        head += ["upstream tokens after", "upstream savings", "upstream median ms", "upstream slowest round",
                 "upstream facts kept"]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for r in rows:
        cells = [r.family, f"{r.items:,}", f"{r.tokens_before:,}", f"{r.tokens_after:,}", f"{100 * r.savings:.1f}%",
                 f"{r.median_ms:.1f}", f"{r.slowest_round_ms:.1f}", f"{r.memo_ms:.1f}", f"{r.kept}/{r.facts}",
                 str(r.recoverable),
                 ", ".join(r.lost) or "0"]
        if upstream:
            u = r.upstream or {}
            if u:
                usave = 1 - u["tokens_after"] / r.tokens_before
                cells += [f"{u['tokens_after']:,}", f"{100 * usave:.1f}%", f"{u['median_ms']:.1f}",
                          f"{u['slowest_round_ms']:.1f}", f"{u['kept']}/{u['facts']}"]
            else:
                cells += ["-"] * 5
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def check_targets(rows: list[Row]) -> list[str]:
    """The issue-2 targets; returns one line per target with PASS/FAIL."""
    out = []
    for r in rows:
        if r.family in JSON_FAMILIES:
            limit = {1000: 10, 10000: 100}.get(r.items)
            if limit is not None:
                out.append(f"{'PASS' if r.median_ms <= limit else 'FAIL'} median <= {limit} ms, {r.family} "
                           f"{r.items} items: {r.median_ms:.1f} ms (slowest round {r.slowest_round_ms:.1f} ms)")
        if r.family in REPETITIVE_JSON:
            if r.items >= 1000:
                ok = r.savings >= 0.7 and not r.lost
                out.append(f"{'PASS' if ok else 'FAIL'} >= 70% savings with every fact kept or recoverable, "
                           f"{r.family} {r.items}: {100 * r.savings:.1f}%, lost {len(r.lost)}")
    worse = [f"{r.family}/{r.items}" for r in rows if r.tokens_after > r.tokens_before]
    out.append(f"{'PASS' if not worse else 'FAIL'} never more tokens out than in" + (f": {worse}" if worse else ""))
    return out


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--families", default=",".join(BENCH_FAMILIES))
    ap.add_argument("--sizes", default="100,1000,10000", help="items per tool output")
    ap.add_argument("--repeats", type=int, default=9, help="timed compress() calls per round")
    ap.add_argument("--rounds", type=int, default=3, help="timed rounds per scenario (best and slowest reported)")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--upstream-python", help="python of a venv with headroom-ai installed (side by side)")
    ap.add_argument("--json", help="also write the rows to this JSON file")
    args = ap.parse_args(argv)
    families = [f for f in args.families.split(",") if f]
    unknown = [f for f in families if f not in FAMILIES]
    if unknown:
        ap.error(f"unknown families {unknown}")
    if args.repeats < 1 or args.rounds < 1:
        ap.error("--repeats and --rounds must be at least 1")
    sizes = [int(x) for x in args.sizes.split(",") if x]
    scenarios = [FAMILIES[f](scenario_size(f, n), args.seed) for f in families for n in sizes]
    rows = []
    timings = [timing_inputs(s, args.repeats * args.rounds) for s in scenarios]
    for s, timing, (f, n) in zip(scenarios, timings, [(f, n) for f in families for n in sizes]):
        row = bench_scenario(s, timing, args.rounds)
        row.items = n
        rows.append(row)
        print(f"{f:>12} {n:>6}: {row.tokens_before:>8} -> {row.tokens_after:>7} tokens, "
              f"{row.median_ms:7.1f} ms", file=sys.stderr)
    if args.upstream_python:
        up = run_upstream(args.upstream_python, scenarios, timings, args.rounds)
        for s, r in zip(scenarios, rows):
            r.upstream = up.get(f"{s.family}/{s.size}")
    print(markdown(rows, bool(args.upstream_python)))
    print()
    for line in check_targets(rows):
        print(f"- {line}")
    if args.json:
        with open(args.json, "w") as fh:
            json.dump([{**r.__dict__, "savings": r.savings} for r in rows], fh, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
