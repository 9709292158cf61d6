"""Counting a long text in two halves (tokens.seam / TokenCounter._in_halves) gives
exactly the count of the whole, for both encodings we ship."""

from __future__ import annotations

import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from headroom import tokens
from headroom.tokens import SPLIT_ABOVE_CHARS, TokenCounter, get_encoding, seam

ENCODINGS = ("o200k_base", "cl100k_base")
# Lines as tools print them: punctuation runs, indentation, slashes, digits, non-ASCII
# letters and marks, tabs and carriage returns, leading spaces and "/" (not seams).
_CHARS = st.sampled_from(list("abcXYZ019 ,.;:/\\-_{}[]\"'()\t\r!?<>=+*#@$%&|~`^") + ["é", "ß", "中", "ا", "\u0301",
                                                                                      "\u00a0", "\u2028", "😀"])
_LINES = st.lists(st.text(_CHARS, max_size=30), min_size=2, max_size=40)


def _count(enc, text: str) -> int:
    return len(get_encoding(enc).encode(text, disallowed_special=()))


@settings(max_examples=300, deadline=None)
@given(lines=_LINES, enc=st.sampled_from(ENCODINGS))
def test_every_seam_splits_the_count_exactly(lines, enc):
    text = "\n".join(lines)
    whole = _count(enc, text)
    for m in tokens._SEAM.finditer(text):
        at = m.start() + 1
        assert _count(enc, text[:at]) + _count(enc, text[at:]) == whole, (text[:at], text[at:])


@settings(max_examples=100, deadline=None)
@given(lines=_LINES)
def test_seam_is_after_a_newline_before_a_printable_character(lines):
    text = "\n".join(lines)
    at = seam(text)
    if at is None:
        mid, w = len(text) // 2, int(len(text) * tokens._SEAM_WINDOW)
        assert not re.search(r"\n[!-.0-~]", text[max(0, mid - w):mid + w + 2])
    else:
        assert text[at - 1] == "\n" and "!" <= text[at] <= "~" and text[at] != "/"


def test_no_seam_in_indented_or_single_line_text():
    assert seam('{"a": 1, "b": [1, 2, 3]}' * 100) is None
    assert seam("{\n" + "\n".join('    "k%d": %d,' % (i, i) for i in range(200)) + "\n}") is None


@pytest.mark.parametrize("enc_model", ["gpt-4o", "gpt-4", "claude-sonnet-4"])
def test_a_long_text_is_counted_in_halves_with_the_exact_count(enc_model, monkeypatch):
    counter = TokenCounter(enc_model)
    text = "\n".join(f"2024-03-0{i % 9 + 1} 12:{i % 60:02d}:00 INFO worker-{i % 7} handled /api/v1/items/{i} in {i % 97} ms"
                     for i in range(600))
    assert SPLIT_ABOVE_CHARS <= len(text) <= tokens.SAMPLE_ABOVE_CHARS
    submitted = []
    real = tokens._submit

    def submit(fn, half):
        submitted.append(len(half))
        return real(fn, half)

    monkeypatch.setattr(tokens, "_submit", submit)
    exact = round(_count(counter.encoding_name, text) * counter.factor)
    assert counter._raw(text) == exact
    assert len(submitted) == 1 and 0.25 * len(text) <= submitted[0] <= 0.75 * len(text)


def test_a_busy_counting_thread_means_counting_inline(monkeypatch):
    counter = TokenCounter("gpt-4o")
    text = "\n".join(f"row {i}, value {i * 7}" for i in range(2000))
    monkeypatch.setattr(tokens, "_COUNT_THREADS", 1)
    assert tokens._free.acquire(blocking=False)  # another request's half holds the thread
    try:
        assert tokens._submit(len, "x") is None
        assert counter._raw(text) == _count("o200k_base", text)
    finally:
        tokens._free.release()
