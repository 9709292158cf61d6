"""Small process helpers for the captures (loopback only, bounded waits)."""

from __future__ import annotations

import contextlib
import socket
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path


def run(cmd: list[str], *, check: bool = True, timeout: float = 300, **kw) -> subprocess.CompletedProcess:
    return subprocess.run(cmd, capture_output=True, text=True, check=check, timeout=timeout, **kw)


def pinned_tool(work: Path, release: str, executable: str) -> Path:
    """``release`` (e.g. "pylint==3.3.1") installed into a throwaway venv under ``work``,
    so the capture does not depend on, or change, the shared venv; its executable."""
    venv = work / "venv"
    run([sys.executable, "-m", "venv", str(venv)])
    run([str(venv / "bin" / "pip"), "install", "--disable-pip-version-check", "-q", release], timeout=900)
    return venv / "bin" / executable


def git_env(author: str = "Dana Ruiz", date: str = "2026-11-30 10:00:00 +0000") -> dict[str, str]:
    """An environment for git run by a capture: one author and committer at a fixed clock, no
    system or user configuration, so the same commands make the same commit ids."""
    email = f"{author.split()[0].lower()}@shop.example"
    return {"PATH": "/usr/bin:/bin", "LC_ALL": "C", "HOME": "/nonexistent", "GIT_CONFIG_NOSYSTEM": "1",
            "GIT_AUTHOR_NAME": author, "GIT_AUTHOR_EMAIL": email, "GIT_COMMITTER_NAME": author,
            "GIT_COMMITTER_EMAIL": email, "GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_for(ready: Callable[[], bool], timeout: float = 20.0) -> None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        with contextlib.suppress(Exception):  # any client error just means "not ready yet"
            if ready():
                return
        time.sleep(0.1)
    raise TimeoutError("service did not become ready")


@contextlib.contextmanager
def redis_server(work: Path, *options: str):
    """A throwaway loopback redis-server (no persistence, ``options`` appended), ready when
    entered: yields its port and the ``redis-cli`` command for it; shut down on leaving."""
    port = free_port()
    proc = subprocess.Popen(["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--save", "",
                             "--appendonly", "no", "--dir", str(work), *options],
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    cli = ["redis-cli", "-p", str(port)]
    try:
        wait_for(lambda: run([*cli, "PING"], check=False).stdout.strip() == "PONG")
        yield port, cli
    finally:
        run([*cli, "SHUTDOWN", "NOSAVE"], check=False)
        proc.wait(timeout=20)
