"""``--drain-delay S``: after SIGTERM a replica keeps serving for S seconds, closing each
connection after its answer and telling /health callers it is draining; then it shuts
down as before (proxy/drain.py). Without it, a balancer's kept-alive connection could be
closed under a POST it had just sent: a 502 nginx does not resend (tests/deploy saw one).
"""

from __future__ import annotations

import signal
import socket
import threading
import time

import httpx
import pytest

from headroom.proxy.drain import stop_accepting
from tests.servers import ProxyProcess, ServerThread, stream_in_background


def _chat(client: httpx.Client, url: str, text: str) -> httpx.Response:
    return client.post(f"{url}/v1/chat/completions", timeout=30,
                       json={"model": "gpt-4o", "messages": [{"role": "user", "content": text}]})


def test_after_sigterm_a_kept_connection_is_answered_then_closed(fake):
    # Two workers: the deploy's way (--workers auto), where uvicorn's supervisor passes the
    # signal to each worker; one process runs the same Server and handler.
    workers = 2
    delay = 2.0
    with ProxyProcess({"openai_api_url": fake.url, "anthropic_api_url": fake.url, "workers": workers,
                       "drain_delay_s": delay}) as proxy:
        with httpx.Client() as kept:  # one kept-alive connection, opened before the signal
            first = _chat(kept, proxy.url, "before")
            assert first.status_code == 200 and first.headers.get("connection") != "close"
            proxy.proc.send_signal(signal.SIGTERM)
            signalled = time.monotonic()
            time.sleep(0.5)
            # The same connection: answered (not reset under the request), and closed after.
            during = _chat(kept, proxy.url, "during")
            assert during.status_code == 200, during.text
            assert during.headers["connection"] == "close"
            health = httpx.get(f"{proxy.url}/health", timeout=5)
            assert health.status_code == 503 and health.json()["status"] == "draining"
            assert health.headers["connection"] == "close"
        assert proxy.proc.poll() is None  # still serving inside the delay
        proxy.proc.wait(timeout=30)
        assert time.monotonic() - signalled >= delay - 0.5  # it did wait
        # uvicorn re-raises the signal it caught once it has shut down: a single process
        # ends "killed by SIGTERM", a supervisor of workers exits 0.
        assert proxy.proc.returncode in (0, -signal.SIGTERM)


def test_a_second_sigterm_stops_at_once(fake):
    with ProxyProcess({"openai_api_url": fake.url, "anthropic_api_url": fake.url, "drain_delay_s": 60}) as proxy:
        proxy.proc.send_signal(signal.SIGTERM)
        time.sleep(0.5)
        assert httpx.get(f"{proxy.url}/health", timeout=5).json()["status"] == "draining"
        proxy.proc.send_signal(signal.SIGTERM)
        proxy.proc.wait(timeout=15)  # not the 60 s delay


async def _ok(scope, receive, send):
    """The smallest app: reads the request, answers 200 ``ok``."""
    if scope["type"] == "lifespan":
        while True:
            kind = (await receive())["type"]
            await send({"type": f"{kind}.complete"})
            if kind == "lifespan.shutdown":
                return
    while (await receive()).get("more_body"):
        pass
    await send({"type": "http.response.start", "status": 200, "headers": [(b"content-length", b"2")]})
    await send({"type": "http.response.body", "body": b"ok"})


_REQUEST = b"POST /v1/chat/completions HTTP/1.1\r\nHost: replica\r\nContent-Length: 2\r\n\r\n{}"


def _answer(sock: socket.socket) -> bytes:
    sock.settimeout(10)
    try:
        return sock.recv(4096)
    except OSError as exc:  # a reset: what a balancer turns into a 502
        return type(exc).__name__.encode()


def test_the_end_of_the_drain_answers_what_the_kernel_had_already_connected():
    """The moment a drained worker stops accepting: connections the kernel completed but the
    server had not accepted yet (the balancer has sent its POST on them), and one whose
    request arrives only after the close, are answered, not reset."""
    with ServerThread(_ok) as server:
        loop = server.server.servers[0].get_loop()
        connected, done = threading.Event(), threading.Event()
        task: dict = {}

        def hold_then_stop() -> None:  # on the server's loop: while it waits, nothing is accepted
            connected.wait(10)
            task["stop"] = loop.create_task(stop_accepting(server.server, settle_s=3))
            task["stop"].add_done_callback(lambda _: done.set())

        loop.call_soon_threadsafe(hold_then_stop)
        time.sleep(0.2)
        queued = [socket.create_connection(("127.0.0.1", server.port), timeout=5) for _ in range(3)]
        for sock in queued[:2]:
            sock.sendall(_REQUEST)  # the third sends only after the close
        connected.set()
        late = threading.Timer(0.5, queued[2].sendall, args=(_REQUEST,))
        late.start()
        assert done.wait(10)
        server.server.should_exit = True  # uvicorn's shutdown: it closes connections without a request
        late.join()
        answers = [_answer(sock) for sock in queued]
        for sock in queued:
            sock.close()
        with pytest.raises(ConnectionRefusedError):  # and after the close, a new connection is refused
            socket.create_connection(("127.0.0.1", server.port), timeout=5)
    assert all(a.startswith(b"HTTP/1.1 200") for a in answers), answers


def test_workers_let_go_of_the_port_once_they_stop_accepting(fake):
    """With workers, the supervisor's copy of the listening socket kept the port accepting
    connections nobody would answer until it exited: a worker still finishing a stream kept
    it alive, and a balancer's POST waited on such a connection, then was reset."""
    delay = 1.0
    with ProxyProcess({"openai_api_url": fake.url, "anthropic_api_url": fake.url, "workers": 2,
                       "drain_delay_s": delay, "drain_timeout_s": 20}) as proxy:
        t, got = stream_in_background(proxy.url, chunks=60)  # about 6 s: it outlives the delay
        time.sleep(0.6)
        proxy.proc.send_signal(signal.SIGTERM)
        time.sleep(delay + 1.5)  # both workers have stopped accepting; one still streams
        assert t.is_alive() and proxy.proc.poll() is None
        with pytest.raises(ConnectionRefusedError):
            socket.create_connection(("127.0.0.1", proxy.port), timeout=5)
        t.join(30)
        assert got.get("status") == 200 and got["body"].rstrip().endswith("data: [DONE]")
        assert proxy.proc.wait(timeout=30) == 0
