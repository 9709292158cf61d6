import json
import shutil

from headroom.cli import main


def test_models_json_lists_presence_and_device(capsys):
    assert main(["models", "--json", "--device", "cpu"]) == 0
    out = json.loads(capsys.readouterr().out)
    rows = {r["name"]: r for r in out["models"]}
    assert out["device"] == "cpu"
    assert rows["all-minilm-l6-v2"]["present"] and rows["all-minilm-l6-v2"]["device"] == "cpu"
    assert not rows["siglip"]["present"] and "HEADROOM_SIGLIP_PATH" in rows["siglip"]["hint"]


def test_models_finds_and_loads_a_checkpoint_in_the_model_dir(tmp_path, monkeypatch, capsys, tiny_bert_dir):
    shutil.copytree(tiny_bert_dir, tmp_path / "llmlingua-2-bert-base-multilingual")
    monkeypatch.setenv("HEADROOM_MODEL_DIR", str(tmp_path))
    assert main(["models", "--load", "--device", "cpu", "--json"]) == 0
    row = next(r for r in json.loads(capsys.readouterr().out)["models"]
               if r["name"] == "llmlingua-2-bert-base-multilingual")
    assert row["present"] and row["source"] == "env" and row["path"].startswith(str(tmp_path))
    assert row["load"].startswith("loaded in")
    assert main(["models", "--device", "cpu"]) == 0  # the human-readable table
    assert "llmlingua-2-bert-base-multilingual   present" in capsys.readouterr().out


def test_doctor_reports_ok_and_missing_models(tmp_path, capsys):
    assert main(["doctor", "--json", "--ccr-path", str(tmp_path / "ccr.sqlite3")]) == 0
    out = json.loads(capsys.readouterr().out)
    checks = {c["name"]: c for c in out["checks"]}
    assert out["ok"] is True
    assert checks["offline tokenizer"]["level"] == "ok"
    assert checks["CCR store path"]["level"] == "ok"
    assert checks["extra [ml]"]["level"] == "ok"
    assert checks["model siglip"]["level"] == "warn" and "HEADROOM_SIGLIP_PATH" in checks["model siglip"]["fix"]


def test_doctor_fails_on_unwritable_ccr_path(tmp_path, capsys):
    blocker = tmp_path / "not_a_dir"
    blocker.write_text("x")
    assert main(["doctor", "--ccr-path", str(blocker / "ccr.sqlite3")]) == 1
    out = capsys.readouterr().out
    assert "[FAIL] CCR store path" in out and "problems found" in out


def test_proxy_with_llmlingua_but_no_model_fails_at_start_with_the_fix(tmp_path, monkeypatch, capsys):
    """A missing optional model stops `headroom proxy --llmlingua` before it serves anything,
    with one message naming where to put the files (no traceback, no silent 0 %)."""
    from headroom.cli import main

    monkeypatch.setenv("HEADROOM_MODEL_DIR", str(tmp_path))  # empty: no checkpoint anywhere
    monkeypatch.delenv("HEADROOM_LLMLINGUA_2_XLM_ROBERTA_LARGE_PATH", raising=False)
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))
    rc = main(["proxy", "--llmlingua", "--port", "0", "--ccr-path", str(tmp_path / "ccr.sqlite3"),
               "--no-metrics"])
    err = capsys.readouterr().err
    assert rc == 2
    assert "headroom proxy: error: model 'llmlingua-2-xlm-roberta-large'" in err
    assert "HEADROOM_MODEL_DIR" in err or "HEADROOM_LLMLINGUA_2_XLM_ROBERTA_LARGE_PATH" in err


def test_doctor_checks_every_core_dependency_of_the_package():
    from pathlib import Path

    import pytest

    tomllib = pytest.importorskip("tomllib")  # Python 3.11+

    from headroom.ml.doctor import CORE

    from packaging.requirements import Requirement

    pyproject = tomllib.loads((Path(__file__).resolve().parents[2] / "pyproject.toml").read_text())
    reqs = [Requirement(d) for d in pyproject["project"]["dependencies"]]
    # Only what this Python needs (tomli is declared for Python < 3.11 only).
    declared = {r.name.lower() for r in reqs if r.marker is None or r.marker.evaluate()}
    assert {dist for dist, _ in CORE} == declared
