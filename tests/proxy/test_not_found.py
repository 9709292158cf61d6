"""Unknown proxy routes: a JSON 404 that names the likely fix."""

from __future__ import annotations

import asyncio

import httpx
import pytest

from headroom.ccr.store import CompressionStore
from headroom.config import HeadroomConfig
from headroom.pipeline import Pipeline
from headroom.proxy import ProxyConfig, create_app
from headroom.proxy.not_found import hint_for


def _call(method: str, path: str, **kw) -> httpx.Response:
    # A memory store: the test leaves no SQLite file behind.
    app = create_app(ProxyConfig(metrics_db=None), pipeline=Pipeline(HeadroomConfig(), store=CompressionStore()))

    async def go() -> httpx.Response:
        transport = httpx.ASGITransport(app=app, client=("127.0.0.1", 40000))
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8787") as c:
            return await c.request(method, path, **kw)

    return asyncio.run(go())


@pytest.mark.parametrize("path,needle", [
    ("/chat/completions", "set OPENAI_BASE_URL=http://127.0.0.1:8787/v1"),
    ("/responses", "should go to /v1/responses"),
    ("/messages", "ANTHROPIC_BASE_URL=http://127.0.0.1:8787 (the Anthropic SDK adds /v1 itself)"),
    ("/openai/v1/chat/completions", "use /v1/chat/completions"),
    ("/api/v1/messages", "use /v1/messages"),
    ("/v2/chat", "not a route of the headroom proxy; it serves /v1/chat/completions"),
])
def test_unknown_route_is_json_with_the_fix(path, needle):
    r = _call("POST", path, json={"model": "gpt-4o", "messages": []})
    assert r.status_code == 404 and r.headers["content-type"].startswith("application/json")
    err = r.json()["error"]
    assert err["type"] == "not_found" and err["path"] == path and needle in err["message"], err


def test_a_routes_own_404_keeps_its_message():
    r = _call("GET", "/v1/retrieve/" + "0" * 24)
    assert r.status_code == 404 and "unknown or expired hash" in r.json()["error"]["message"]


def test_gemini_hint():
    assert "/v1beta/models/MODEL:generateContent" in hint_for("/models/gemini-2.0:generateContent", "h:1")
