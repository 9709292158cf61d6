"""compress() / retrieve() front door, config validation, tokens, and the compress CLI."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from pydantic import ValidationError

import headroom
from headroom import HeadroomConfig, compress, retrieve
from headroom.cli import main
from headroom.token_accounting import model_counter
from headroom.tokens import TokenCounter, count_tokens, encoding_name_for

BIG_LOG = "\n".join(
    [f"2026-11-21 10:{i // 60:02d}:{i % 60:02d} INFO api: request {i} ok in {10 + i % 9}ms" for i in range(600)]
    + ["2026-11-21 10:10:00 ERROR api: request 9999 failed: database is locked"]
)


def chat_messages():
    return [
        {"role": "user", "content": "Why did request 9999 fail?"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "read_log", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": BIG_LOG},
    ]


def test_compress_openai_messages_result_fields():
    r = compress(chat_messages(), model="gpt-4o")
    assert isinstance(r.messages, list) and len(r.messages) == 3
    assert r.tokens_before > r.tokens_after > 0
    assert r.tokens_saved == r.tokens_before - r.tokens_after
    assert 0 < r.compression_ratio < 1
    assert r.transforms_applied and r.decisions
    out = r.messages[2]["content"]
    assert "database is locked" in out  # the error survives
    [h] = r.ccr_hashes
    assert retrieve(h).content == BIG_LOG


def test_compress_anthropic_messages_with_system():
    msgs = [
        {"role": "user", "content": "Why did request 9999 fail?"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "read_log", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": BIG_LOG}]},
    ]
    r = compress(msgs, model="claude-sonnet-4-5", system="Be brief.")
    assert r.format == "anthropic"
    assert r.body["system"] == "Be brief."
    assert r.tokens_after < r.tokens_before


def test_compress_accepts_whole_bodies_without_mutating():
    body = {"model": "gpt-4.1", "input": [
        {"role": "user", "content": "why?"},
        {"type": "function_call", "call_id": "f", "name": "read_log", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "f", "output": BIG_LOG}]}
    snapshot = json.dumps(body)
    r = compress(body)
    assert r.format == "openai_responses" and r.messages is r.body["input"]
    assert json.dumps(body) == snapshot


def test_compress_rejects_bad_input():
    with pytest.raises(TypeError, match="list of messages or a request body"):
        compress("hello")  # type: ignore[arg-type]
    with pytest.raises(ValueError):
        compress({"nothing": 1})


@pytest.mark.parametrize("kwargs,field", [
    ({"ccr": {"store_ttl_seconds": 0}}, "store_ttl_seconds"),
    ({"ccr": {"backend": "postgres"}}, "backend"),
    ({"router": {"min_savings": 2}}, "min_savings"),
    ({"smart_crusher": {"max_items_after_crush": 0}}, "max_items_after_crush"),
    ({"unknown_section": {}}, "unknown_section"),
    ({"ccr": {"enabeld": True}}, "enabeld"),
])
def test_invalid_config_names_the_field(kwargs, field):
    with pytest.raises(ValidationError) as exc:
        HeadroomConfig(**kwargs)
    assert field in str(exc.value)


def test_config_fingerprint_changes_with_values():
    assert HeadroomConfig().fingerprint() == HeadroomConfig().fingerprint()
    assert HeadroomConfig().fingerprint() != HeadroomConfig(router={"min_tokens": 10}).fingerprint()


def test_tokens_offline_and_cached(tmp_path, monkeypatch):
    assert encoding_name_for("gpt-4o") == "o200k_base" and encoding_name_for("gpt-4") == "cl100k_base"
    assert count_tokens("hello world", "gpt-4o") == 2
    c = model_counter("claude-sonnet-4-5")
    text = "def f(x):\n    return x * 2\n" * 20
    n = c.count(text)
    assert n == c.count(text) and n > TokenCounter("gpt-4").count(text)  # Claude estimate is cl100k * 1.1


def test_cli_compress_file_and_stdin(tmp_path, capsys):
    f = tmp_path / "body.json"
    f.write_text(json.dumps({"model": "gpt-4o", "messages": chat_messages()}))
    out = tmp_path / "out.json"
    assert main(["compress", str(f), "--json", "-o", str(out)]) == 0
    summary = json.loads(capsys.readouterr().out)
    assert summary["tokens_saved"] > 0 and summary["ccr_hashes"]
    assert json.loads(out.read_text())["messages"][2]["content"] != BIG_LOG
    proc = subprocess.run([sys.executable, "-m", "headroom", "compress", "-"], input=json.dumps(chat_messages()),
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and "tokens:" in proc.stdout and "saved" in proc.stdout


def test_cli_compress_bad_json(tmp_path, capsys):
    # Not a body, so a tool output (npm's JS object notation, a Python repr), and the table says so;
    # what looks like a request body but does not parse is an error (issue 29).
    f = tmp_path / "bad.json"
    f.write_text("{not json")
    assert main(["compress", str(f)]) == 0
    assert "starts like JSON but does not parse" in capsys.readouterr().out
    f.write_text('{"model": "gpt-4o", "messages": [')
    assert main(["compress", str(f)]) == 2
    assert "looks like a request body but is not valid JSON" in capsys.readouterr().err


def test_cli_bundled_example_runs(capsys):
    assert main(["compress", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["tokens_saved"] > 0


def test_public_surface():
    for name in headroom.__all__:
        assert hasattr(headroom, name), name


def test_fingerprint_is_remembered_per_config_object_only():
    from headroom.config import HeadroomConfig

    a = HeadroomConfig()
    b = HeadroomConfig(router={"min_tokens": 10})
    assert a.fingerprint() == a.fingerprint() == HeadroomConfig().fingerprint()
    assert b.fingerprint() != a.fingerprint()
    c = a.model_copy(update={"frozen_prefix_messages": 3})  # another object, other values
    assert c.fingerprint() != a.fingerprint() and a.fingerprint() == HeadroomConfig().fingerprint()
