"""The upstream seam: create_app(transport=...) swaps the network for an httpx transport."""

from __future__ import annotations

import asyncio
import json

import httpx

from headroom.proxy import ProxyConfig, create_app
from headroom.proxy.paths import upstream_url
from headroom.proxy.upstream import request_headers
from tests.proxy.conftest import make_pipeline


def test_mock_transport_receives_the_forwarded_request():
    seen: list[httpx.Request] = []

    def provider(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(201, json={"ok": True}, headers={"x-request-id": "req_1", "content-encoding": "identity"})

    app = create_app(ProxyConfig(metrics_db=None, openai_api_url="https://api.example/v1"),
                     transport=httpx.MockTransport(provider), pipeline=make_pipeline())

    async def go() -> httpx.Response:
        async with httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1") as c:
            return await c.post("/v1/chat/completions?trace=1", json={"model": "m", "messages": [{"role": "user", "content": "hi"}]},
                                headers={"authorization": "Bearer sk-1", "openai-organization": "org-1",
                                         "x-headroom-bypass": "0"})

    r = asyncio.run(go())
    assert r.status_code == 201 and r.json() == {"ok": True} and r.headers["x-request-id"] == "req_1"
    [req] = seen
    assert str(req.url) == "https://api.example/v1/chat/completions?trace=1"
    assert req.headers["authorization"] == "Bearer sk-1" and req.headers["openai-organization"] == "org-1"
    assert "x-headroom-bypass" not in req.headers
    assert json.loads(req.content)["messages"][0]["content"] == "hi"


def test_url_joining_and_header_filtering():
    assert upstream_url("https://api.openai.com", "/v1/responses") == "https://api.openai.com/v1/responses"
    assert upstream_url("https://api.openai.com/v1/", "/v1/responses", "a=1") == "https://api.openai.com/v1/responses?a=1"
    assert upstream_url("http://gw/openai", "/v1/x") == "http://gw/openai/v1/x"
    kept = request_headers([("Host", "x"), ("Content-Length", "3"), ("Authorization", "Bearer k"),
                            ("anthropic-beta", "b"), ("X-Headroom-Bypass", "1"), ("Accept-Encoding", "br"),
                            ("Connection", "keep-alive")])
    assert kept == [("Authorization", "Bearer k"), ("anthropic-beta", "b")]
