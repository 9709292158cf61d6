"""``--workers N``: N processes on one port, sharing the store, /stats and /metrics; drained on SIGTERM.

The proxy runs as a real process tree (uvicorn's supervisor and its workers) in front of
the loopback fake provider; the image stage is off so the workers start in seconds.
"""

from __future__ import annotations

import json
import os
import signal
import time

import httpx
import pytest

from headroom.cli import build_parser
from headroom.cli.cmd_proxy import build_configs
from headroom.proxy.startup import banner
from tests.servers import ProxyProcess, stream_in_background


@pytest.fixture
def two_workers(fake, tmp_path):
    with ProxyProcess({"openai_api_url": fake.url, "anthropic_api_url": fake.url, "workers": 2,
                       "metrics_db": str(tmp_path / "metrics.db"), "drain_timeout_s": 20},
                      {"ccr": {"backend": "sqlite", "sqlite_path": str(tmp_path / "ccr.sqlite3")}}) as proxy:
        yield proxy.url, proxy.proc, proxy.workers


def rows(n: int) -> str:
    return json.dumps([{"id": i, "host": f"web-{i}.prod", "status": "down" if i % 37 == 5 else "up",
                        "latency_ms": (i * 13) % 97} for i in range(n)])


def test_workers_share_the_store_and_the_counters(two_workers):
    url, _, pids = two_workers
    hashes, served = [], set()
    for k in range(12):
        body = {"model": "gpt-4o", "messages": [{"role": "user", "content": "which hosts are down?"},
                {"role": "tool", "tool_call_id": "t", "content": rows(120 + k)}]}
        with httpx.Client() as one_connection:  # a fresh connection: any worker may take it
            r = one_connection.post(f"{url}/v1/compress", json=body, timeout=60)
        assert r.status_code == 200, r.text
        hashes += r.json()["ccr_hashes"]
    assert len(hashes) >= 12
    for h in hashes:  # each read on a new connection: many land on the worker that did not store it
        for _ in range(2):
            got = httpx.get(f"{url}/v1/retrieve/{h}", timeout=10)
            assert got.status_code == 200, (h, got.text)
        served.add(httpx.get(f"{url}/health", timeout=5).json()["worker"])
    assert served == pids

    for k in range(10):
        r = httpx.post(f"{url}/v1/chat/completions", json={"model": "gpt-4o", "messages": [
            {"role": "user", "content": f"hello {k}"}]}, timeout=30)
        assert r.status_code == 200
    for _ in range(4):  # no wait: the answering worker asks the other for its live counters  # whichever worker answers, it describes the whole proxy
        stats = httpx.get(f"{url}/stats", timeout=10).json()
        assert stats["workers"] == 2 and stats["requests"]["total"] == 10, stats["requests"]
        metrics = httpx.get(f"{url}/metrics", timeout=10).text
        assert 'headroom_requests_total{api="openai_chat",mode="optimize",status="200"} 10' in metrics
        assert "headroom_request_latency_ms_count 10" in metrics


def test_stats_right_after_a_burst_counts_every_request(two_workers):
    """Issue 34: with workers publishing files every 0.5 s, /stats read right after a burst
    counted 71 of 84 requests. Read when asked, it counts all of them, with no lag."""
    url, _, _ = two_workers
    before = httpx.get(f"{url}/stats", timeout=10).json()["requests"]["total"]
    n, clients = 84, 6

    def client(k: int) -> list[int]:
        out = []
        for j in range(k, n, clients):
            with httpx.Client() as fresh:  # a new connection each time: both workers take some
                out.append(fresh.post(f"{url}/v1/chat/completions", timeout=60, json={
                    "model": "gpt-4o", "messages": [{"role": "user", "content": f"burst {j}"}]}).status_code)
        return out

    from concurrent.futures import ThreadPoolExecutor

    with ThreadPoolExecutor(clients) as pool:
        codes = [c for got in pool.map(client, range(clients)) for c in got]
    assert codes == [200] * n
    for _ in range(4):  # at once, on fresh connections: whichever worker answers
        with httpx.Client() as fresh:
            stats = fresh.get(f"{url}/stats", timeout=10).json()
        assert stats["requests"]["total"] - before == n, stats["requests"]
        assert stats["lag_s"] == 0.0 and stats["workers"] == 2
        assert abs(stats["as_of"] - time.time()) < 5


def test_sigterm_drains_an_in_flight_stream(two_workers):
    url, proc, _ = two_workers
    t, got = stream_in_background(url, chunks=20)
    time.sleep(0.6)  # the stream is under way
    proc.send_signal(signal.SIGTERM)
    t.join(30)
    assert got.get("status") == 200
    assert got["body"].rstrip().endswith("data: [DONE]")  # every chunk, then the end
    assert proc.wait(timeout=30) == 0


def test_workers_flag_and_banner(tmp_path):
    proxy, hc = build_configs(build_parser().parse_args(
        ["proxy", "--workers", "3", "--ccr-path", str(tmp_path / "c.sqlite3"), "--metrics-db", str(tmp_path / "m.db")]))
    text = banner(proxy, hc)
    assert proxy.workers == 3 and "3 workers" in text and "mode optimize" in text
    assert "export OPENAI_BASE_URL=http://127.0.0.1:8787/v1" in text
    assert "export ANTHROPIC_BASE_URL=http://127.0.0.1:8787\n" in text
    assert str(tmp_path / "c.sqlite3") in text and str(tmp_path / "m.db") in text
    auto = build_configs(build_parser().parse_args(["proxy", "--workers", "auto"]))[0]
    assert auto.workers == len(os.sched_getaffinity(0))
    assert len(text.splitlines()) <= 7
