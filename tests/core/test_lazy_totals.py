"""Issue 34: exact token counting is off the hot path. The pipeline's totals are counted
when first read (and in the proxy on a worker while the upstream answers); the router
decides on quick_count's estimate above QUICK_EXACT_CHARS. What must hold: the totals
read are the exact counts of the request as it came and as it goes out."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from headroom.ccr.backends import Entry, SQLiteBackend
from headroom.ccr.store import CompressionStore
from headroom.formats import parse
from headroom.pipeline import Pipeline, PipelineResult
from headroom.token_accounting import conversation_tokens
from headroom.tokens import (
    QUICK_EXACT_CHARS,
    SAMPLE_ABOVE_CHARS,
    LazyTokens,
    TokenCounter,
    TokenField,
    counter_for,
)
from headroom.transforms.router import INLINE_CHARS, SURELY_ABOVE_MINIMUM


def body(text: str) -> dict:
    return {"model": "gpt-4o", "messages": [
        {"role": "user", "content": "what failed?"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "shell", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": text}]}


def log_text(lines: int, seed: int = 0) -> str:
    return "\n".join(f"2024-05-01 12:{i // 60 % 60:02d}:{i % 60:02d} INFO worker-{(i + seed) % 5} "
                     f"finished job {i * 7 + seed} in {(i * 13 + seed) % 997} ms" for i in range(lines))


def test_the_call_does_not_count_a_long_output_exactly(monkeypatch):
    text = log_text(800, seed=11)
    assert 2 * QUICK_EXACT_CHARS < len(text) <= SAMPLE_ABOVE_CHARS  # counted exactly when read
    encoded: list[int] = []
    raw = TokenCounter._bpe

    def bpe(self, t):
        encoded.append(len(t))
        return raw(self, t)

    monkeypatch.setattr(TokenCounter, "_bpe", bpe)
    counter_for("gpt-4o")._cache.clear()
    r = Pipeline(store=CompressionStore()).compress_body(body(text))
    assert len(text) not in encoded  # nothing encoded the whole output during the call
    before = r.tokens_before
    assert len(text) in encoded  # the exact total, on first read
    n = len(encoded)
    assert r.tokens_saved == r.tokens_before - r.tokens_after and len(encoded) == n  # counted once
    assert before == conversation_tokens(parse(body(text), "openai_chat"), TokenCounter("gpt-4o"))


def test_totals_are_exact_for_what_went_out():
    text = log_text(3000, seed=3)
    r = Pipeline(store=CompressionStore()).compress_body(body(text))
    counter = counter_for("gpt-4o")
    assert r.tokens_after == conversation_tokens(parse(r.body, "openai_chat"), counter)
    assert r.tokens_after < r.tokens_before


def test_a_result_built_from_numbers_keeps_them():
    r = PipelineResult(None, {}, "openai_chat", 1500, 520, [], 1.0)  # type: ignore[arg-type]
    assert (r.tokens_before, r.tokens_after, r.tokens_saved) == (1500, 520, 980)


def test_count_totals_is_idempotent():
    calls = []
    r = PipelineResult(None, {}, "openai_chat", lambda: calls.append(1) or (10, 4))  # type: ignore[arg-type]
    assert calls == []
    r.count_totals()
    r.count_totals()
    assert (r.tokens_before, r.tokens_after) == (10, 4) and calls == [1]


@settings(max_examples=15, deadline=None)
@given(lines=st.integers(200, 1500), seed=st.integers(0, 50))
def test_lazy_totals_equal_counting_everything_first(lines, seed):
    text = log_text(lines, seed)
    expected = conversation_tokens(parse(body(text), "openai_chat"), counter_for("gpt-4o"))
    counter_for("gpt-4o")._cache.clear()
    r = Pipeline(store=CompressionStore()).compress_body(body(text))
    assert r.tokens_before == expected
    assert r.tokens_after == conversation_tokens(parse(r.body, "openai_chat"), counter_for("gpt-4o"))


def test_an_output_keeping_nearly_every_character_is_discarded_uncounted(fresh_pipeline, monkeypatch):
    from headroom.compressors.base import Compressed
    from headroom.compressors.detect import ContentType
    from headroom.transforms.router import ContentRouter

    class DropsOneLine:
        name = "drops_one_line"

        def compress(self, inp):
            lines = inp.text.split("\n")
            return Compressed("\n".join(lines[1:]), len(lines), len(lines) - 1, "one_line", lossy=True)

    text = log_text(300, seed=5)
    counted: list[int] = []
    real = TokenCounter.quick_count
    monkeypatch.setattr(TokenCounter, "quick_count", lambda self, t: counted.append(len(t)) or real(self, t))
    p = fresh_pipeline(transforms=[ContentRouter({ct: DropsOneLine() for ct in ContentType})])
    r = p.compress_body(body(text))
    [d] = [d for d in r.decisions if d.transform == "content_router"]
    assert d.action == "kept" and "saved too little" in d.reason and "not counted" in d.reason
    assert r.body["messages"][2]["content"] == text
    assert not any(n < len(text) and n > 0.9 * len(text) for n in counted)  # the output was never counted


# A small tool output (compressed on the caller's thread) is not counted inside the call
# either: the router decides on bounds (its length against router.min_tokens, characters
# saved), and the exact counts of the output and of its compressed form are taken the first
# time something reads them: a decision, the request's totals, a store entry.

@pytest.fixture
def encoded(monkeypatch) -> list[str]:
    """Every text the BPE encodes from now on."""
    seen: list[str] = []
    raw = TokenCounter._bpe

    def bpe(self, t):
        seen.append(t)
        return raw(self, t)

    monkeypatch.setattr(TokenCounter, "_bpe", bpe)
    counter_for("gpt-4o")._cache.clear()
    return seen


def test_a_small_output_is_counted_only_when_read(encoded):
    text = log_text(60, seed=4)
    assert SURELY_ABOVE_MINIMUM * 200 <= len(text) <= INLINE_CHARS  # the inline path, surely above the minimum
    store = CompressionStore()
    r = Pipeline(store=store).compress_body(body(text))
    (d,) = [d for d in r.decisions if d.transform == "content_router"]
    assert d.action == "compressed"
    out = r.body["messages"][2]["content"]
    assert text not in encoded and out not in encoded  # neither counted during the call
    counter = counter_for("gpt-4o")
    assert d.tokens_before == len(counter.encoding.encode(text, disallowed_special=()))
    assert d.tokens_after == len(counter.encoding.encode(out, disallowed_special=()))
    assert encoded.count(text) == 1 and encoded.count(out) == 1
    # The store entry and the totals reuse those counts: nothing is encoded twice.
    entry = store.get(d.ccr_hash)
    assert (entry.original_tokens, entry.compressed_tokens) == (d.tokens_before, d.tokens_after)
    assert r.tokens_saved > 0 and encoded.count(text) == 1 and encoded.count(out) == 1


def test_a_text_near_the_minimum_is_still_counted_and_skipped(encoded):
    text = "word " * 150  # 750 characters, ~150 tokens: below router.min_tokens (200)
    r = Pipeline(store=CompressionStore()).compress_body(body(text))
    (d,) = [d for d in r.decisions if d.transform == "content_router"]
    assert d.action == "skipped" and "below" in d.reason and d.tokens_before < 200


def test_a_durable_store_writes_exact_numbers(tmp_path):
    backend = SQLiteBackend(str(tmp_path / "ccr.sqlite3"))
    counter = counter_for("gpt-4o")
    text = log_text(40)
    entry = Entry(hash="h1", original=text, created_at=0.0, expires_at=1e12, last_access=0.0,
                  original_tokens=LazyTokens(counter, text), compressed_tokens=7)  # type: ignore[arg-type]
    backend.put(entry)
    got = backend.get("h1")
    assert got is not None and got.original_tokens == counter.count(text) and got.compressed_tokens == 7
    backend.close()


def test_a_token_field_counts_once_and_keeps_plain_numbers():
    counter = counter_for("gpt-4o")
    lazy = LazyTokens(counter, "hello world " * 40)
    entry = Entry(hash="h", original="x", created_at=0, expires_at=1, last_access=0, original_tokens=lazy)  # type: ignore[arg-type]
    assert TokenField.raw(entry, "original_tokens") is lazy  # not counted by being stored
    assert entry.original_tokens == counter.count("hello world " * 40)
    assert type(TokenField.raw(entry, "original_tokens")) is int  # the first read replaced it
    assert Entry(hash="h", original="x", created_at=0, expires_at=1, last_access=0).original_tokens == 0


@settings(max_examples=60, deadline=None)
@given(st.text(min_size=1, max_size=400))
def test_at_most_bounds_the_count(text):
    counter = counter_for("gpt-4o")
    lazy = LazyTokens(counter, text)
    bound = lazy.at_most()
    assert int(lazy) <= bound and lazy.at_most() == int(lazy)
