"""Reports (markdown, self-contained HTML, PNG plots), the release gate and the CLI."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from headroom.cli import main
from headroom.eval.compression import run_compression
from headroom.eval.gate import evaluate, format_checks, load_thresholds
from headroom.eval.report import load_results, save_results, write_reports
from headroom.eval.scenarios import build_suite

from .conftest import head_keeper_factory

REPO_GATE = Path(__file__).resolve().parents[2] / "headroom" / "eval" / "gate.toml"


@pytest.fixture(scope="module")
def results():
    return run_compression(build_suite("smoke", ["metrics", "text_logs", "code_search"]), ["deterministic", "llmlingua2"],
                           pipeline_factory=head_keeper_factory(5), formats=["openai_chat"], progress=False)


def test_reports_are_written_and_self_contained(results, tmp_path):
    save_results(results, tmp_path)
    assert load_results(tmp_path)["summary"].keys() == results["summary"].keys()
    written = write_reports(load_results(tmp_path), tmp_path)
    md = written["markdown"].read_text()
    assert "in view" in md and "recoverable only" in md
    assert "| deterministic | ok |" in md and "skipped: no LLMLingua-2 checkpoint" in md
    assert "Per family — deterministic" in md and "| text_logs |" in md
    assert "Per fact kind — deterministic" in md and "| lookup |" in md
    page = written["html"].read_text()
    assert page.count("data:image/png;base64,") == 2 and 'src="http' not in page and "src='http" not in page
    for name in ("pareto", "families"):
        assert written[name].read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    with pytest.raises(FileNotFoundError):
        load_results(tmp_path / "nowhere")


def test_gate_passes_and_fails_on_thresholds(results):
    s = results["summary"]["deterministic"]["overall"]
    ok = evaluate(results, {"overall": {"min_in_view_retention": s["in_view_retention"],
                                        "max_recoverable_only": s["recoverable_only"],
                                        "min_savings": s["savings"] - 0.01}})
    assert all(c.passed for c in ok)
    bad = evaluate(results, {"overall": {"min_savings": 0.999}})
    failed = [c for c in bad if not c.passed]
    assert [(c.scope, c.metric) for c in failed] == [("deterministic", "min_savings")]
    table = format_checks(bad)
    assert re.search(r"^FAIL\s+deterministic\s+min_savings\s+0.999", table, re.MULTILINE)
    assert re.search(r"^SKIP\s+llmlingua2\s+status.*skipped: no LLMLingua-2", table, re.MULTILINE)
    # A skipped configuration fails only when required.
    req = evaluate(results, {"overall": {}, "require": {"configs": ["llmlingua2"]}})
    assert [c.scope for c in req if not c.passed] == ["llmlingua2"]
    fam = evaluate(results, {"families": {"metrics": {"max_lost": -1}}})
    assert [c.scope for c in fam if not c.passed] == ["deterministic/metrics"]


def test_gate_file_is_valid_and_typos_are_rejected(tmp_path):
    data = load_thresholds(REPO_GATE)
    assert data["overall"]["min_in_view_retention"] == 0.98
    assert "min_fact_retention" not in data["overall"]  # the gate never sums in view and recoverable
    bad = tmp_path / "gate.toml"
    bad.write_text("[overall]\nmin_savigns = 0.5\n")
    with pytest.raises(ValueError, match="min_savigns"):
        load_thresholds(bad)


def test_cli_run_report_gate(tmp_path, capsys):
    out = tmp_path / "res"
    rc = main(["eval", "run", "--suite", "smoke", "--families", "metrics,json_logs", "--configs", "deterministic,llmlingua2",
               "--formats", "openai_chat", "--device", "cpu", "--out", str(out), "--quiet", "--no-plots"])
    assert rc == 0
    printed = capsys.readouterr().out
    assert "| deterministic | ok |" in printed
    data = json.loads((out / "results.json").read_text())
    assert data["meta"]["suite"] == "smoke" and data["meta"]["device"] == "cpu"
    assert main(["eval", "report", str(out), "--no-plots"]) == 0
    assert (out / "report.html").exists()
    capsys.readouterr()
    assert main(["eval", "gate", str(out), "--gate-config", str(REPO_GATE), "--min-savings", "0.9999"]) == 1
    table = capsys.readouterr().out
    assert "FAIL" in table and "min_savings" in table and "0.9999" in table
    assert main(["eval", "gate", str(out), "--gate-config", str(REPO_GATE), "--min-savings", "0",
                 "--min-in-view-retention", "0", "--max-recoverable-only", "1"]) in (0, 1)


def test_corpus_is_reported_per_split_and_gated_on_in_view_retention(tmp_path):
    res = run_compression(build_suite("smoke", ["real_corpus"]), ["deterministic"], formats=["openai_chat"],
                          pipeline_factory=head_keeper_factory(5), progress=False)
    splits = res["summary"]["deterministic"]["corpus_splits"]
    assert set(splits) == {"dev", "heldout"}
    assert sum(s["cases"] for s in splits.values()) == res["summary"]["deterministic"]["overall"]["cases"]
    md = write_reports(res, tmp_path, plots=False)["markdown"].read_text()
    assert "Real-output corpus per split — deterministic" in md
    assert re.search(r"^\| heldout \| \d+ \|", md, re.MULTILINE)
    corpus_view = res["summary"]["deterministic"]["families"]["real_corpus"]["in_view_retention"]
    checks = [c for c in evaluate(res, load_thresholds(REPO_GATE)) if c.scope == "deterministic/real_corpus"]
    [c] = [c for c in checks if c.metric == "min_in_view_retention"]
    assert c.threshold == 0.95 and c.value == corpus_view and c.passed == (corpus_view >= 0.95)


def test_gate_checks_the_llm_accuracy_delta(results):
    with_llm = {**results, "llm": {"arms": {"original": {"n": 4}, "compressed": {
        "n": 4, "delta_contains": {"mean": -0.25, "lo": -0.5, "hi": 0.0, "n": 4}}}}}
    checks = evaluate(with_llm, {"overall": {"min_llm_contains_delta": -0.05}})
    [llm] = [c for c in checks if c.scope == "llm/compressed"]
    assert not llm.passed and llm.value == -0.25
    assert all(c.passed for c in evaluate(with_llm, {"overall": {"min_llm_contains_delta": -0.3}}))


def test_gate_reads_the_shipped_file_from_any_working_directory(tmp_path, monkeypatch):
    # One source of thresholds: the package's gate.toml, found without a checkout's cwd.
    monkeypatch.chdir(tmp_path)
    assert load_thresholds(None) == load_thresholds(REPO_GATE)


@pytest.mark.slow
def test_gate_fails_both_negative_controls_and_names_in_view_retention(tmp_path, capsys):
    """bare_marker and drop_rare keep every fact recoverable; only in-view retention and
    the recoverable-only ceiling can catch them, and the shipped gate must."""
    out = tmp_path / "controls"
    assert main(["eval", "run", "--suite", "smoke", "--families", "metrics,json_logs,db_rows,text_logs,build_output",
                 "--configs", "bare_marker,drop_rare", "--formats", "openai_chat", "--out", str(out), "--quiet",
                 "--no-plots"]) == 0
    data = load_results(out)
    for name in ("bare_marker", "drop_rare"):
        overall = data["summary"][name]["overall"]
        assert overall["lost"] == 0  # all of it recoverable: the old gate would have passed
        assert overall["in_view_retention"] < 0.5
    capsys.readouterr()
    assert main(["eval", "gate", str(out)]) == 1
    table = capsys.readouterr().out
    for name in ("bare_marker", "drop_rare"):
        assert re.search(rf"^FAIL\s+{name}\s+min_in_view_retention", table, re.MULTILINE)
        assert re.search(rf"^FAIL\s+{name}\s+max_recoverable_only", table, re.MULTILINE)
