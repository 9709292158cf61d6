"""Malformed upstream answers, drawn by hypothesis, for all three APIs, streaming and not.

Whatever the upstream answers, the client gets the upstream's own status, or a JSON error
(a 502 that names the cause), or a stream that ends (with an error event when it broke):
never a bare 500 and never a hang. Every answer goes through the CCR loop's reading (the
request carries a marker, so the proxy injected ``headroom_retrieve`` and reads each turn).
The app runs in process (httpx's ASGI transport) against a scripted transport, so
thousands of answers take seconds.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from headroom.ccr.markers import format_marker
from headroom.proxy import ProxyConfig, create_app
from tests.proxy.conftest import make_pipeline
from tests.proxy.malformed_upstream import APIS, CHAT, MESSAGES, RESPONSES, Answer, answers, turn

ORIGINAL = "\n".join(f"row {i}: status=ok latency={i * 7 % 90}ms" for i in range(40))
EXAMPLES = 300  # per API and streaming flag: 600 drawn requests, 600+ answers per API


class Scripted:
    """The upstream: answers each request with the next scripted answer, then a plain one."""

    def __init__(self) -> None:
        self.queue: list[Answer] = []
        self.api = CHAT

    async def handle(self, request: httpx.Request) -> httpx.Response:
        if self.queue:
            a = self.queue.pop(0)
        else:
            a = Answer(200, json.dumps(turn(self.api, "done", [])).encode(), sse=False)
        ctype = "text/event-stream" if a.sse else "application/json"

        async def body() -> AsyncIterator[bytes]:
            yield a.body
            if a.abort:
                raise httpx.ReadError("upstream connection reset")

        return httpx.Response(a.status, headers={"content-type": ctype}, content=body())


@pytest.fixture(scope="module")
def rig(tmp_path_factory):
    upstream = Scripted()
    pipeline = make_pipeline()
    hash_ = pipeline.store.store(ORIGINAL, compressed="row 0", tool_name="logs", item_count=40)
    app = create_app(ProxyConfig(openai_api_url="http://up", anthropic_api_url="http://up", metrics_db=None,
                                 compression_timeout_s=5),
                     pipeline=pipeline, transport=httpx.MockTransport(upstream.handle))
    loop = asyncio.new_event_loop()
    client = httpx.AsyncClient(transport=httpx.ASGITransport(app=app, raise_app_exceptions=False),
                               base_url="http://127.0.0.1")
    yield upstream, client, loop, hash_
    loop.run_until_complete(client.aclose())
    loop.close()


def request_body(api: str, hash_: str, stream: bool) -> dict:
    marker = format_marker(40, 1, hash_, 3600, "rows kept: 1")
    tool_text = f"row 0: status=ok\n{marker}"
    if api == CHAT:
        messages = [{"role": "user", "content": "list the rows"},
                    {"role": "assistant", "tool_calls": [{"id": "t1", "type": "function",
                                                          "function": {"name": "logs", "arguments": "{}"}}]},
                    {"role": "tool", "tool_call_id": "t1", "content": tool_text}]
        return {"model": "m", "messages": messages, "stream": stream}
    if api == RESPONSES:
        return {"model": "m", "stream": stream, "input": [
            {"role": "user", "content": "list the rows"},
            {"type": "function_call", "call_id": "t1", "name": "logs", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "t1", "output": tool_text}]}
    return {"model": "m", "max_tokens": 10, "stream": stream, "messages": [
        {"role": "user", "content": "list the rows"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "t1", "name": "logs", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "t1", "content": tool_text}]}]}


def check(rig, api: str, stream: bool, script: list[Answer]) -> None:
    upstream, client, loop, hash_ = rig
    upstream.queue, upstream.api = list(script), api

    async def go() -> httpx.Response:
        return await client.post(api, json=request_body(api, hash_, stream), headers={"authorization": "Bearer k"})

    # A hang fails here instead of blocking the suite.
    r = loop.run_until_complete(asyncio.wait_for(go(), 20))
    assert r.status_code != 500, r.text[:500]
    if r.status_code == 502:
        err = r.json()["error"]
        assert err["type"] and err["message"]
    if r.status_code == 200 and stream:
        assert r.headers["content-type"].startswith("text/event-stream")


@pytest.mark.parametrize("api", APIS)
@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
def test_malformed_upstream_answers_never_give_a_bare_500_or_hang(rig, api, stream):
    hash_ = rig[3]

    @settings(max_examples=EXAMPLES, deadline=None, database=None,
              suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
    @given(st.lists(answers(api, stream, hash_), min_size=1, max_size=3))
    def run(script: list[Answer]) -> None:
        check(rig, api, stream, script)

    run()


# ------------------------------------------------------------------ the shapes named in the issue, one by one

def _retrieve(h: str, **over) -> tuple:
    call = {"id": "call_1", "name": "headroom_retrieve", "args": json.dumps({"hash": h})}
    call.update(over)
    return call["id"], call["name"], call["args"]


@pytest.mark.parametrize("api", APIS)
@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
@pytest.mark.parametrize("shape", ["no id", "no name", "args not json", "args not object", "hash not str",
                                   "duplicate ids", "empty", "not a list", "unknown block"])
def test_named_malformed_shapes(rig, api, stream, shape):
    from tests.proxy.malformed_upstream import ABSENT, events

    h = rig[3]
    calls = {
        "no id": [_retrieve(h, id=ABSENT)], "no name": [_retrieve(h, name=ABSENT)],
        "args not json": [_retrieve(h, args="{hash")], "args not object": [_retrieve(h, args="[1]")],
        "hash not str": [_retrieve(h, args=json.dumps({"hash": 12}))],
        "duplicate ids": [_retrieve(h), _retrieve(h)],
    }.get(shape, [_retrieve(h)])
    t = turn(api, None, calls)
    key = {CHAT: "choices", RESPONSES: "output", MESSAGES: "content"}[api]
    if shape == "empty":
        t[key] = []
    elif shape == "not a list":
        t[key] = {"a": 1}
    elif shape == "unknown block":
        t[key] = [{"type": "hologram", "id": "x"}]
    if stream:
        body = b"".join(events(api, None, calls)) if shape not in ("empty", "not a list", "unknown block") \
            else b"data: " + json.dumps(t).encode() + b"\n\n"
        answer = Answer(200, body, sse=True)
    else:
        answer = Answer(200, json.dumps(t).encode(), sse=False)
    check(rig, api, stream, [answer])


def test_an_exception_in_the_loop_is_a_502_naming_it_with_the_upstream_body(rig, monkeypatch, caplog):
    upstream, client, loop, h = rig
    app = client._transport.app
    core = app.state.headroom.core

    def boom(ex, turn):
        raise RuntimeError("no such shape")

    monkeypatch.setattr(core, "next_round", boom)
    answer = Answer(200, json.dumps(turn(CHAT, None, [_retrieve(h)])).encode(), sse=False)
    upstream.queue, upstream.api = [answer], CHAT
    with caplog.at_level("ERROR", logger="headroom.proxy"):
        r = loop.run_until_complete(client.post(CHAT, json=request_body(CHAT, h, False), headers={"authorization": "Bearer k"}))
    assert r.status_code == 502
    err = r.json()["error"]
    assert "RuntimeError: no such shape" in err["message"] and err["upstream_status"] == 200
    assert json.loads(err["upstream_body"])["choices"][0]["message"]["tool_calls"][0]["id"] == "call_1"
    record = next(rec for rec in caplog.records if rec.exc_info)
    assert "Traceback" in caplog.text and "row 0: status=ok" not in caplog.text  # traceback, not the request
    assert record.exc_info[0] is RuntimeError


def test_an_exception_in_a_live_stream_ends_it_with_an_error_event(rig, monkeypatch):
    upstream, client, loop, h = rig
    from tests.proxy.malformed_upstream import events

    core = client._transport.app.state.headroom.core
    monkeypatch.setattr(core, "next_round", lambda ex, turn: (_ for _ in ()).throw(RuntimeError("no such shape")))
    upstream.queue, upstream.api = [Answer(200, b"".join(events(MESSAGES, None, [_retrieve(h)])), sse=True)], MESSAGES
    r = loop.run_until_complete(client.post(MESSAGES, json=request_body(MESSAGES, h, True)))
    assert r.status_code == 200
    assert "event: error" in r.text and "RuntimeError: no such shape" in r.text
