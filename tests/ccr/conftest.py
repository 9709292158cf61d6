"""Shared fixtures for the CCR tests: a real redis-server on 127.0.0.1.

Locally a missing ``redis-server`` binary skips the Redis tests with a reason; in CI
(``CI`` set) it fails them, because CI must prove the Redis backend works.
"""

from __future__ import annotations

import os
import shutil
import socket
import subprocess
import time
from collections.abc import Iterator

import pytest


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _need_redis_binary() -> str:
    binary = shutil.which("redis-server")
    if binary is None:
        msg = "redis-server binary not found (apt-get install -y redis-server)"
        if os.environ.get("CI"):
            pytest.fail(f"{msg}; CI must run the Redis tests", pytrace=False)
        pytest.skip(msg)
    return binary


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory) -> Iterator[str]:
    """URL of a private redis-server for this test session (no persistence)."""
    binary = _need_redis_binary()
    import redis

    port = free_port()
    workdir = tmp_path_factory.mktemp("redis")
    proc = subprocess.Popen(
        [
            binary,
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            str(workdir),
            "--protected-mode",
            "yes",
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.STDOUT,
    )
    url = f"redis://127.0.0.1:{port}/0"
    client = redis.Redis.from_url(url)
    deadline = time.monotonic() + 10
    while True:
        try:
            client.ping()
            break
        except redis.ConnectionError:
            if proc.poll() is not None or time.monotonic() > deadline:
                proc.kill()
                pytest.fail(f"redis-server did not start on port {port} (exit code {proc.poll()})")
            time.sleep(0.05)
    client.close()
    try:
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            proc.kill()


@pytest.fixture
def redis_url(redis_server: str) -> Iterator[str]:
    """The session redis-server, emptied before each test."""
    import redis

    client = redis.Redis.from_url(redis_server)
    client.flushall()
    client.close()
    yield redis_server


