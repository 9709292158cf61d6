"""A wrapped session: the proxy found or started, the agent's exit code, the summary, the
started proxy stopped (headroom/wrap/session.py, local_proxy.py, summary.py)."""

from __future__ import annotations

import io
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.responses import JSONResponse

from headroom.wrap import SessionStats, WrapOptions, run_wrapped, summary_line
from headroom.wrap.local_proxy import get_json, is_headroom_health
from headroom.wrap.session import upstream_args
from tests.servers import ServerThread

ROOT = Path(__file__).resolve().parents[2]


def _stats(requests: int, before: int, after: int, retrievals: int) -> dict:
    return {"requests": {"total": requests}, "tokens": {"before": before, "after": after, "saved": before - after},
            "ccr": {"retrieve_calls_answered": retrievals}}


def _headroom_lookalike(stats: list[dict]) -> FastAPI:
    """/health shaped like headroom's; /stats answers the next of ``stats`` each time."""
    app = FastAPI()

    @app.get("/health")
    async def health():
        return JSONResponse({"status": "ok", "version": "0", "mode": "optimize", "worker": 1})

    @app.get("/stats")
    async def stats_route():
        return JSONResponse(stats.pop(0) if len(stats) > 1 else stats[0])

    return app


def test_summary_line_counts_only_this_session():
    before = SessionStats.from_stats(_stats(10, 5000, 4000, 2))
    after = SessionStats.from_stats(_stats(13, 21471, 13146, 3))
    line = summary_line(after - before)
    assert line.startswith("headroom: 3 requests, 16,471 -> 9,146 input tokens (7,325 saved, 44.5%)")
    assert "1 retrieval answered" in line
    assert "shared" in summary_line(after - before, shared=True)
    assert "could not be read" in summary_line(None)


def test_a_running_headroom_proxy_is_reused_and_the_exit_code_passes_through(tmp_path):
    stats = [_stats(4, 100, 90, 0), _stats(6, 16571, 9236, 1)]
    out = io.StringIO()
    seen = tmp_path / "env.txt"
    code = ("import os, sys; open(sys.argv[1], 'w').write(os.environ['OPENAI_BASE_URL'] + ' ' + "
            "os.environ['ANTHROPIC_BASE_URL']); sys.exit(7)")
    with ServerThread(_headroom_lookalike(stats)) as fake:
        rc = run_wrapped(None, [sys.executable, "-c", code, str(seen)],
                         WrapOptions(port=fake.port, out=out, state_dir=tmp_path / "state"))
    assert rc == 7
    assert seen.read_text() == f"{fake.url}/v1 {fake.url}"
    text = out.getvalue()
    assert f"using the proxy already running on {fake.url}" in text
    assert "2 requests, 16,471 -> 9,146 input tokens" in text and "1 retrieval" in text
    assert not (tmp_path / "state").exists()  # nothing started, nothing written


def test_a_missing_agent_fails_before_any_proxy_starts(tmp_path, monkeypatch):
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(FileNotFoundError, match="npm install -g @anthropic-ai/claude-code"):
        run_wrapped("claude", [], WrapOptions(port=1, state_dir=tmp_path / "state"))
    assert not (tmp_path / "state").exists()


def test_a_users_own_provider_urls_become_the_started_proxys_upstreams():
    env = {"ANTHROPIC_BASE_URL": "https://gw.example.com/anthropic/", "OPENAI_BASE_URL": "https://gw.example.com/v1"}
    assert upstream_args(env, [], 8787) == ["--anthropic-api-url=https://gw.example.com/anthropic",
                                           "--openai-api-url=https://gw.example.com"]
    # an explicit --proxy-arg wins; a URL naming a local headroom port is no upstream
    assert upstream_args(env, ["--openai-api-url", "http://x"], 8787) == [
        "--anthropic-api-url=https://gw.example.com/anthropic"]
    assert upstream_args({"OPENAI_BASE_URL": "http://127.0.0.1:8787/v1"}, [], 8787) == []
    assert upstream_args({"ANTHROPIC_BASE_URL": "http://localhost:9000"}, [], 9000) == []
    assert upstream_args({}, [], 8787) == []


def test_not_every_health_answer_is_headroom():
    assert is_headroom_health({"status": "ok", "version": "1", "mode": "optimize", "worker": 3})
    assert not is_headroom_health({"status": "ok"})
    assert not is_headroom_health(None)


@pytest.mark.slow
def test_a_started_proxy_serves_the_session_and_stops_when_wrap_is_terminated(tmp_path):
    """`headroom wrap -- CMD` with nothing headroom on the port: a proxy is started on a free
    port, SIGTERM to wrap reaches the command, and the proxy is gone afterwards."""
    ready = tmp_path / "ready"
    agent = ("import os, signal, sys, time, urllib.request\n"
             "url = os.environ['ANTHROPIC_BASE_URL']\n"
             "health = urllib.request.urlopen(url + '/health').read().decode()\n"
             "signal.signal(signal.SIGTERM, lambda *a: sys.exit(42))\n"
             "open(sys.argv[1], 'w').write(url + '\\n' + health)\n"
             "time.sleep(120)\n")
    with ServerThread(FastAPI()) as other:  # something that is not headroom holds the port
        env = {**os.environ, "PYTHONPATH": str(ROOT), "HEADROOM_STATE_DIR": str(tmp_path / "state")}
        proc = subprocess.Popen([sys.executable, "-m", "headroom", "wrap", "--port", str(other.port),
                                 "--", sys.executable, "-c", agent, str(ready)],
                                env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        try:
            deadline = time.monotonic() + 120
            while not (ready.exists() and ready.read_text().count("\n")):
                assert proc.poll() is None, proc.communicate()
                assert time.monotonic() < deadline, "the wrapped command never ran"
                time.sleep(0.1)
            url, health = ready.read_text().split("\n", 1)
            assert url != other.url and is_headroom_health(__import__("json").loads(health))
            proc.send_signal(signal.SIGTERM)
            _, err = proc.communicate(timeout=60)
        finally:
            if proc.poll() is None:
                proc.kill()
    assert proc.returncode == 42, err
    assert f"started a proxy on {url}" in err and "0 requests" in err
    assert get_json(url + "/health", timeout=1) is None  # the started proxy is gone


def test_a_proxy_that_cannot_start_is_reported_with_its_log(tmp_path):
    from headroom.wrap import start

    with pytest.raises(OSError, match=r"exited with code 2 before answering(.|\n)*invalid choice"):
        start(["--mode", "nonsense"], directory=tmp_path)
    assert list(tmp_path.glob("proxy-*.log"))
