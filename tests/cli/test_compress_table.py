"""`headroom compress`'s table: 80 columns, every decision that matters, honest numbers."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from headroom.cli import main
from headroom.cli.compress_input import read_text
from headroom.cli.compress_table import WIDTH, matters, outcome, render
from headroom.transforms.base import Decision

from .helpers import headroom

OLD_JSON_KEYS = {"source", "format", "model", "tokens_before", "tokens_after", "tokens_saved", "compression_ratio",
                 "transforms_applied", "ccr_hashes", "duration_ms", "decisions"}


def test_bundled_example_fits_80_columns_and_shows_each_block(capsys):
    assert main(["compress"]) == 0
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert max(map(len, lines)) <= WIDTH
    start = next(i for i, line in enumerate(lines) if line.startswith("where "))
    rows = lines[start + 1: lines.index("", start)]
    assert [r.split()[0:2] for r in rows] == [["system", "cache"], ["msg", "3"], ["msg", "4"]]
    assert "get_metrics (json_array)" in out and "search_logs (log)" in out
    # The cache aligner's trailer costs tokens: said as a cost, never as a negative saving.
    assert "+17 tok" in rows[0] and rows[0].rstrip().endswith("-") and "%" not in rows[0]
    assert "routine decision(s) hidden" in out and "fits gpt-4o's budget" in out


def test_verbose_gives_reasons_and_the_routine_rows(capsys):
    assert main(["compress", "-v"]) == 0
    out = capsys.readouterr().out
    assert max(map(len, out.splitlines())) <= WIDTH
    assert "moved 2 dynamic values out of the system prompt prefix" in out
    assert "within budget" in out and "retrieve: hash=" in out and "strategy: smart_crusher:" in out


def test_json_output_keeps_its_keys(capsys):
    assert main(["compress", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert OLD_JSON_KEYS <= set(data) and set(data) - OLD_JSON_KEYS == {"input"}
    assert data["input"] == "request body"


def test_still_over_the_window_warns_and_exits_3(tmp_path):
    # User turns are never compressed: three of them over gpt-4o's window cannot fit.
    words = " ".join(f"w{i}" for i in range(60_000))
    body = {"model": "gpt-4o", "messages": [{"role": "user", "content": words}, {"role": "assistant", "content": "ok"},
                                            {"role": "user", "content": words}]}
    (tmp_path / "big.json").write_text(json.dumps(body))
    r = headroom("compress", "big.json", cwd=tmp_path)
    assert r.rc == 3
    assert "OVER BUDGET" in r.out and "still over budget" in r.out  # the row and its reason, without -v
    assert r.err.startswith("headroom compress: warning:") and "do not fit gpt-4o's budget" in r.err
    assert len(r.err.strip().splitlines()) == 1
    assert headroom("compress", "big.json", "--no-fail-over-window", cwd=tmp_path).rc == 0


def test_unreadable_input_is_one_line(monkeypatch, tmp_path, capsys):
    f = tmp_path / "secret.log"
    f.write_text("x")

    def denied(self, *a, **k):
        raise PermissionError(13, "Permission denied", str(self))

    monkeypatch.setattr(Path, "read_text", denied)
    with pytest.raises(ValueError, match="permission denied"):
        read_text(str(f), f)


def test_a_tool_output_written_with_o_is_the_compressed_text(tmp_path, capsys):
    lines = [f"2026-11-21 14:{i // 60:02d}:{i % 60:02d} INFO worker: job {i} done in {i % 17} ms" for i in range(600)]
    lines[321] = "2026-11-21 14:05:21 ERROR worker: job 321 failed: disk full on /var/lib/data"
    (tmp_path / "w.log").write_text("\n".join(lines))
    assert main(["compress", str(tmp_path / "w.log"), "-o", str(tmp_path / "small.log")]) == 0
    small = (tmp_path / "small.log").read_text()
    assert "job 321 failed: disk full" in small and len(small) < len("\n".join(lines)) / 3
    assert "hash=" in small  # the rest stays retrievable


def _decision(d: dict) -> Decision:
    return Decision(**d)


decisions = st.builds(
    dict,
    transform=st.sampled_from(["content_router", "cache_aligner", "rolling_window", "tool_args", "images"]),
    action=st.sampled_from(["compressed", "kept", "skipped", "dropped", "moved", "shrunk", "expanded"]),
    reason=st.one_of(st.text(min_size=1, max_size=300), st.sampled_from(
        ["error: RuntimeError: boom", "still over budget: 9 tokens are protected", "below 200 tokens",
         "within budget (1 <= 2 tokens)", "timed out after 2000 ms", "the request's compression budget is spent"])),
    message_index=st.one_of(st.none(), st.integers(-1, 100_000)),
    block_index=st.one_of(st.none(), st.integers(0, 50)),
    tool_name=st.one_of(st.none(), st.text(min_size=1, max_size=80)),
    content_type=st.one_of(st.none(), st.sampled_from(["json_array", "log", "a_very_long_content_type_name"])),
    strategy=st.one_of(st.none(), st.text(min_size=1, max_size=80)),
    tokens_before=st.integers(0, 50_000_000),
    tokens_after=st.integers(0, 50_000_000),
    ccr_hash=st.one_of(st.none(), st.just("0123456789abcdef01234567")),
)


@settings(max_examples=150, deadline=None)
@given(st.lists(decisions, max_size=12), st.booleans())
def test_every_line_fits_and_every_decision_that_matters_has_a_row(ds, verbose):
    ds = [_decision(d) for d in ds]
    for d in ds:  # one-line fields, as transforms write them
        d.tool_name = d.tool_name and " ".join(d.tool_name.split()) or None
        d.strategy = d.strategy and " ".join(d.strategy.split()) or None
    result = SimpleNamespace(decisions=ds)
    summary = {"source": "x" * 200, "input": "request body", "format": "openai_chat", "model": "gpt-4o",
               "tokens_before": 10**9, "tokens_after": 10**8, "tokens_saved": 9 * 10**8, "compression_ratio": 0.9,
               "duration_ms": 1.0}
    lines = render(result, summary, verbose=verbose, min_tokens=200, budget=100)
    assert max(map(len, lines)) <= WIDTH
    header = lines.index(next(line for line in lines if line.startswith("where ")))
    rows = [line for line in lines[header + 1:] if line and not line.startswith((" ", "tokens:", "("))]
    expected = [d for d in ds if verbose or matters(d, 200)]
    assert len(rows) >= len(expected)  # one row each (a blank where/kind still starts a row)
    for d in ds:
        if outcome(d) == "FAILED":
            assert matters(d, 200)
        if d.tokens_after > d.tokens_before and d in expected:
            assert any(f"+{d.tokens_after - d.tokens_before:,} tok"[:10] in line or "…" in line for line in rows)


def test_failures_are_named():
    for reason in ("timed out after 2000 ms", "the request's compression budget is spent", "error: ValueError: x",
                   "compressor unavailable: no model"):
        d = Decision("content_router", "kept", reason, message_index=3, tokens_before=5000, tokens_after=5000)
        assert outcome(d) == "FAILED" and matters(d, 200), reason
    assert outcome(Decision("content_router", "kept", "saved less than 10%")) == "kept"
