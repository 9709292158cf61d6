"""One way for a transform to keep an original: ``TransformContext.keep_original`` tags the
request's tenant; no stage writes to the store by itself."""

from __future__ import annotations

import ast
import json
from pathlib import Path

import pytest

from headroom.ccr.scope import TENANT_META_KEY
from headroom.ccr.store import CompressionStore
from headroom.config import HeadroomConfig
from headroom.pipeline import Pipeline
from headroom.tokens import TokenCounter
from headroom.transforms.base import TransformContext

ROOT = Path(__file__).resolve().parents[2] / "headroom"


def _ctx(store, tenant=None, **cfg):
    return TransformContext(config=HeadroomConfig(**cfg), counter=TokenCounter(), store=store, tenant=tenant)


@pytest.mark.parametrize("tenant", [None, "t-1"])
def test_keep_original_records_the_tenant_and_the_callers_meta(tenant):
    store = CompressionStore()
    ctx = _ctx(store, tenant)
    h = ctx.keep_original("the original text", compressed="short", tool_name="grep", meta={"kind": "test"})
    entry = store.get(h)
    assert entry.original == "the original text" and entry.tool_name == "grep"
    assert entry.meta.get("kind") == "test"
    assert entry.meta.get(TENANT_META_KEY) == tenant
    again = ctx.keep_original("the original text", refresh=True, meta={"kind": "test"})
    assert again == h and store.get(h).meta.get(TENANT_META_KEY) == tenant


def test_without_a_store_nothing_is_kept():
    assert not _ctx(None).keeps_originals
    assert not _ctx(CompressionStore(), ccr={"enabled": False}).keeps_originals
    with pytest.raises(RuntimeError):
        _ctx(None).keep_original("x")


def test_every_original_a_pipeline_keeps_carries_the_tenant():
    rows = [{"id": i, "status": "ok" if i % 37 else "failed", "ms": 10 + i % 7, "host": f"h{i % 4}"}
            for i in range(400)]
    body = {"model": "gpt-4o", "messages": [
        {"role": "user", "content": "which rows failed?"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "rows", "arguments": json.dumps(
                {"note": "y" * 3000})}}]},
        {"role": "tool", "tool_call_id": "c1", "content": json.dumps(rows)},
        {"role": "user", "content": "and which hosts?"}]}
    pipe = Pipeline(HeadroomConfig(), store=CompressionStore())
    result = pipe.compress_body(body, "openai_chat", tenant="tenant-a")
    assert result.ccr_hashes, [d.to_dict() for d in result.decisions]
    for h in result.ccr_hashes:
        assert pipe.store.get(h).meta[TENANT_META_KEY] == "tenant-a"
    # A memo hit refreshes the entries' TTL without rewriting them (their first keeper
    # stays their owner); an entry gone meanwhile is kept again under the new tenant.
    gone = result.ccr_hashes[0]
    pipe.store.backend.delete(gone)
    again = pipe.compress_body(body, "openai_chat", tenant="tenant-b")
    assert set(again.ccr_hashes) == set(result.ccr_hashes)
    assert {h: pipe.store.get(h).meta[TENANT_META_KEY] for h in again.ccr_hashes} == \
        {h: "tenant-b" if h == gone else "tenant-a" for h in result.ccr_hashes}


def test_no_stage_writes_to_the_store_itself():
    offences = []
    for folder in ("transforms", "image"):
        for path in (ROOT / folder).rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                fn = node.func if isinstance(node, ast.Call) else None
                if isinstance(fn, ast.Attribute) and fn.attr in ("store", "refresh") \
                        and isinstance(fn.value, ast.Attribute) and fn.value.attr == "store":
                    offences.append(f"{path.relative_to(ROOT)}:{node.lineno}")
    assert offences == []
