"""Regression tests for the bugs listed in issue 13 (each failed before its fix)."""

from __future__ import annotations

import re
import sys
from pathlib import Path

import tomllib
from packaging.requirements import Requirement

from headroom import HeadroomConfig, compress, retrieve
from headroom.cli import main
from headroom.formats import parse
from headroom.token_accounting import conversation_tokens, model_counter

ROOT = Path(__file__).resolve().parents[2]
BIG_LOG = "\n".join(
    [f"2026-11-21 10:{i // 60:02d}:{i % 60:02d} INFO api: request {i} ok in {10 + i % 9}ms from 10.0.{i % 7}.{i % 11}"
     for i in range(600)]
    + ["2026-11-21 10:10:00 ERROR api: request 9999 failed: database is locked"]
)


def anthropic_body(model: str = "claude-sonnet-4-5") -> dict:
    return {"model": model, "max_tokens": 512, "messages": [
        {"role": "user", "content": "Why did request 9999 fail?"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "read_log", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": BIG_LOG}]},
    ]}


def test_bug1_a_claude_body_is_counted_with_its_own_model():
    body = anthropic_body()
    r = compress(body)
    expected = conversation_tokens(parse(body, "anthropic"), model_counter("claude-sonnet-4-5"))
    assert r.tokens_before == expected
    assert expected != conversation_tokens(parse(body, "anthropic"), model_counter("gpt-4o"))
    # An explicit model still wins over the body's.
    assert compress(body, model="gpt-4o").tokens_before != expected


def test_bug2_a_callers_ccr_config_is_honoured(tmp_path):
    r = compress(anthropic_body(), config=HeadroomConfig(ccr={"store_ttl_seconds": 7200}))
    text = r.body["messages"][2]["content"][0]["content"]
    assert "Expires in 120m." in text, text[-300:]

    cfg = HeadroomConfig(ccr={"backend": "sqlite", "sqlite_path": str(tmp_path / "ccr.sqlite3")})
    r = compress(anthropic_body("claude-haiku-4-5"), config=cfg)
    [h] = r.ccr_hashes
    found = retrieve(h)
    assert found is not None and found.content == BIG_LOG
    assert retrieve(h, config=cfg).content == BIG_LOG


def test_bug3_one_broken_command_does_not_break_the_others(monkeypatch, tmp_path, capsys):
    # What Python 3.10 without tomli did to `headroom eval`: its import fails.
    monkeypatch.setitem(sys.modules, "headroom.cli.cmd_eval", None)
    src = tmp_path / "body.json"
    src.write_text('{"model": "gpt-4o", "messages": [{"role": "user", "content": "hi"}]}')
    assert main(["compress", str(src)]) == 0
    capsys.readouterr()
    assert main(["eval", "run"]) == 2
    assert "unavailable" in capsys.readouterr().err


def _minimum(requirement: str) -> str:
    spec = Requirement(requirement).specifier
    [floor] = [s.version for s in spec if s.operator == ">="]
    return floor


def test_bug7_pins_match_the_apis_we_use():
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["optional-dependencies"]["ml"]
    reqs = {Requirement(r).name: r for r in extras}
    # SiglipImageProcessorPil exists from transformers 5; GroupKFold(shuffle=...) from scikit-learn 1.6.
    assert int(_minimum(reqs["transformers"]).split(".")[0]) >= 5
    major, minor = (int(x) for x in _minimum(reqs["scikit-learn"]).split(".")[:2])
    assert (major, minor) >= (1, 6)


def test_one_context_window_table():
    from headroom.providers import context_window
    from headroom.transforms import context_units

    assert not hasattr(context_units, "CONTEXT_LIMITS")
    assert context_window("gemini-1.5-pro-002") == 2_097_152
    assert context_window("o1-mini") == 128_000
    assert context_window("claude-something-new") == 200_000


def test_mode_strings_are_spelled_once():
    # A mode name as a string literal (a dict key, like Pillow's "optimize" flag, is not one).
    pattern = re.compile(r"""["'](optimize|audit|simulate|passthrough)["'](?!\s*:)""")
    offenders = [str(p.relative_to(ROOT)) for p in (ROOT / "headroom").rglob("*.py")
                 if p.name != "modes.py" and "eval/scenarios" not in p.as_posix()
                 and "eval/corpus/captures" not in p.as_posix()  # names of the captured programs' things
                 and pattern.search(p.read_text(encoding="utf-8").split('"""', 2)[-1])]
    assert offenders == []
