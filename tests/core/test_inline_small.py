"""Small outputs are compressed on the caller's thread by the shipped compressors; a
caller's own compressor keeps its thread and deadline whatever the size."""

from __future__ import annotations

import threading

from headroom import HeadroomConfig, Pipeline
from headroom.ccr.store import CompressionStore
from headroom.compressors.detect import ContentType
from headroom.transforms import router
from headroom.transforms.router import INLINE_CHARS, ContentRouter
from tests.proxy.conftest import HeadLines


def _body(text: str) -> dict:
    return {"model": "gpt-4o", "messages": [
        {"role": "user", "content": "what failed?"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "sh", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": text}]}


def _log(n: int) -> str:
    return "\n".join(f"2026-11-29T03:{i // 60 % 60:02d}:{i % 60:02d}Z INFO worker {i % 7} finished job {i}"
                     for i in range(n)) + "\n2026-11-29T04:00:00Z ERROR worker 3 lost its lease"


def _handed_over(monkeypatch) -> list[int]:
    calls: list[int] = []
    real = router.start_with_deadline

    def spy(fn, arg, timeout_ms):
        calls.append(1)
        return real(fn, arg, timeout_ms)

    monkeypatch.setattr(router, "start_with_deadline", spy)
    return calls


def test_a_small_output_is_compressed_without_a_hand_over(monkeypatch):
    text = _log(70)
    assert len(text) <= INLINE_CHARS
    calls = _handed_over(monkeypatch)
    result = Pipeline(HeadroomConfig(), store=CompressionStore()).compress_body(_body(text))
    assert [d.action for d in result.decisions if d.transform == "content_router"] == ["compressed"]
    assert "lost its lease" in result.body["messages"][2]["content"]
    assert calls == []


def test_a_large_output_still_gets_its_own_thread(monkeypatch):
    calls = _handed_over(monkeypatch)
    text = _log(400)
    assert len(text) > INLINE_CHARS
    Pipeline(HeadroomConfig(), store=CompressionStore()).compress_body(_body(text))
    assert calls == [1]


def test_a_callers_own_compressor_keeps_its_thread(monkeypatch):
    seen: list[int] = []

    class Recording(HeadLines):
        def compress(self, inp):
            seen.append(threading.get_ident())
            return super().compress(inp)

    pipeline = Pipeline(HeadroomConfig(), store=CompressionStore(),
                        transforms=[ContentRouter(compressors={ct: Recording() for ct in ContentType})])
    pipeline.compress_body(_body(_log(70)))
    assert seen and seen[0] != threading.get_ident()
