"""Bug 6 (issue 13): with headroom_retrieve injected, streamed text reaches the client live;
only tool-call events are held, and a retrieve round continues the same stream."""

from __future__ import annotations

import asyncio
import json
import threading

import httpx
import pytest
from test_e2e_sdk import anthropic_messages, chat_messages, responses_input

from headroom.ccr.markers import find_hashes
from headroom.exchange.stream import StreamAccumulator
from headroom.formats.wire import SSEDecoder
from headroom.proxy import ProxyConfig, create_app
from tests.proxy.conftest import make_pipeline
from tests.proxy.proxy_fakes import anthropic_stream, chat_stream, responses_stream
from tests.servers import ServerThread

CASES = {
    "/v1/messages": ("anthropic", anthropic_stream, lambda: {"model": "claude-x", "max_tokens": 50,
                                                             "messages": anthropic_messages()}),
    "/v1/chat/completions": ("openai_chat", chat_stream, lambda: {"model": "gpt-4o", "messages": chat_messages()}),
    "/v1/responses": ("openai_responses", responses_stream, lambda: {"model": "gpt-4o", "input": responses_input()}),
}
FIRST, SECOND = "Let me look that up. ", "The failing batch is 123."


class GatedUpstream(httpx.AsyncBaseTransport):
    """Round 1 streams its text, then waits until the client has seen that text before it
    sends the headroom_retrieve call; round 2 (carrying the tool result) answers."""

    def __init__(self, builder):
        self.builder = builder
        self.client_saw_text = threading.Event()
        self.released_by_client: bool | None = None
        self.bodies: list[dict] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        body = json.loads(await request.aread())
        self.bodies.append(body)
        if len(self.bodies) == 1:
            [h] = find_hashes(json.dumps(body))[:1]
            events = self.builder("m", [FIRST], [("call_r1", "headroom_retrieve", json.dumps({"hash": h}))])
        else:
            events = self.builder("m", [SECOND], [])
        gate = next(i for i, e in enumerate(events) if FIRST.encode() in e) + 1 if len(self.bodies) == 1 else None

        async def stream():
            for i, e in enumerate(events):
                if i == gate:
                    for _ in range(500):  # at most 5 s
                        if self.client_saw_text.is_set():
                            break
                        await asyncio.sleep(0.01)
                    self.released_by_client = self.client_saw_text.is_set()
                yield e

        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=stream())


@pytest.mark.parametrize("path", sorted(CASES))
def test_text_streams_live_and_the_retrieve_round_continues_the_stream(path):
    fmt, builder, body = CASES[path]
    upstream = GatedUpstream(builder)
    app = create_app(ProxyConfig(metrics_db=None, openai_api_url="http://up", anthropic_api_url="http://up"),
                     transport=upstream, pipeline=make_pipeline())
    with ServerThread(app) as server:
        raw = b""
        with httpx.stream("POST", f"{server.url}{path}", json={**body(), "stream": True}, timeout=30,
                          headers={"anthropic-version": "2023-06-01"}) as r:
            for chunk in r.iter_raw():
                raw += chunk
                if FIRST.encode() in raw:
                    upstream.client_saw_text.set()
    assert upstream.released_by_client is True  # the first text arrived before the turn was over
    assert len(upstream.bodies) == 2  # the retrieve call was answered by the proxy

    acc = StreamAccumulator(fmt)
    events = [ev for ev, _ in SSEDecoder().feed(raw)]
    for ev in events:
        acc.feed_event(ev)
    final = acc.response()
    assert b"headroom_retrieve" not in raw  # the client never sees our tool
    if fmt == "anthropic":
        assert [e.event for e in events].count("message_start") == 1
        assert [b["text"] for b in final["content"]] == [FIRST, SECOND]
        starts = [json.loads(e.data)["index"] for e in events if e.event == "content_block_start"]
        assert starts == [0, 1]
        assert final["stop_reason"] == "end_turn"
    elif fmt == "openai_chat":
        assert final["choices"][0]["message"]["content"] == FIRST + SECOND
        assert final["choices"][0]["finish_reason"] == "stop" and "tool_calls" not in final["choices"][0]["message"]
        assert raw.count(b"[DONE]") == 1
    else:
        texts = [c["text"] for item in final["output"] if item["type"] == "message" for c in item["content"]]
        assert texts == [FIRST, SECOND]
        assert [e.event for e in events].count("response.created") == 1
        seqs = [json.loads(e.data)["sequence_number"] for e in events]
        assert seqs == sorted(seqs) and len(set(seqs)) == len(seqs)


class GarbledUpstream(httpx.AsyncBaseTransport):
    """Streams some text, then a chunk no Chat client could read, then the end."""

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        await request.aread()
        events = chat_stream("m", ["Hello "], [])
        garbled = b'data: {"choices": "not a list", "id": 7}\n\n'
        return httpx.Response(200, headers={"content-type": "text/event-stream"},
                              content=b"".join([*events[:2], garbled, *events[2:]]))


def test_an_unreadable_event_is_relayed_unchanged():
    app = create_app(ProxyConfig(metrics_db=None, openai_api_url="http://up"), transport=GarbledUpstream(),
                     pipeline=make_pipeline())
    with ServerThread(app) as server:
        body = {**CASES["/v1/chat/completions"][2](), "stream": True}
        r = httpx.post(f"{server.url}/v1/chat/completions", json=body, timeout=30)
    assert r.status_code == 200
    assert b'"choices": "not a list"' in r.content and b"Hello " in r.content and r.content.count(b"[DONE]") == 1
