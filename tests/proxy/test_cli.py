"""`headroom proxy` flags map onto ProxyConfig and HeadroomConfig; the command really serves."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time

import httpx

from headroom.cli import build_parser
from headroom.cli.cmd_proxy import build_configs


def parse(*argv: str):
    return build_configs(build_parser().parse_args(["proxy", *argv]))


def test_defaults():
    proxy, hc = parse()
    assert (proxy.host, proxy.port, proxy.mode) == ("127.0.0.1", 8787, "optimize")
    assert hc.ccr.backend == "sqlite" and hc.ccr.inject_tool and not hasattr(proxy, "inject_tool")  # one switch
    assert proxy.metrics_db == "headroom.db" and proxy.admin_token is None
    assert not hc.llmlingua.enabled


def test_every_flag():
    proxy, hc = parse(
        "--host", "0.0.0.0", "--port", "9999", "--openai-api-url", "http://o", "--anthropic-api-url", "http://a",
        "--mode", "audit", "--no-ccr-inject-tool", "--ccr-backend", "redis", "--redis-url", "redis://r:1/2",
        "--max-body-mb", "5", "--llmlingua", "--llmlingua-device", "cuda", "--admin-token", "tok",
        "--log-level", "debug", "--allowed-host", "proxy.lan", "--metrics-db", "m.jsonl", "--compression-timeout", "2",
    )
    assert (proxy.host, proxy.port, proxy.mode) == ("0.0.0.0", 9999, "audit")
    assert (proxy.openai_api_url, proxy.anthropic_api_url) == ("http://o", "http://a")
    assert not hc.ccr.inject_tool
    assert (hc.ccr.backend, hc.ccr.redis_url) == ("redis", "redis://r:1/2")
    assert proxy.max_body_bytes == 5 * 1024 * 1024
    assert hc.llmlingua.enabled and hc.llmlingua.device == "cuda"
    assert proxy.admin_token == "tok" and proxy.log_level == "debug"
    assert "proxy.lan" in proxy.allowed_hosts and proxy.host_allowed("0.0.0.0")
    assert proxy.metrics_db == "m.jsonl" and proxy.compression_timeout_s == 2
    assert parse("--no-metrics")[0].metrics_db is None


def test_ttl_from_environment(monkeypatch):
    monkeypatch.setenv("HEADROOM_CCR_TTL_SECONDS", "7200")
    assert parse()[1].ccr.store_ttl_seconds == 7200


def test_command_serves_health(tmp_path):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    cmd = [sys.executable, "-m", "headroom", "proxy", "--port", str(port), "--ccr-path", str(tmp_path / "ccr.sqlite3"),
           "--metrics-db", str(tmp_path / "m.db"), "--log-level", "warning"]
    proc = subprocess.Popen(cmd, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})
    try:
        deadline = time.monotonic() + 120  # warm-up loads MiniLM and the image router first
        while True:
            try:
                r = httpx.get(f"http://127.0.0.1:{port}/health", timeout=1)
                break
            except httpx.TransportError:
                assert proc.poll() is None, proc.stdout.read().decode()
                assert time.monotonic() < deadline, "proxy did not start"
                time.sleep(0.2)
        assert r.json()["status"] == "ok" and r.json()["mode"] == "optimize"
        assert "server" not in r.headers
    finally:
        proc.terminate()
        proc.wait(timeout=10)
