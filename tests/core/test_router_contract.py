"""ContentRouter guarantees that hold whatever the compressor does (fake compressors)."""

from __future__ import annotations

import time

import pytest

from headroom.config import HeadroomConfig, RouterConfig
from headroom.compressors.base import Compressed
from headroom.compressors.detect import ContentType
from headroom.transforms.router import ContentRouter

BIG = "\n".join(f"line {i} of some tool output with words" for i in range(400))


class Quarter:
    name = "quarter"

    def __init__(self, lossy=True):
        self.lossy = lossy
        self.calls = 0

    def compress(self, inp):
        self.calls += 1
        lines = inp.text.splitlines()
        return Compressed("\n".join(lines[: len(lines) // 4]), len(lines), len(lines) // 4, "q", lossy=self.lossy)


class Boom:
    name = "boom"

    def compress(self, inp):
        raise RuntimeError("kaput")


class Slow:
    name = "slow"

    def compress(self, inp):
        time.sleep(0.5)
        return Compressed("x", 1, 1, "slow")


class Bigger:
    name = "bigger"

    def compress(self, inp):
        return Compressed(inp.text + inp.text, 1, 2, "bigger")


def body(tool_name="shell", text=BIG):
    return {"model": "gpt-4o", "messages": [
        {"role": "user", "content": "run it"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": tool_name, "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": text},
        {"role": "user", "content": "what happened?"}]}


def run(fresh_pipeline, compressor, config=None, b=None):
    p = fresh_pipeline(config, transforms=[ContentRouter({ct: compressor for ct in ContentType})])
    return p, p.compress_body(b or body())


def test_lossy_result_stored_with_marker(fresh_pipeline):
    p, r = run(fresh_pipeline, Quarter())
    out = r.body["messages"][2]["content"]
    [h] = r.ccr_hashes
    assert out.endswith(f"Retrieve more: hash={h}. Expires in 30m.]")
    assert out.startswith("line 0 ") and "[400 items compressed to 100." in out
    assert p.store.retrieve(h).content == BIG
    assert r.tokens_after < r.tokens_before


def test_lossless_result_has_no_marker(fresh_pipeline):
    _, r = run(fresh_pipeline, Quarter(lossy=False))
    assert "Retrieve more" not in r.body["messages"][2]["content"] and r.ccr_hashes == []


@pytest.mark.parametrize("comp,reason", [(Boom(), "error: RuntimeError: kaput"), (Bigger(), "saved too little")])
def test_never_worse(fresh_pipeline, comp, reason):
    _, r = run(fresh_pipeline, comp)
    assert r.body["messages"][2]["content"] == BIG
    [d] = [d for d in r.decisions if d.transform == "content_router"]
    assert d.action == "kept" and reason in d.reason


def test_timeout_passes_original_through(fresh_pipeline):
    cfg = HeadroomConfig(router=RouterConfig(timeout_ms=50))
    _, r = run(fresh_pipeline, Slow(), cfg)
    assert r.body["messages"][2]["content"] == BIG
    assert any("timed out after 50 ms" in d.reason for d in r.decisions)


def test_no_store_means_no_lossy_compression(fresh_pipeline):
    from headroom.pipeline import Pipeline

    p = Pipeline(HeadroomConfig(ccr={"enabled": False}), transforms=[ContentRouter({ct: Quarter() for ct in ContentType})])
    r = p.compress_body(body())
    assert r.body["messages"][2]["content"] == BIG
    assert any("lossy result discarded" in d.reason for d in r.decisions)


@pytest.mark.parametrize("name", ["headroom_retrieve", "my_mcp__headroom_retrieve"])
def test_retrieve_outputs_are_never_compressed(fresh_pipeline, name):
    comp = Quarter()
    _, r = run(fresh_pipeline, comp, b=body(tool_name=name))
    assert r.body["messages"][2]["content"] == BIG and comp.calls == 0
    assert any(d.reason == "headroom_retrieve output" for d in r.decisions)


def test_excluded_tools_glob(fresh_pipeline):
    cfg = HeadroomConfig(router=RouterConfig(exclude_tools=("secret_*",)))
    _, r = run(fresh_pipeline, Quarter(), cfg, b=body(tool_name="secret_reader"))
    assert r.body["messages"][2]["content"] == BIG
    assert any("excluded tool secret_reader" in d.reason for d in r.decisions)


def test_frozen_prefix_and_recent_messages(fresh_pipeline):
    _, r = run(fresh_pipeline, Quarter(), HeadroomConfig(frozen_prefix_messages=3))
    assert r.body["messages"][2]["content"] == BIG
    _, r = run(fresh_pipeline, Quarter(), HeadroomConfig(router=RouterConfig(protect_recent_messages=2)))
    assert r.body["messages"][2]["content"] == BIG


def test_small_outputs_skipped_with_reason(fresh_pipeline):
    _, r = run(fresh_pipeline, Quarter(), b=body(text="tiny"))
    [d] = [d for d in r.decisions if d.transform == "content_router"]
    assert d.action == "skipped" and "below 200 tokens" in d.reason


def test_memo_makes_history_byte_stable_across_questions(fresh_pipeline):
    comp = Quarter()
    p = fresh_pipeline(transforms=[ContentRouter({ct: comp for ct in ContentType})])
    b1 = body()
    r1 = p.compress_body(b1)
    b2 = body()
    b2["messages"][3]["content"] = "a completely different question about line 399"
    r2 = p.compress_body(b2)
    assert r1.body["messages"][2] == r2.body["messages"][2]
    assert comp.calls == 1
    assert any(d.reason == "memo hit" for d in r2.decisions)
