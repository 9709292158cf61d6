"""The upstream client is shared by every caller, so it must carry nothing from one to another.

A scripted upstream sets cookies on one client's answers; another client's later requests
must reach the upstream without them, and the client that got them gets every one.
"""

from __future__ import annotations

import json

import httpx
import pytest
from fastapi import FastAPI
from starlette.requests import Request
from starlette.responses import Response

from headroom.proxy import ProxyConfig, create_app
from tests.proxy.conftest import make_pipeline
from tests.servers import ServerThread


def cookie_upstream() -> tuple[FastAPI, list[dict[str, str]]]:
    """Answers every route; records each request's headers; sets cookies named after the caller's key."""
    seen: list[dict[str, str]] = []
    app = FastAPI()

    @app.api_route("/{path:path}", methods=["GET", "POST"])
    async def any_route(request: Request, path: str) -> Response:
        seen.append({k.lower(): v for k, v in request.headers.items()})
        key = request.headers.get("authorization", request.headers.get("x-api-key", "anon")).split()[-1]
        body = json.dumps({"id": "x", "object": "chat.completion", "model": "m", "choices": [
            {"index": 0, "message": {"role": "assistant", "content": "ok"}, "finish_reason": "stop"}]})
        stream = b'"stream": true' in await request.body() or b'"stream":true' in await request.body()
        resp = Response(
            ("data: " + body + "\n\ndata: [DONE]\n\n") if stream else body,
            media_type="text/event-stream" if stream else "application/json")
        # Two cookies, a domain-less session one and one for the upstream's host, as a gateway would.
        resp.raw_headers.append((b"set-cookie", f"session={key}; Path=/".encode()))
        resp.raw_headers.append((b"set-cookie", f"route={key}-7; Path=/; HttpOnly".encode()))
        return resp

    return app, seen


@pytest.fixture
def cookie_proxy(tmp_path):
    app, seen = cookie_upstream()
    with ServerThread(app) as upstream:
        proxy = create_app(ProxyConfig(openai_api_url=upstream.url, anthropic_api_url=upstream.url,
                                       metrics_db=str(tmp_path / "m.db")), pipeline=make_pipeline())
        with ServerThread(proxy) as server:
            yield server.url, seen, proxy


CHAT = {"model": "m", "messages": [{"role": "user", "content": "hi"}]}


@pytest.mark.parametrize("route,body", [
    ("/v1/chat/completions", CHAT),
    ("/v1/chat/completions", {**CHAT, "stream": True}),
    ("/v1/models", None),  # pass-through route
])
def test_cookies_set_for_one_client_never_reach_another(cookie_proxy, route, body):
    url, seen, proxy = cookie_proxy
    # Each client is a fresh httpx client without a jar of its own that could replay.
    send = (lambda key: httpx.post(f"{url}{route}", json=body, headers={"authorization": f"Bearer {key}"}, timeout=10)) \
        if body is not None else (lambda key: httpx.get(f"{url}{route}", headers={"authorization": f"Bearer {key}"}, timeout=10))
    a = send("tenant-a")
    assert a.status_code == 200
    # A gets every cookie the upstream set for it, not only the first.
    assert a.headers.get_list("set-cookie") == ["session=tenant-a; Path=/", "route=tenant-a-7; Path=/; HttpOnly"]
    b = send("tenant-b")
    assert b.status_code == 200
    assert "tenant-a" not in b.headers.get("set-cookie", "")
    assert len(seen) == 2
    assert "cookie" not in seen[0] and "cookie" not in seen[1], seen[1].get("cookie")
    assert not list(proxy.state.headroom.client.cookies.jar)  # nothing kept for later


def test_a_clients_own_cookie_header_goes_with_its_request_only(cookie_proxy):
    url, seen, _ = cookie_proxy
    httpx.post(f"{url}/v1/chat/completions", json=CHAT, headers={"authorization": "Bearer a", "cookie": "mine=1"})
    httpx.post(f"{url}/v1/chat/completions", json=CHAT, headers={"authorization": "Bearer b"})
    assert seen[0]["cookie"] == "mine=1"
    assert "cookie" not in seen[1]
    assert seen[0]["authorization"] == "Bearer a" and seen[1]["authorization"] == "Bearer b"


def test_upstream_client_attaches_no_host_credentials(monkeypatch, tmp_path):
    # A .netrc on the host must not put its credentials on tenants' requests; the host's
    # egress proxy settings (HTTPS_PROXY, SSL_CERT_FILE) stay honoured (trust_env on).
    import asyncio

    from headroom.proxy.upstream import make_client

    (tmp_path / ".netrc").write_text("machine upstream.test login tenant-a password s3cret\n")
    (tmp_path / ".netrc").chmod(0o600)
    monkeypatch.setenv("HOME", str(tmp_path))
    monkeypatch.setenv("NETRC", str(tmp_path / ".netrc"))
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, json={})

    async def go() -> None:
        client = make_client(ProxyConfig(), transport=httpx.MockTransport(handler))
        assert client.trust_env is True
        async with client:
            await client.post("http://upstream.test/v1/chat/completions", json={})

    asyncio.run(go())
    assert "authorization" not in seen[0].headers and "cookie" not in seen[0].headers
