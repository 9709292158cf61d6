"""A second ``headroom eval run`` into the same directory, with the same code, corpus,
dependencies and options, reuses the first run's compression results (a reader run after
the compression-only one); anything that changes them, or ``--fresh``, recomputes."""

from __future__ import annotations

import json

from headroom.cli import main
from headroom.eval import reuse

RUN = ["eval", "run", "--suite", "smoke", "--families", "metrics", "--configs", "deterministic",
       "--formats", "openai_chat", "--device", "cpu", "--quiet", "--no-plots"]
OPTIONS = {"suite": "smoke", "families": ["metrics"], "seeds": None, "configs": ["deterministic"],
           "formats": ["openai_chat"], "device": "cpu"}


def test_the_fingerprint_follows_options_and_checkpoint(tmp_path):
    base = reuse.fingerprint(OPTIONS)
    assert base == reuse.fingerprint(dict(OPTIONS))
    assert base != reuse.fingerprint({**OPTIONS, "families": ["metrics", "documents"]})
    assert base != reuse.fingerprint({**OPTIONS, "device": "cuda"})
    ckpt = tmp_path / "ckpt"
    ckpt.mkdir()
    (ckpt / "model.safetensors").write_bytes(b"a")
    first = reuse.fingerprint(OPTIONS, str(ckpt))
    (ckpt / "model.safetensors").write_bytes(b"ab")
    assert first != reuse.fingerprint(OPTIONS, str(ckpt)) and first != base


def test_the_fingerprint_follows_the_package_files(tmp_path, monkeypatch):
    pkg = tmp_path / "headroom"
    pkg.mkdir()
    (pkg / "__init__.py").write_text("x = 1\n")
    monkeypatch.setattr(reuse, "PACKAGE_ROOT", pkg)
    first = reuse.fingerprint(OPTIONS)
    (pkg / "__init__.py").write_text("x = 2\n")
    assert reuse.fingerprint(OPTIONS) != first


def test_the_fingerprint_follows_headrooms_settings_but_not_secrets(monkeypatch):
    monkeypatch.delenv("HEADROOM_EVAL_HELDOUT", raising=False)
    monkeypatch.delenv("HEADROOM_EVAL_API_KEY", raising=False)
    base = reuse.fingerprint(OPTIONS)
    monkeypatch.setenv("HEADROOM_EVAL_API_KEY", "sk-one")
    assert reuse.fingerprint(OPTIONS) == base  # a key changes no result
    monkeypatch.setenv("HEADROOM_EVAL_HELDOUT", "1")  # adds the held-out sources to the suite
    assert reuse.fingerprint(OPTIONS) != base


def test_reusable_needs_the_same_fingerprint_and_drops_a_reader_section(tmp_path):
    (tmp_path / "results.json").write_text(json.dumps({"meta": {"fingerprint": "abc"}, "configs": [], "llm": {}}))
    assert reuse.reusable(tmp_path, "abd") is None
    assert reuse.reusable(tmp_path / "missing", "abc") is None
    got = reuse.reusable(tmp_path, "abc")
    assert got == {"meta": {"fingerprint": "abc"}, "configs": []}
    (tmp_path / "results.json").write_text("{not json")
    assert reuse.reusable(tmp_path, "abc") is None


def test_a_second_identical_run_reuses_and_fresh_recomputes(tmp_path, capsys):
    out = tmp_path / "res"
    assert main([*RUN, "--out", str(out)]) == 0
    first = json.loads((out / "results.json").read_text())
    assert "reused" not in capsys.readouterr().err
    assert main([*RUN, "--out", str(out)]) == 0
    assert "compression results reused" in capsys.readouterr().err
    assert json.loads((out / "results.json").read_text()) == first
    assert main([*RUN, "--out", str(out), "--fresh"]) == 0
    assert "reused" not in capsys.readouterr().err
    assert json.loads((out / "results.json").read_text())["meta"]["fingerprint"] == first["meta"]["fingerprint"]
    # Other options: computed afresh, not reused.
    assert main([*RUN[:5], "metrics,documents", *RUN[6:], "--out", str(out)]) == 0
    assert "reused" not in capsys.readouterr().err
