"""Latency of two checkouts side by side: ``compress_bench.py`` run alternately in each.

    .venv/bin/python benchmarks/compare_trees.py /work/wt-ref . --sizes 1000,10000 --runs 4

``--cpu`` times the same calls (compress_bench's inputs: fresh seeds, warm pipeline, memo
reset) in a small runner that also reads the process CPU time of each call: on a loaded
shared VM the CPU time a call consumes moves far less than its wall time.

Each run is one ``compress_bench.py --json`` subprocess with ``PYTHONPATH`` set to the tree
(an editable install would otherwise import whichever checkout it was installed from); the
trees take turns, A B A B ..., so both see the same machine phases. Per family and size it
prints each tree's median over runs of the bench's best-round median, the best run, the
ratio B/A of the medians and of the bests, and both trees' savings.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

JSON_FAMILIES = "metrics,json_logs,db_rows,api_listing"


# Runs in the tree's own Python path: one JSON row per family and size, wall and CPU ms.
CPU_RUNNER = r"""
import inspect, json, statistics, sys, time
from headroom import HeadroomConfig, Pipeline, compress
from headroom.ccr.store import CompressionStore
from headroom.eval.scenarios import FAMILIES
from headroom.transforms.router import CompressionMemo
kw = {"read_store": False} if "read_store" in inspect.signature(CompressionMemo).parameters else {}
families, sizes, repeats = sys.argv[1].split(","), [int(x) for x in sys.argv[2].split(",")], int(sys.argv[3])
rows = []
for fam in families:
    for n in sizes:
        msgs = [(v := FAMILIES[fam](n, 1 + 1000 + k)).openai_messages(v.probes[0]) for k in range(repeats + 1)]
        p = Pipeline(HeadroomConfig(), store=CompressionStore(max_entries=100_000))
        compress(msgs[0], model="gpt-4o", pipeline=p)
        wall, cpu = [], []
        for m in msgs[1:]:
            p.memo = CompressionMemo(**kw)
            w0, c0 = time.perf_counter(), time.process_time()
            r = compress(m, model="gpt-4o", pipeline=p)
            cpu.append((time.process_time() - c0) * 1000)
            wall.append((time.perf_counter() - w0) * 1000)
        rows.append({"family": fam, "items": n, "median_ms": statistics.median(wall),
                     "cpu_ms": statistics.median(cpu), "savings": 0.0})
print(json.dumps(rows))
"""


def run_cpu(tree: Path, args: argparse.Namespace) -> list[dict]:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    out = subprocess.run([sys.executable, "-c", CPU_RUNNER, args.families, args.sizes, str(args.repeats * args.rounds)],
                         cwd=tree, env=env, check=True, capture_output=True, text=True).stdout
    return json.loads(out)


def run_bench(tree: Path, args: argparse.Namespace) -> list[dict]:
    with tempfile.NamedTemporaryFile(suffix=".json", delete=False) as fh:
        out = fh.name
    cmd = [sys.executable, str(tree / "benchmarks" / "compress_bench.py"), "--families", args.families,
           "--sizes", args.sizes, "--rounds", str(args.rounds), "--repeats", str(args.repeats), "--json", out]
    env = {**os.environ, "PYTHONPATH": str(tree)}
    subprocess.run(cmd, cwd=tree, env=env, check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    rows = json.loads(Path(out).read_text())
    os.unlink(out)
    return rows


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("tree_a", type=Path, help="reference checkout")
    ap.add_argument("tree_b", type=Path, help="checkout under test")
    ap.add_argument("--families", default=JSON_FAMILIES)
    ap.add_argument("--sizes", default="1000")
    ap.add_argument("--runs", type=int, default=4, help="bench runs per tree, alternating")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--repeats", type=int, default=9)
    ap.add_argument("--cpu", action="store_true", help="time wall and CPU ms in a small runner (no facts, no savings)")
    args = ap.parse_args(argv)
    trees = [args.tree_a.resolve(), args.tree_b.resolve()]
    ms: dict[tuple[int, str, int], list[float]] = {}
    savings: dict[tuple[int, str, int], float] = {}
    cpu: dict[tuple[int, str, int], list[float]] = {}
    for run in range(args.runs):
        for i, tree in enumerate(trees if run % 2 == 0 else trees[::-1]):
            idx = trees.index(tree)
            for r in (run_cpu if args.cpu else run_bench)(tree, args):
                key = (idx, r["family"], r["items"])
                ms.setdefault(key, []).append(r["median_ms"])
                cpu.setdefault(key, []).append(r.get("cpu_ms", 0.0))
                savings[key] = r["savings"]
        print(f"run {run + 1}/{args.runs} done", file=sys.stderr)
    print(f"A = {trees[0]}\nB = {trees[1]}\n")
    if args.cpu:
        print("| family | items | A wall ms | B wall ms | B/A wall | A CPU ms | B CPU ms | B/A CPU (median) "
              "| B/A CPU (best) |")
        print("|---|---|---|---|---|---|---|---|---|")
        for (_, fam, items) in sorted(k for k in ms if k[0] == 0):
            wa, wb = statistics.median(ms[(0, fam, items)]), statistics.median(ms[(1, fam, items)])
            ca, cb = cpu[(0, fam, items)], cpu[(1, fam, items)]
            print(f"| {fam} | {items:,} | {wa:.2f} | {wb:.2f} | {wb / wa:.3f} | {statistics.median(ca):.2f} | "
                  f"{statistics.median(cb):.2f} | {statistics.median(cb) / statistics.median(ca):.3f} | "
                  f"{min(cb) / min(ca):.3f} |")
        return 0
    print("| family | items | A median ms | B median ms | B/A (median) | A best | B best | B/A (best) "
          "| A savings | B savings |")
    print("|---|---|---|---|---|---|---|---|---|---|")
    for (_, fam, items) in sorted(k for k in ms if k[0] == 0):
        a, b = ms[(0, fam, items)], ms[(1, fam, items)]
        ma, mb = statistics.median(a), statistics.median(b)
        print(f"| {fam} | {items:,} | {ma:.2f} | {mb:.2f} | {mb / ma:.3f} | {min(a):.2f} | {min(b):.2f} | "
              f"{min(b) / min(a):.3f} | {100 * savings[(0, fam, items)]:.1f}% | {100 * savings[(1, fam, items)]:.1f}% |")
    return 0


if __name__ == "__main__":
    sys.exit(main())
