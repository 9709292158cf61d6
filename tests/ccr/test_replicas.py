"""Two proxy replicas on one Redis: what A compressed, B can hand back."""

from __future__ import annotations

import json
import time

import httpx
import pytest

from headroom.ccr.markers import find_hashes
from headroom.config import CCRConfig, HeadroomConfig
from tests.servers import ServerThread

# A service log: the log compressor keeps errors and a sample, which is lossy.
TOOL_OUTPUT = "\n".join(
    f"2026-11-22 04:{i // 60:02d}:{i % 60:02d} INFO svc-{i % 7} request req-{i:04d} served in {20 + i * 37 % 400} ms"
    if i % 97
    else f"2026-11-22 04:{i // 60:02d}:{i % 60:02d} ERROR svc-{i % 7} request req-{i:04d} failed: timeout"
    for i in range(1, 400)
)


def fake_upstream(seen: list[dict]) -> httpx.MockTransport:
    """A provider that records what reached it and answers with a fixed message."""

    def handle(request: httpx.Request) -> httpx.Response:
        seen.append(json.loads(request.content))
        return httpx.Response(
            200,
            json={
                "id": "chatcmpl-1",
                "object": "chat.completion",
                "created": 0,
                "model": "gpt-4o",
                "choices": [
                    {
                        "index": 0,
                        "finish_reason": "stop",
                        "message": {"role": "assistant", "content": "done"},
                    }
                ],
                "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2},
            },
        )

    return httpx.MockTransport(handle)


@pytest.mark.redis
def test_replica_b_returns_what_replica_a_compressed(redis_url):
    from headroom.proxy import ProxyConfig, create_app

    hc = HeadroomConfig(ccr=CCRConfig(backend="redis", redis_url=redis_url))
    seen_a: list[dict] = []
    app_a = create_app(ProxyConfig(metrics_db=None), hc, transport=fake_upstream(seen_a))
    app_b = create_app(ProxyConfig(metrics_db=None), hc, transport=fake_upstream([]))
    body = {
        "model": "gpt-4o",
        "messages": [
            {"role": "user", "content": "Which services are slow?"},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": "query_latency", "arguments": "{}"},
                    }
                ],
            },
            {"role": "tool", "tool_call_id": "call_1", "content": TOOL_OUTPUT},
        ],
    }
    with ServerThread(app_a) as a, ServerThread(app_b) as b:
        r = httpx.post(
            f"{a.url}/v1/chat/completions", json=body, headers={"authorization": "Bearer sk-test"}
        )
        assert r.status_code == 200 and r.json()["choices"][0]["message"]["content"] == "done"
        sent = seen_a[0]["messages"][2]["content"]
        assert len(sent) < len(TOOL_OUTPUT) / 2  # replica A compressed the tool output
        (h,) = find_hashes(sent)

        # The admin route reads as the tenant whose credential stored it (issue 26).
        tenant = {"authorization": "Bearer sk-test"}
        assert httpx.get(f"{b.url}/v1/retrieve/{h}").status_code == 404
        got = httpx.get(f"{b.url}/v1/retrieve/{h}", headers=tenant)
        assert got.status_code == 200
        assert got.json()["content"] == TOOL_OUTPUT and got.json()["full"] is True
        assert got.json()["tool_name"] == "query_latency"
        assert "req-0123" not in sent
        matches = httpx.post(f"{b.url}/v1/retrieve", json={"hash": h, "query": "req-0123"}, headers=tenant).json()
        assert matches["content"] == TOOL_OUTPUT.splitlines()[122] and matches["full"] is False

        # B's TOIN counts its retrievals in the shared Redis: A's feedback sees them once B
        # has written its buffer (within TOIN's flush_seconds, 1 s, without more traffic).
        deadline = time.monotonic() + 10
        while (fb := httpx.get(f"{a.url}/v1/feedback/query_latency").json()).get("retrieval_events") != 2:
            assert time.monotonic() < deadline, fb
            time.sleep(0.1)
        assert fb["stored"] == 1 and fb["retrieved"] == 1 and fb["retrieval_events"] == 2
        assert httpx.get(f"{b.url}/v1/retrieve/{'0' * 24}").status_code == 404


@pytest.mark.redis
def test_two_proxy_processes_on_one_redis_share_originals_and_learned_patterns(redis_url):
    """Two `serve()` processes (as two machines would run them) on one real redis-server:
    stored through A, retrieved through B; what A learned (TOIN) is visible on B, and B's
    retrievals count in the pattern A reads."""

    from tests.proxy.proxy_fakes import make_fake_upstream
    from tests.servers import ProxyProcess

    fake_app, rec = make_fake_upstream()
    with ServerThread(fake_app) as fake:
        replica = ({"openai_api_url": fake.url, "anthropic_api_url": fake.url},
                   {"ccr": {"backend": "redis", "redis_url": redis_url}})
        with ProxyProcess(*replica) as a, ProxyProcess(*replica) as b:
            assert a.workers.isdisjoint(b.workers)  # two processes
            r = httpx.post(f"{a.url}/v1/chat/completions", timeout=30, json={"model": "gpt-4o", "messages": [
                {"role": "user", "content": "Which services are slow?"},
                {"role": "assistant", "content": None, "tool_calls": [
                    {"id": "call_1", "type": "function", "function": {"name": "query_latency", "arguments": "{}"}}]},
                {"role": "tool", "tool_call_id": "call_1", "content": TOOL_OUTPUT}]})
            assert r.status_code == 200
            sent = rec.requests[-1]["json"]["messages"][2]["content"]
            (h,) = find_hashes(sent)
            got = httpx.get(f"{b.url}/v1/retrieve/{h}", timeout=10)
            assert got.status_code == 200 and got.json()["original_content"] == TOOL_OUTPUT

            def pattern(url: str) -> dict:
                patterns = httpx.get(f"{url}/v1/toin/patterns", timeout=10).json()["patterns"]
                return next((p for p in patterns if p["kind"] == "log"), {})

            deadline = time.monotonic() + 15  # A flushes its counts every second
            while pattern(b.url).get("compressed", 0) < 1:
                assert time.monotonic() < deadline, "B never saw what A learned"
                time.sleep(0.2)
            assert pattern(a.url)["signature"] == pattern(b.url)["signature"]
