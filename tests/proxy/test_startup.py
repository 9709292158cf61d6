"""``headroom proxy`` start-up: failures are one line naming the fix; success prints one short block."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]


def run_cli(*args: str, env: dict | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "headroom", "proxy", *args], capture_output=True, text=True, check=False,
                          timeout=120, cwd=cwd or ROOT, env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})})


def one_line_error(proc: subprocess.CompletedProcess) -> str:
    assert proc.returncode != 0
    lines = [ln for ln in proc.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1 and "Traceback" not in proc.stderr, proc.stderr
    return lines[0]


@pytest.fixture
def busy_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        yield s.getsockname()[1]


def test_bad_headroom_setting_is_one_line(tmp_path):
    line = one_line_error(run_cli("--port", "0", env={"HEADROOM_CCR_TTL_SECONDS": "soon"}, cwd=tmp_path))
    assert "HEADROOM_CCR_TTL_SECONDS must be an integer number of seconds, got 'soon'" in line


def test_unreachable_redis_is_one_line(tmp_path, busy_port):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        closed = s.getsockname()[1]  # nothing listens once the socket closes
    line = one_line_error(run_cli("--ccr-backend", "redis", "--redis-url", f"redis://:pw@127.0.0.1:{closed}/0",
                                  cwd=tmp_path))
    assert "cannot reach Redis at redis://" in line and "pw" not in line
    assert "start redis-server" in line and "--ccr-backend sqlite" in line


def test_port_in_use_is_one_line(tmp_path, busy_port):
    line = one_line_error(run_cli("--port", str(busy_port), cwd=tmp_path))
    assert f"port {busy_port}" in line and "--port" in line


def test_bad_workers_value_is_one_line(tmp_path):
    assert "--workers takes a number or 'auto'" in one_line_error(run_cli("--workers", "many", cwd=tmp_path))


def test_a_missing_model_fails_before_the_banner_in_one_line(tmp_path):
    proc = run_cli("--llmlingua", "--llmlingua-model-path", str(tmp_path / "nowhere"), "--workers", "2", cwd=tmp_path)
    line = one_line_error(proc)
    assert "llmlingua-2" in line and "does not exist" in line
    assert "listening on" not in proc.stdout  # nothing claims to serve
