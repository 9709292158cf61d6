"""A headroom proxy on this machine for a wrapped agent: the one already running on the
port, or one started for the agent's lifetime.

The started proxy is `python -m headroom proxy` in its own session, so the Ctrl-C a user
types at the agent (which interrupts a turn, not the agent) never reaches it; it writes
its log, metrics and CCR store under a state directory, never in the user's project.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path
from typing import Any

DEFAULT_HOST = "127.0.0.1"
DEFAULT_PORT = 8787
START_TIMEOUT_S = 120.0  # the first start loads tokenizers and optional models
STOP_TIMEOUT_S = 30.0


def state_dir(environ: dict[str, str] | os._Environ[str] | None = None) -> Path:
    """Where a started proxy keeps its files: $HEADROOM_STATE_DIR, else the XDG state home."""
    env = os.environ if environ is None else environ
    explicit = env.get("HEADROOM_STATE_DIR")
    if explicit:
        return Path(explicit).expanduser()
    base = env.get("XDG_STATE_HOME") or os.path.join(os.path.expanduser("~"), ".local", "state")
    return Path(base) / "headroom"


def get_json(url: str, timeout: float = 2.0) -> dict[str, Any] | None:
    """GET ``url`` as JSON, or None when nothing (or nothing JSON) answers there."""
    try:
        with urllib.request.urlopen(url, timeout=timeout) as resp:
            data = json.loads(resp.read())
    except (OSError, ValueError, urllib.error.URLError):
        return None
    return data if isinstance(data, dict) else None


def is_headroom_health(data: dict[str, Any] | None) -> bool:
    """Whether a /health answer is a headroom proxy's (its status, version, mode and worker)."""
    return bool(data) and {"status", "version", "mode", "worker"} <= set(data or {})


def base_url(host: str, port: int) -> str:
    return f"http://{'[' + host + ']' if ':' in host else host}:{port}"


def free_port(host: str = DEFAULT_HOST) -> int:
    with socket.socket(socket.AF_INET6 if ":" in host else socket.AF_INET) as s:
        s.bind((host, 0))
        return s.getsockname()[1]


@dataclass
class StartedProxy:
    """A proxy process this session started; ``stop()`` ends it (SIGTERM, drained)."""

    url: str
    process: subprocess.Popen
    log_path: Path

    def stop(self) -> None:
        if self.process.poll() is not None:
            return
        try:
            self.process.send_signal(signal.SIGTERM)
            self.process.wait(timeout=STOP_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            self.process.kill()
            self.process.wait(timeout=5)
        except ProcessLookupError:
            pass

    def log_tail(self, n: int = 20) -> str:
        try:
            return "\n".join(self.log_path.read_text(errors="replace").splitlines()[-n:])
        except OSError:
            return ""


def find_running(host: str = DEFAULT_HOST, port: int = DEFAULT_PORT) -> str | None:
    """The URL of a headroom proxy answering on host:port, or None."""
    url = base_url(host, port)
    return url if is_headroom_health(get_json(url + "/health", timeout=1.0)) else None


def start(proxy_args: list[str] | None = None, *, host: str = DEFAULT_HOST, port: int | None = None,
          directory: Path | None = None, timeout_s: float = START_TIMEOUT_S) -> StartedProxy:
    """Start `headroom proxy` on a free loopback port and wait until its /health answers."""
    directory = directory or state_dir()
    directory.mkdir(parents=True, exist_ok=True)
    port = port or free_port(host)
    log_path = directory / f"proxy-{port}.log"
    cmd = [sys.executable, "-m", "headroom", "proxy", "--host", host, "--port", str(port),
           "--metrics-db", str(directory / "headroom.db"), "--ccr-path", str(directory / "headroom_ccr.sqlite3"),
           *(proxy_args or [])]
    # The child runs in the state directory; it must import the same headroom as this one.
    package_root = str(Path(__file__).resolve().parents[2])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in (package_root, os.environ.get("PYTHONPATH")) if p)}
    log = open(log_path, "ab")  # noqa: SIM115 - handed to the child, closed below
    try:
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT,
                                cwd=directory, env=env, start_new_session=True)
    finally:
        log.close()
    started = StartedProxy(base_url(host, port), proc, log_path)
    try:
        _wait_healthy(started, timeout_s)
    except BaseException:  # a Ctrl-C while waiting too: its own session would outlive us
        started.stop()
        raise
    return started


def _wait_healthy(started: StartedProxy, timeout_s: float) -> None:
    proc, log_path = started.process, started.log_path
    deadline = time.monotonic() + timeout_s
    while True:
        if proc.poll() is not None:
            raise OSError(f"the headroom proxy exited with code {proc.returncode} before answering; "
                          f"its log ({log_path}) ends:\n{started.log_tail()}")
        if is_headroom_health(get_json(started.url + "/health", timeout=1.0)):
            return
        if time.monotonic() > deadline:
            raise OSError(f"the headroom proxy did not answer on {started.url} within {timeout_s:.0f} s; "
                          f"see {log_path}")
        time.sleep(0.1)
