"""Load: 200 concurrent streaming requests through the proxy, nothing lost or mixed up.

Loopback only and bounded (200 requests, a few chunks each). The requests mix the three
APIs, and every fourth one carries a compressed tool output and is answered through the
streamed CCR loop, so buffered and relayed streams interleave.
"""

from __future__ import annotations

import asyncio
import json

import httpx
import pytest
from test_e2e_sdk import BIG, BIG_TAG, anthropic_messages, chat_messages, responses_input

from headroom.exchange.stream import StreamAccumulator
from headroom.formats.wire import SSEDecoder
from tests.proxy.conftest import wait_for

N = 200
PATHS = ["/v1/chat/completions", "/v1/responses", "/v1/messages"]
FORMATS = {"/v1/chat/completions": "openai_chat", "/v1/responses": "openai_responses", "/v1/messages": "anthropic"}


def request_for(i: int) -> tuple[str, dict, dict, str]:
    path = PATHS[i % 3]
    question = f"client-{i:03d}"
    with_tool = i % 4 == 0
    if path == "/v1/chat/completions":
        body = {"model": "gpt-4o", "messages": chat_messages(question) if with_tool else [{"role": "user", "content": question}]}
    elif path == "/v1/responses":
        body = {"model": "gpt-4o", "input": responses_input(question) if with_tool else question}
    else:
        body = {"model": "claude-x", "max_tokens": 50,
                "messages": anthropic_messages(question) if with_tool else [{"role": "user", "content": question}]}
    body["stream"] = True
    headers = {"x-fake-chunks": "6", "x-fake-delay-ms": "5", "authorization": f"Bearer key-{i}",
               "anthropic-version": "2023-06-01"}
    if with_tool:
        headers["x-fake-script"] = "retrieve"
    expected = f"echo: {question} | tool={BIG_TAG} len={len(BIG)}" if with_tool else f"echo: {question} | tool=none len=0"
    return path, body, headers, expected


def text_of(fmt: str, raw: bytes) -> str:
    acc = StreamAccumulator(fmt)
    for ev, _ in SSEDecoder().feed(raw):
        acc.feed_event(ev)
    resp = acc.response()
    if fmt == "openai_chat":
        return resp["choices"][0]["message"]["content"]
    if fmt == "openai_responses":
        return "".join(c["text"] for item in resp["output"] if item["type"] == "message" for c in item["content"])
    return "".join(b["text"] for b in resp["content"] if b["type"] == "text")


@pytest.mark.slow
def test_200_concurrent_streams(fake, start_proxy):
    url, app = start_proxy()

    async def one(client: httpx.AsyncClient, i: int) -> tuple[int, int, str, str]:
        path, body, headers, expected = request_for(i)
        async with client.stream("POST", f"{url}{path}", content=json.dumps(body), headers=headers) as r:
            raw = b"".join([chunk async for chunk in r.aiter_raw()])
        return i, r.status_code, text_of(FORMATS[path], raw), expected

    async def run() -> list[tuple[int, int, str, str]]:
        limits = httpx.Limits(max_connections=N, max_keepalive_connections=N)
        async with httpx.AsyncClient(limits=limits, timeout=120) as client:
            return await asyncio.gather(*(one(client, i) for i in range(N)))

    results = asyncio.run(run())
    assert len(results) == N
    for i, status, text, expected in results:
        assert status == 200, i
        assert text == expected, i  # each client got its own answer, complete
    with_tool = sum(1 for i in range(N) if i % 4 == 0)
    assert len(fake.rec.requests) == N + with_tool  # one extra upstream round per CCR loop
    # Keys were never crossed between concurrent requests.
    for r in fake.rec.requests:
        body = r["json"]
        text = json.dumps(body)
        i = int(text.split("client-")[1][:3])
        assert r["headers"]["authorization"] == f"Bearer key-{i}"
    stats = app.state.headroom.stats
    wait_for(lambda: stats.snapshot()["requests"]["total"] == N, timeout=10)
    assert stats.snapshot()["ccr"]["retrieve_rounds"] == with_tool
