"""Patterns outlive a proxy restart (SQLite) and are shared by proxies on one Redis."""

from __future__ import annotations

import json

import pytest

from headroom.config import CCRConfig, HeadroomConfig, ToinConfig
from headroom.proxy import ProxyConfig, create_app

from .test_api_cli import call
from .test_steering import orders

FAST = ToinConfig(flush_seconds=0, refresh_seconds=0, min_observations=4)


def compress(app, k: int, question: str) -> dict:
    msgs = [
        {"role": "user", "content": "check the orders"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "list_orders", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": json.dumps(orders(200, offset=1000 * k), indent=1)},
        {"role": "user", "content": question},
    ]
    r = call(app, "/v1/compress", method="POST", payload={"model": "gpt-4o", "messages": msgs})
    assert r.status_code == 200
    return r.json()


def router_reason(data: dict) -> str:
    return next(d["reason"] for d in data["decisions"] if d["transform"] == "content_router")


def proxy(hc: HeadroomConfig):
    return create_app(ProxyConfig(metrics_db=None), hc)


def test_a_restarted_proxy_keeps_its_patterns(tmp_path):
    hc = HeadroomConfig(ccr=CCRConfig(backend="sqlite", sqlite_path=str(tmp_path / "ccr.sqlite3")), toin=FAST)
    first = proxy(hc)
    for k in range(4):
        assert "toin" not in router_reason(compress(first, k, "which order has the largest amount?"))
    first.state.headroom.pipeline.toin.close()  # what the proxy's shutdown does
    first.state.headroom.store.close()
    restarted = proxy(hc)
    assert call(restarted, "/v1/toin/stats").json()["compressed"] == 4
    assert "preserve amount(metric)" in router_reason(compress(restarted, 9, "summary"))


@pytest.mark.redis
def test_two_proxies_on_one_redis_learn_together(redis_url):
    hc = HeadroomConfig(ccr=CCRConfig(backend="redis", redis_url=redis_url), toin=FAST)
    a, b = proxy(hc), proxy(hc)
    for k in range(2):
        compress(a, k, "which order has the largest amount?")
        compress(b, 10 + k, "which order has the largest amount?")
    # Neither saw four compressions itself; together they did.
    for app in (a, b):
        assert call(app, "/v1/toin/stats").json()["compressed"] == 4
    assert "preserve amount(metric)" in router_reason(compress(a, 20, "summary"))
    assert "preserve amount(metric)" in router_reason(compress(b, 21, "summary"))
