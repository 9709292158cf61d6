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
