"""The per-call overhead benchmark stays runnable and measures what it says."""

from __future__ import annotations

import json

from headroom.tokens import counter_for
from tests.eval.bench_scripts import load_bench


def test_outputs_are_cut_to_about_the_asked_size_and_stay_valid():
    bench = load_bench("overhead_bench")
    counter = counter_for(bench.MODEL)
    for kind in bench.KINDS:
        out = bench.tool_output(kind, 1500, seed=1)
        assert 0.7 * 1500 <= counter.count(out) <= 1.15 * 1500, kind
        if kind == "json":
            assert isinstance(json.loads(out), list)
    assert bench.tool_output("log", 1500, 1) != bench.tool_output("log", 1500, 2)  # no cache can answer


def test_bench_prints_one_row_per_output(tmp_path, capsys):
    bench = load_bench("overhead_bench")
    out = tmp_path / "rows.json"
    assert bench.main(["--rounds", "2", "--sizes", "200,1500", "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    assert printed.startswith("output") and "log/1500" in printed
    rows = json.loads(out.read_text())
    assert [r["output"] for r in rows] == [f"{k}/{n}" for n in (200, 1500) for k in bench.KINDS]
    assert all(r["ms"] >= r["router_ms"] >= 0 and r["best_ms"] <= r["ms"] for r in rows)
    # Below the router's minimum nothing is compressed; at 1.5K tokens every kind is.
    assert all(r["router_ms"] > 0 for r in rows if r["output"].endswith("/1500"))
