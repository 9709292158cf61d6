"""Gemini through the proxy: generateContent and streamGenerateContent go through the
pipeline and the CCR loop like the other APIs (the model and stream flag are in the URL)."""

from __future__ import annotations

import json

import httpx
from tests.proxy.conftest import make_pipeline
from tests.servers import ServerThread
from test_e2e_sdk import BIG

from headroom.ccr.markers import find_hashes
from headroom.proxy import ProxyConfig, create_app

MODEL = "gemini-2.5-flash"


def body() -> dict:
    return {"contents": [
        {"role": "user", "parts": [{"text": "what failed?"}]},
        {"role": "model", "parts": [{"functionCall": {"name": "read_logs", "args": {}}}]},
        {"role": "user", "parts": [{"functionResponse": {"name": "read_logs", "response": {"content": BIG}}}]},
    ]}


def turn(parts: list, finish: str = "STOP") -> dict:
    return {"candidates": [{"content": {"role": "model", "parts": parts}, "finishReason": finish}],
            "usageMetadata": {"promptTokenCount": 50, "candidatesTokenCount": 5}}


class FakeGemini(httpx.AsyncBaseTransport):
    """First request: a headroom_retrieve call for the marker's hash; then the answer."""

    def __init__(self):
        self.requests: list[httpx.Request] = []
        self.bodies: list[dict] = []

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        body = json.loads(await request.aread())
        self.requests.append(request)
        self.bodies.append(body)
        sse = request.url.params.get("alt") == "sse"
        if len(self.bodies) == 1:
            [h] = find_hashes(json.dumps(body))[:1]
            chunks = [turn([{"text": "Checking. "}], finish=None),
                      turn([{"functionCall": {"name": "headroom_retrieve", "args": {"hash": h}}}])]
        else:
            chunks = [turn([{"text": "Batch 123 "}], finish=None), turn([{"text": "failed."}])]
        if not sse:
            merged = turn([p for c in chunks for p in c["candidates"][0]["content"]["parts"]])
            return httpx.Response(200, json=merged)
        data = b"".join(f"data: {json.dumps(c)}\r\n\r\n".encode() for c in chunks)
        return httpx.Response(200, headers={"content-type": "text/event-stream"}, content=data)


def start(upstream: FakeGemini):
    app = create_app(ProxyConfig(metrics_db=None, gemini_api_url="http://gemini.test"), transport=upstream,
                     pipeline=make_pipeline())
    return ServerThread(app)


def test_generate_content_is_compressed_and_the_retrieve_loop_runs():
    upstream = FakeGemini()
    with start(upstream) as server:
        r = httpx.post(f"{server.url}/v1beta/models/{MODEL}:generateContent", json=body(),
                       headers={"x-goog-api-key": "k-1"}, timeout=30)
    assert r.status_code == 200, r.text
    assert r.json()["candidates"][0]["content"]["parts"] == [{"text": "Batch 123 "}, {"text": "failed."}]
    first, second = upstream.bodies
    assert str(upstream.requests[0].url) == f"http://gemini.test/v1beta/models/{MODEL}:generateContent"
    assert upstream.requests[0].headers["x-goog-api-key"] == "k-1"
    sent = first["contents"][2]["parts"][0]["functionResponse"]["response"]["content"]
    assert len(sent) < len(BIG) and find_hashes(sent)
    assert first["tools"][-1]["functionDeclarations"][0]["name"] == "headroom_retrieve"
    answer = second["contents"][-1]["parts"][0]["functionResponse"]
    assert answer == {"name": "headroom_retrieve", "response": {"content": BIG}}
    assert int(r.headers["x-headroom-tokens-saved"]) > 0


def test_stream_generate_content_streams_live_and_continues():
    upstream = FakeGemini()
    with start(upstream) as server:
        r = httpx.post(f"{server.url}/v1beta/models/{MODEL}:streamGenerateContent?alt=sse", json=body(), timeout=30)
    assert r.status_code == 200
    assert len(upstream.bodies) == 2 and b"headroom_retrieve" not in r.content
    texts = [p["text"] for line in r.text.split("\r\n\r\n") if line.startswith("data: ")
             for p in json.loads(line[6:])["candidates"][0]["content"]["parts"]]
    assert texts == ["Checking. ", "Batch 123 ", "failed."]
