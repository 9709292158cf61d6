"""The replay benchmark runs, is exact, and TOIN cuts retrievals on a short script."""

from __future__ import annotations

import json

import pytest

from tests.eval.bench_scripts import load_bench


@pytest.mark.slow
def test_short_replay_meets_the_targets(tmp_path, capsys):
    bench = load_bench("toin_replay")
    out = tmp_path / "replay.json"
    # 12 conversations per tool: TOIN learns in the first half (5 compressions per signature).
    assert bench.main(["--conversations", "72", "--timing-rounds", "2", "--json", str(out)]) == 0
    r = json.loads(out.read_text())
    off, on = r["off"]["second_half"], r["on"]["second_half"]
    assert on["retrieval_rate"] <= 0.5 * off["retrieval_rate"]
    assert on["in_view"] > off["in_view"]
    assert off["savings"] - on["savings"] <= 0.05
    assert on["steered"] > 0.5 and off["steered"] == 0
    # Strict scoring is the headline; the lenient column (any one matching item) is never lower.
    for s in (off, on):
        assert s["in_view_lenient"] >= s["in_view"] and s["retrieval_rate_lenient"] <= s["retrieval_rate"]
    assert "retrieval rate falls" in capsys.readouterr().out
