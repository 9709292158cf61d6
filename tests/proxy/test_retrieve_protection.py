"""Issue item 5: a headroom_retrieve output is never compressed again, on any API.

Each request holds a retrieve call with a ~60 KB output and an identical-content output
of another tool (the control). The retrieve output must reach the upstream byte for byte
while the control is compressed, with plain and MCP-namespaced tool names, with the
deterministic test pipeline and with the real default pipeline.
"""

from __future__ import annotations

import json

import httpx
import pytest
from tests.proxy.conftest import make_pipeline

from headroom.ccr.markers import find_hashes
from headroom.ccr.store import CompressionStore
from headroom.config import HeadroomConfig
from headroom.pipeline import Pipeline

ORIGINAL = "\n".join(
    f"2026-11-22T03:{i // 60 % 60:02d}:{i % 60:02d} {'ERROR' if i % 97 == 0 else 'INFO'} svc-{i % 5} "
    f"handled request {i} path=/api/items/{i * 7} status={500 if i % 97 == 0 else 200} in {i % 31} ms"
    for i in range(700)
)
HASH = "0123456789abcdef01234567"


def chat_body(name: str, stream: bool) -> dict:
    return {"model": "gpt-4o", "stream": stream, "messages": [
        {"role": "user", "content": "what failed?"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "r1", "type": "function", "function": {"name": name, "arguments": json.dumps({"hash": HASH})}}]},
        {"role": "tool", "tool_call_id": "r1", "content": ORIGINAL},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c2", "type": "function", "function": {"name": "read_logs", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c2", "content": ORIGINAL},
    ]}


def responses_body(name: str, stream: bool) -> dict:
    return {"model": "gpt-4o", "stream": stream, "input": [
        {"role": "user", "content": "what failed?"},
        {"type": "function_call", "call_id": "r1", "name": name, "arguments": json.dumps({"hash": HASH})},
        {"type": "function_call_output", "call_id": "r1", "output": ORIGINAL},
        {"type": "function_call", "call_id": "c2", "name": "read_logs", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c2", "output": ORIGINAL},
    ]}


def anthropic_body(name: str, stream: bool) -> dict:
    return {"model": "claude-sonnet-4-5", "max_tokens": 100, "stream": stream, "messages": [
        {"role": "user", "content": "what failed?"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "r1", "name": name, "input": {"hash": HASH}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "r1", "content": ORIGINAL}]},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "c2", "name": "read_logs", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c2", "content": ORIGINAL}]},
    ]}


def outputs(path: str, body: dict) -> dict[str, str]:
    if path == "/v1/chat/completions":
        return {m["tool_call_id"]: m["content"] for m in body["messages"] if m.get("role") == "tool"}
    if path == "/v1/responses":
        return {i["call_id"]: i["output"] for i in body["input"] if i.get("type") == "function_call_output"}
    return {p["tool_use_id"]: p["content"] for m in body["messages"] if isinstance(m["content"], list)
            for p in m["content"] if p.get("type") == "tool_result"}


CASES = {"/v1/chat/completions": chat_body, "/v1/responses": responses_body, "/v1/messages": anthropic_body}


@pytest.fixture(scope="module", params=["head_lines", "default_pipeline"])
def pipeline_kind(request) -> str:
    return request.param


def build_pipeline(kind: str) -> Pipeline:
    if kind == "head_lines":
        return make_pipeline()
    return Pipeline(HeadroomConfig(), store=CompressionStore())


def test_original_is_about_60_kb():
    assert 55_000 < len(ORIGINAL.encode()) < 70_000


@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
@pytest.mark.parametrize("name", ["headroom_retrieve", "myserver__headroom_retrieve"])
@pytest.mark.parametrize("path", list(CASES))
def test_retrieve_output_reaches_upstream_byte_for_byte(path, name, stream, pipeline_kind, fake, start_proxy):
    url, _ = start_proxy(pipeline=build_pipeline(pipeline_kind))
    headers = {"authorization": "Bearer sk-x", "anthropic-version": "2023-06-01"}
    r = httpx.post(f"{url}{path}", json=CASES[path](name, stream), headers=headers, timeout=30)
    assert r.status_code == 200
    [got] = fake.rec.requests
    sent = outputs(path, got["json"])
    assert sent["r1"] == ORIGINAL  # the retrieve output, untouched
    assert ORIGINAL.encode() in got["raw"] or json.dumps(ORIGINAL)[1:-1].encode() in got["raw"]
    assert sent["c2"] != ORIGINAL and len(sent["c2"]) < len(ORIGINAL) / 2  # the control, compressed
    assert find_hashes(sent["c2"])
    assert int(r.headers["x-headroom-tokens-saved"]) > 0
