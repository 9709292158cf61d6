"""The decided speed rule on the real corpus, per content class, in one run.

    .venv/bin/python benchmarks/speed_rule_bench.py --upstream-python /tmp/upstream-venv/bin/python \
        --json benchmarks/results/speed_rule.json
    .venv/bin/python benchmarks/speed_rule_bench.py --upstream-python ... --cases 'read_python/*'

The rule (docs/decisions.md, issue 34): where upstream passes an output through unchanged
and we compress it, our whole ``compress()`` call may take at most 2.5x tiktoken's count
time of that output plus 2 ms, i.e. ``(call - 2 ms) / count <= 2.5``; where both leave it
unchanged, at most 2 ms more than upstream; everywhere else no more than upstream.

Every case is measured in this one process, each round timing our call and then
tiktoken's count of the same tool output back to back, so a busy machine slows both
alike (the ratio is what the rule reads; absolute milliseconds on a shared VM are not).
Each round starts cold: a fresh pipeline, CCR store and memo that does not read the store,
and an emptied token-count cache. Medians of ``--rounds`` (default 5). Upstream runs in
fresh child processes of its own venv per round (cases sharing an output go to different
processes, as upstream caches by content); its median per case.

The class of a case is the content type our router gave its tool output ("code", "log",
"text", "table", ...), "unknown" when no router decision names one.

On a loaded machine every millisecond stretches, the rule's fixed 2 ms included, so the
bench also reports ``load``: the median, over the cases, of tiktoken's count time now
against the count time of the same output in ``--reference`` (a results file of
real_corpus_bench.py from a quieter run), and a ratio with the slack scaled by it,
``(call - 2 ms x load) / count``. The rule itself is judged on the plain ratio.
"""

from __future__ import annotations

import argparse
import datetime
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from headroom import HeadroomConfig, Pipeline, compress
from headroom.ccr.store import CompressionStore
from headroom.eval.corpus import CorpusCase, load_cases
from headroom.tokens import counter_for
from headroom.transforms.router import CompressionMemo

sys.path.insert(0, str(Path(__file__).parent))
from bench_common import MODEL, run_in_upstream, tokens_of
from real_corpus_bench import UPSTREAM_RUNNER, case_messages, content_batches, select

COMPRESS_VS_COUNT, CALL_SLACK_MS = 2.5, 2.0


def time_ours(case: CorpusCase, rounds: int, config: HeadroomConfig) -> dict[str, Any]:
    """Median call and count ms over ``rounds`` cold rounds, and what the call did."""
    messages = case_messages(case)
    counter = counter_for(MODEL)
    enc = counter.encoding
    calls, counts = [], []
    result = None
    for _ in range(rounds):
        pipeline = Pipeline(config, store=CompressionStore(max_entries=10_000))
        pipeline.memo = CompressionMemo(read_store=False)
        counter._cache.clear()  # a remembered count of these bytes would make the call warm
        t0 = time.perf_counter()
        result = compress(messages, model=MODEL, pipeline=pipeline)
        t1 = time.perf_counter()
        enc.encode(case.content, disallowed_special=())
        t2 = time.perf_counter()
        calls.append((t1 - t0) * 1000)
        counts.append((t2 - t1) * 1000)
    assert result is not None
    ctype = next((d.content_type for d in result.decisions if d.transform == "content_router" and d.content_type),
                 None) or "unknown"
    return {"ms": statistics.median(calls), "count_ms": statistics.median(counts), "class": ctype,
            "tokens_after": tokens_of(result.messages)}


def time_upstream(python: str, cases: list[CorpusCase], rounds: int) -> dict[str, dict[str, Any]]:
    """Median ms per case over ``rounds`` fresh upstream processes, and its tokens after."""
    ms: dict[str, list[float]] = {}
    after: dict[str, int] = {}
    for r in range(rounds):
        for batch in content_batches(cases):
            payload = [{"id": c.id, "messages": case_messages(c)} for c in batch]
            got = run_in_upstream(python, UPSTREAM_RUNNER, {"model": MODEL, "cases": payload, "keep_messages": r == 0})
            got.pop("_version", None)
            for cid, res in got.items():
                ms.setdefault(cid, []).append(res["ms"])
                if res["messages"] is not None:
                    after[cid] = tokens_of(res["messages"])
    return {cid: {"ms": statistics.median(v), "tokens_after": after[cid]} for cid, v in ms.items()}


def verdict(row: dict[str, Any]) -> tuple[str, bool]:
    """(which bound applies, whether the case breaks it)."""
    up = row.get("upstream")
    ours_unchanged = row["tokens_after"] >= row["tokens_before"]
    if up is None:
        return "no upstream", False
    up_unchanged = up["tokens_after"] >= row["tokens_before"]
    if up_unchanged and not ours_unchanged:
        return "vs count", row["vs_count"] > COMPRESS_VS_COUNT
    if up_unchanged and ours_unchanged:
        return "both unchanged", row["ms"] > up["ms"] + CALL_SLACK_MS
    return "vs upstream", row["ms"] > up["ms"]


def class_table(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    by: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        by.setdefault(r["class"], []).append(r)
    out = []
    for cls, rs in sorted(by.items()):
        vc = [r["vs_count"] for r in rs]
        scaled = [r["vs_count_load_scaled"] for r in rs if r["bound"] == "vs count"]
        vu = [r["ms"] / r["upstream"]["ms"] for r in rs if r.get("upstream") and r["upstream"]["ms"] > 0]
        ruled = [r for r in rs if r["bound"] == "vs count"]
        out.append({"class": cls, "cases": len(rs), "vs_count_median": statistics.median(vc),
                    "vs_count_max": max(vc), "vs_upstream_median": statistics.median(vu) if vu else None,
                    "under_count_bound": len(ruled), "breaking": sum(r["breaks"] for r in rs),
                    "vs_count_load_scaled_median": statistics.median(scaled) if scaled else None,
                    "breaking_load_scaled": sum(x > COMPRESS_VS_COUNT for x in scaled)})
    return out


def load_factor(rows: list[dict[str, Any]], reference: str) -> float:
    """Median of (count ms now / count ms in ``reference``) over the cases both hold."""
    try:
        ref = {c["id"]: c.get("count_ms") for c in json.loads(Path(reference).read_text())["cases"]}
    except (OSError, ValueError, KeyError):
        return 1.0
    ratios = [r["count_ms"] / ref[r["id"]] for r in rows if ref.get(r["id"])]
    return statistics.median(ratios) if ratios else 1.0


def markdown(table: list[dict[str, Any]]) -> str:
    lines = [("| class | cases | (call - 2 ms) / count, median | max | ours / upstream, median | "
              "cases under the count bound | breaking the rule | load-scaled ratio, median (count bound) | "
              "breaking, load-scaled |"), "|---|---|---|---|---|---|---|---|---|"]
    for t in table:
        vu = f"{t['vs_upstream_median']:.2f}" if t["vs_upstream_median"] is not None else "-"
        sc = f"{t['vs_count_load_scaled_median']:.2f}" if t["vs_count_load_scaled_median"] is not None else "-"
        lines.append(f"| {t['class']} | {t['cases']} | {t['vs_count_median']:.2f} | {t['vs_count_max']:.2f} | {vu} | "
                     f"{t['under_count_bound']} | {t['breaking']} | {sc} | {t['breaking_load_scaled']} |")
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--cases", help="comma-separated glob(s) or substrings of case ids")
    ap.add_argument("--split", choices=("dev", "heldout", "all"), default="dev",
                    help="dev (default); held-out sources are measured once, at the end: ask for them by name")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--upstream-python", help="python of a venv with headroom-ai installed")
    ap.add_argument("--one-per-output", action="store_true",
                    help="time one case per distinct tool output (cases sharing an output differ only by question)")
    ap.add_argument("--json", help="write rows and the per-class table here")
    ap.add_argument("--reference", default=str(Path(__file__).parent / "results" / "real_corpus.json"),
                    help="real_corpus_bench results whose count_ms give the load factor")
    args = ap.parse_args(argv)
    cases = select(load_cases(split=args.split) if args.split != "all" else load_cases(), args.cases)
    if args.one_per_output:
        seen: set[str] = set()
        cases = [c for c in cases if not (c.content in seen or seen.add(c.content))]  # type: ignore[func-returns-value]
    config = HeadroomConfig()
    upstream = time_upstream(args.upstream_python, cases, args.rounds) if args.upstream_python else {}
    rows = []
    for c in cases:
        ours = time_ours(c, args.rounds, config)
        row = {"id": c.id, "chars": len(c.content), "tokens_before": tokens_of(case_messages(c)), **ours,
               "vs_count": (ours["ms"] - CALL_SLACK_MS) / ours["count_ms"] if ours["count_ms"] else 0.0,
               "upstream": upstream.get(c.id)}
        row["bound"], row["breaks"] = verdict(row)
        rows.append(row)
    load = load_factor(rows, args.reference)
    for r in rows:
        r["vs_count_load_scaled"] = (r["ms"] - CALL_SLACK_MS * load) / r["count_ms"] if r["count_ms"] else 0.0
    table = class_table(rows)
    print(markdown(table))
    print(f"\nload factor (count time now / in {Path(args.reference).name}): {load:.2f}")
    breaking = [r for r in rows if r["breaks"]]
    print(f"\n{len(breaking)} of {len(rows)} cases break the rule")
    for r in sorted(breaking, key=lambda r: -r["vs_count"]):
        up = r["upstream"]["ms"] if r.get("upstream") else float("nan")
        print(f"  {r['id']}: {r['class']}, {r['bound']}: call {r['ms']:.2f} ms, count {r['count_ms']:.2f} ms "
              f"(x{r['vs_count']:.2f}), upstream {up:.2f} ms")
    if args.json:
        commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], capture_output=True, text=True,
                                cwd=Path(__file__).parent, check=False).stdout.strip()
        Path(args.json).write_text(json.dumps({
            "command": " ".join(["benchmarks/speed_rule_bench.py", *(argv if argv is not None else sys.argv[1:])]),
            "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "commit": commit, "load_average": os.getloadavg(), "rounds": args.rounds, "load_factor": load,
            "classes": table, "breaking": len(breaking), "rows": rows}, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
