"""Run an ASGI app (a fake provider, the proxy) under uvicorn on 127.0.0.1 in a thread.

Shared by every test folder that needs a real loopback server; the port is picked by the
OS, so suites can run side by side.
"""

from __future__ import annotations

import socket
import threading
import time
from typing import Any, Self

import uvicorn


class ServerThread:
    """An ASGI app under uvicorn on 127.0.0.1 (a free port), in a background thread."""

    def __init__(self, app: Any, *, log_level: str = "critical"):
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self.sock.bind(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        config = uvicorn.Config(app, log_level=log_level, lifespan="on", backlog=2048, timeout_graceful_shutdown=2)
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, kwargs={"sockets": [self.sock]}, daemon=True)

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def __enter__(self) -> Self:
        self.thread.start()
        deadline = time.monotonic() + 60  # lifespan warm-up loads models first
        while not self.server.started:
            if time.monotonic() > deadline or not self.thread.is_alive():
                raise RuntimeError("server did not start")
            time.sleep(0.01)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(timeout=10)
        self.sock.close()


class ProxyProcess:
    """``headroom.proxy.serve`` in a process of its own (uvicorn's supervisor and workers
    when ``workers`` > 1), on a free port, until the context exits (SIGTERM, drained).

    ``proxy`` and ``headroom`` are field dicts for ProxyConfig and HeadroomConfig; the
    image stage is off unless ``headroom`` says otherwise, so workers start in seconds.
    """

    SCRIPT = (
        "import json, sys\n"
        "from headroom.config import HeadroomConfig\n"
        "from headroom.proxy import ProxyConfig, serve\n"
        "proxy, headroom = json.loads(sys.argv[1]), json.loads(sys.argv[2])\n"
        "serve(ProxyConfig(**proxy), HeadroomConfig.model_validate(headroom))\n"
    )

    def __init__(self, proxy: dict[str, Any], headroom: dict[str, Any] | None = None):
        import json

        self.port = _free_port()
        self.proxy = {"port": self.port, "log_level": "warning", "metrics_db": None, **proxy}
        self.headroom = {"image": {"enabled": False}, **(headroom or {})}
        self.url = f"http://127.0.0.1:{self.port}"
        self.args = [json.dumps(self.proxy), json.dumps(self.headroom)]
        self.proc: Any = None

    def __enter__(self) -> Self:
        import os
        import subprocess
        import sys
        from pathlib import Path

        import httpx

        root = Path(__file__).resolve().parents[1]
        self.proc = subprocess.Popen([sys.executable, "-c", self.SCRIPT, *self.args], cwd=root,
                                     env={**os.environ, "PYTHONPATH": str(root)}, stdout=subprocess.PIPE,
                                     stderr=subprocess.STDOUT)
        self.workers: set[int] = set()
        deadline = time.monotonic() + 120
        while len(self.workers) < self.proxy.get("workers", 1):
            if self.proc.poll() is not None:
                raise RuntimeError(f"proxy exited: {self.proc.stdout.read().decode()[-3000:]}")
            if time.monotonic() > deadline:
                raise RuntimeError(f"only workers {self.workers} came up")
            try:
                with httpx.Client() as fresh:  # a new connection: any worker may take it
                    self.workers.add(fresh.get(f"{self.url}/health", timeout=2).json()["worker"])
            except httpx.TransportError:
                time.sleep(0.2)
        return self

    def __exit__(self, *exc: object) -> None:
        import signal

        if self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            self.proc.wait(timeout=30)


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def stream_in_background(url: str, chunks: int, delay_ms: int = 100) -> tuple[Any, dict[str, Any]]:
    """A streamed chat through the proxy at ``url`` from the fake provider (``chunks``
    chunks, ``delay_ms`` apart), read in a started thread; the dict gets its status and body."""
    import httpx

    got: dict[str, Any] = {}

    def stream() -> None:
        with httpx.stream("POST", f"{url}/v1/chat/completions", timeout=60, json={
                "model": "gpt-4o", "stream": True, "messages": [{"role": "user", "content": "stream me"}]},
                headers={"x-fake-chunks": str(chunks), "x-fake-delay-ms": str(delay_ms)}) as r:
            got["status"] = r.status_code
            got["body"] = b"".join(r.iter_bytes()).decode()

    t = threading.Thread(target=stream)
    t.start()
    return t, got
