"""The benchmark script stays runnable (it is not imported by anything else)."""

from __future__ import annotations

import json

from tests.eval.bench_scripts import load_bench


def _load():
    return load_bench("compress_bench")


def test_bench_prints_a_table_and_target_lines(tmp_path, capsys):
    bench = _load()
    out = tmp_path / "rows.json"
    assert bench.main(["--families", "metrics,git_diff", "--sizes", "100", "--repeats", "1", "--rounds", "2", "--json", str(out)]) == 0
    printed = capsys.readouterr().out
    assert printed.startswith("| family | items |") and "| metrics | 100 |" in printed
    assert "never more tokens out than in" in printed
    rows = json.loads(out.read_text())
    assert {r["family"] for r in rows} == {"metrics", "git_diff"}
    assert all(r["tokens_after"] <= r["tokens_before"] and r["facts"] > 0 for r in rows)
    assert bench.scenario_size("git_diff", 1000) == 100 and bench.scenario_size("metrics", 1000) == 1000
