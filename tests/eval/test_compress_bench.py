"""The benchmark script stays runnable (it is not imported by anything else)."""

from __future__ import annotations

import importlib.util
import json
import sys
from pathlib import Path

BENCH = Path(__file__).resolve().parents[2] / "benchmarks" / "compress_bench.py"


def _load():
    spec = importlib.util.spec_from_file_location("compress_bench", BENCH)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # dataclasses look their module up while the class is built
    spec.loader.exec_module(mod)
    return mod


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
