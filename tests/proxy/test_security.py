"""Security middleware and bad input: hosts, admin routes, CORS, body limits, JSON errors, secrets in logs."""

from __future__ import annotations

import asyncio
import logging

import httpx
import pytest
from tests.proxy.conftest import make_pipeline
from test_e2e_sdk import an, chat_messages, oa

from headroom.proxy import ProxyConfig, create_app
from headroom.proxy.security import host_without_port, is_admin_path
from headroom.proxy.upstream import response_headers

ADMIN_ROUTES = ["/stats", "/metrics", "/v1/retrieve/stats", "/v1/retrieve/" + "a" * 24, "/v1/feedback"]


def asgi_get(app, path: str, client_ip: str, headers: dict | None = None) -> httpx.Response:
    """A request that looks as if it came from ``client_ip`` (no real socket needed)."""

    async def go() -> httpx.Response:
        transport = httpx.ASGITransport(app=app, client=(client_ip, 40000))
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8787") as c:
            return await c.get(path, headers=headers or {})

    return asyncio.run(go())


def app_with(**fields):
    return create_app(ProxyConfig(metrics_db=None, **fields), pipeline=make_pipeline())


def test_default_bind_is_loopback():
    assert ProxyConfig().host == "127.0.0.1"


@pytest.mark.parametrize("path", ADMIN_ROUTES)
def test_admin_routes_refuse_remote_clients_without_token(path):
    app = app_with()
    r = asgi_get(app, path, "10.1.2.3")
    assert r.status_code == 403 and "loopback" in r.json()["error"]["message"]
    assert asgi_get(app, path, "127.0.0.1").status_code != 403


def test_admin_token_lets_remote_clients_in():
    app = app_with(admin_token="s3cret-admin")
    assert asgi_get(app, "/stats", "10.1.2.3").status_code == 403
    assert asgi_get(app, "/stats", "10.1.2.3", {"authorization": "Bearer wrong"}).status_code == 403
    assert asgi_get(app, "/stats", "10.1.2.3", {"authorization": "Bearer s3cret-admin"}).status_code == 200
    assert asgi_get(app, "/metrics", "10.1.2.3", {"x-headroom-admin-token": "s3cret-admin"}).status_code == 200
    # Non-admin routes do not need it.
    assert asgi_get(app, "/health", "10.1.2.3").status_code == 200


def test_host_allowlist_blocks_dns_rebinding():
    app = app_with()
    r = asgi_get(app, "/health", "127.0.0.1", {"host": "evil.example:8787"})
    assert r.status_code == 400 and "not allowed" in r.json()["error"]["message"]
    for host in ("localhost:8787", "127.0.0.1", "[::1]:8787"):
        assert asgi_get(app, "/health", "127.0.0.1", {"host": host}).status_code == 200
    extra = app_with(allowed_hosts=("proxy.internal",))
    assert asgi_get(extra, "/health", "127.0.0.1", {"host": "proxy.internal"}).status_code == 200


def test_host_parsing():
    assert host_without_port("LocalHost:8787") == "localhost"
    assert host_without_port("[::1]:80") == "::1"
    assert host_without_port("::1") == "::1"
    assert is_admin_path("/v1/retrieve") and is_admin_path("/v1/feedback/bash") and not is_admin_path("/v1/responses")


def test_no_cors_headers(fake, start_proxy):
    url, _ = start_proxy()
    origin = {"origin": "https://evil.example"}
    r = httpx.options(f"{url}/v1/chat/completions", headers={**origin, "access-control-request-method": "POST"})
    assert not any(k.lower().startswith("access-control-") for k in r.headers)
    r = httpx.post(f"{url}/v1/chat/completions", json={"model": "m", "messages": [{"role": "user", "content": "x"}]},
                   headers=origin)
    assert r.status_code == 200 and not any(k.lower().startswith("access-control-") for k in r.headers)
    upstream = httpx.Headers({"access-control-allow-origin": "*", "content-type": "application/json",
                              "content-encoding": "gzip", "x-request-id": "abc"})
    assert dict(response_headers(upstream)) == {"content-type": "application/json", "x-request-id": "abc"}


def test_body_over_limit_is_413(fake, start_proxy):
    url, _ = start_proxy(max_body_mb=0.01)  # ~10 KB
    big = {"model": "m", "messages": [{"role": "user", "content": "x" * 20_000}]}
    r = httpx.post(f"{url}/v1/chat/completions", json=big)
    assert r.status_code == 413 and "limit" in r.json()["error"]["message"]

    def chunks():
        for _ in range(10):
            yield b"x" * 2000

    r = httpx.post(f"{url}/v1/chat/completions", content=chunks())  # no Content-Length: counted as it arrives
    assert r.status_code == 413
    assert fake.rec.requests == []
    ok = httpx.post(f"{url}/v1/chat/completions", json={"model": "m", "messages": [{"role": "user", "content": "hi"}]})
    assert ok.status_code == 200


@pytest.mark.parametrize("path", ["/v1/chat/completions", "/v1/responses", "/v1/messages", "/v1/compress", "/v1/retrieve"])
def test_malformed_json_is_400_with_a_clear_message(path, fake, start_proxy):
    url, _ = start_proxy()
    r = httpx.post(f"{url}{path}", content=b'{"model": "m", "messages": [', headers={"content-type": "application/json"})
    assert r.status_code == 400 and "not valid JSON" in r.json()["error"]["message"]
    r = httpx.post(f"{url}{path}", json=["not", "an", "object"])
    assert r.status_code == 400
    assert fake.rec.requests == []


def test_api_keys_never_logged(fake, start_proxy, caplog):
    url, _ = start_proxy(log_level="debug")
    with caplog.at_level(logging.DEBUG):
        oa(url).chat.completions.create(model="gpt-4o", messages=chat_messages())
        for _ in oa(url).chat.completions.create(model="gpt-4o", messages=chat_messages(), stream=True):
            pass
        an(url).messages.create(model="claude-x", max_tokens=5, messages=[{"role": "user", "content": "hi"}])
        httpx.post(f"{url}/v1/chat/completions", content=b"{bad", headers={"authorization": "Bearer sk-test-secret-openai-key"})
    text = "\n".join(f"{r.name} {r.getMessage()}" for r in caplog.records)
    assert "headroom.proxy" in text  # the proxy did log these requests
    assert "sk-test-secret" not in text and "sk-ant-test-secret" not in text
    assert "what failed?" not in text  # bodies are not logged by default
