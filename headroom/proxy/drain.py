"""A lame-duck period between SIGTERM and shutdown (``--drain-delay S``), for replicas
behind a balancer that keeps connections open to them.

Why: on SIGTERM uvicorn closes every idle keep-alive connection at once. A balancer that
has just picked one of them to send a request on gets the close after the request left,
and it does not resend a POST that reached a replica (the replica may have forwarded it:
the provider would bill it twice), so the client sees a 502 (nginx's ``proxy_next_upstream
error``; seen in tests/deploy as one 502 in about 200 requests, now and then).

What this does: on the first SIGTERM the worker keeps serving for ``delay_s`` but answers
every request with ``Connection: close`` and ``/health`` with 503 ``draining``. Each
connection the balancer uses is closed by the replica after its answer, so it is never
reused; an idle one is closed by the balancer itself once its keep-alive timeout passes
(deploy/nginx.conf: 4 s < the 5 s the Dockerfile sets). Then uvicorn's own shutdown runs:
it stops accepting (a refused connection is resent by the balancer to another replica)
and in-flight requests get ``--drain-timeout`` to finish. A second SIGTERM, or SIGINT
(Ctrl-C), stops at once, as before. With ``delay_s`` 0 (the default) nothing changes.

How it stops accepting matters too (``stop_accepting``). Closing a listening socket resets
every connection the kernel has completed but the server has not accepted yet, and uvicorn
then closes each accepted connection that has not delivered its request: both are
connections the balancer has already sent a POST on, so both were 502s (one in the drain
test now and then, after the lame duck above). So the worker first accepts whatever the
kernel holds, in the same step that closes the socket, and waits (``settle_s`` at most)
until each open connection has its request in hand before uvicorn's shutdown runs.
"""

from __future__ import annotations

import asyncio
import logging
import os
import signal
import socket
import threading
from typing import Any

log = logging.getLogger(__name__)

_CLOSE = (b"connection", b"close")


class Drain:
    """The lame-duck state of one worker process."""

    def __init__(self, delay_s: float = 0.0, settle_s: float = 2.0):
        self.delay_s = delay_s
        self.settle_s = settle_s  # the longest wait for accepted connections' requests
        self.draining = False

    def install(self) -> bool:
        """Put the lame duck in front of the SIGTERM handler the server installed.

        Only where a delay is set, in the main thread (where signal handlers live), and
        over a handler that can be called later (uvicorn's); False where nothing was done.
        Called on the server's loop (the app's start-up), whose listening sockets the end
        of the delay closes (``stop_accepting``) when the handler is a uvicorn Server's."""
        if self.delay_s <= 0 or threading.current_thread() is not threading.main_thread():
            return False
        shutdown = signal.getsignal(signal.SIGTERM)
        if not callable(shutdown):
            return False
        server = getattr(shutdown, "__self__", None)  # uvicorn's handler is its Server's method
        try:
            loop: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            loop = None

        def finish(sig: int) -> None:  # in the timer's thread
            if loop is not None and hasattr(server, "servers") and not loop.is_closed():
                try:
                    asyncio.run_coroutine_threadsafe(stop_accepting(server, self.settle_s), loop).result(
                        self.settle_s + 5)
                except Exception:  # never keep the worker from shutting down
                    log.warning("drain: closing the listening sockets failed; shutting down anyway", exc_info=True)
            # The server's handler only sets flags its loop polls, so this thread may call it.
            shutdown(sig, None)

        def on_term(sig: int, frame: Any) -> None:
            if self.draining:  # a second SIGTERM: no more waiting
                shutdown(sig, frame)
                return
            self.draining = True
            timer = threading.Timer(self.delay_s, finish, args=(sig,))
            timer.daemon = True
            timer.start()

        signal.signal(signal.SIGTERM, on_term)
        return True


def _accept_queued(fd: int) -> list[socket.socket]:
    """Every connection the kernel has completed on listening socket ``fd``, accepted now."""
    listener = socket.socket(fileno=os.dup(fd))  # a second descriptor: closing it leaves the socket open
    accepted = []
    try:
        listener.setblocking(False)
        while True:
            try:
                conn, _ = listener.accept()
            except (BlockingIOError, InterruptedError):
                break
            except OSError:  # e.g. out of descriptors: what is left is reset, as before
                break
            conn.setblocking(False)
            accepted.append(conn)
    finally:
        listener.close()
    return accepted


def close_listeners(server: Any) -> list[tuple[Any, socket.socket]]:
    """Close ``server``'s listening sockets (asyncio Servers in ``server.servers``, as
    uvicorn's Server keeps them) after accepting what the kernel had completed on them.

    Synchronous on purpose: no other callback of the loop runs between the last accept and
    the close, so the only connection reset is one completed in those microseconds.
    Returns each accepted socket with the protocol factory of the server it came to."""
    accepted = []
    for srv in list(getattr(server, "servers", ()) or ()):
        factory = getattr(srv, "_protocol_factory", None)  # asyncio's Server keeps it; stable since 3.7
        if factory is not None:
            for listening in list(srv.sockets or ()):
                accepted += [(factory, conn) for conn in _accept_queued(listening.fileno())]
        srv.close()
    return accepted


def _awaits_request(connection: Any) -> bool:
    """An accepted connection whose request has not been read yet (uvicorn's h11 and
    httptools protocols start a request's cycle when its head is read)."""
    return getattr(connection, "cycle", False) is None


async def stop_accepting(server: Any, settle_s: float) -> None:
    """Stop accepting without losing a connection the balancer may have sent on: accept
    the kernel's queue and close (``close_listeners``), then wait, ``settle_s`` at most,
    until every open connection has its request in hand, so that uvicorn's shutdown,
    which closes connections without one, closes only idle ones."""
    loop = asyncio.get_running_loop()
    handed = [asyncio.ensure_future(loop.connect_accepted_socket(factory, conn))
              for factory, conn in close_listeners(server)]
    for future in handed:  # a peer gone meanwhile fails its hand-over: nothing to report
        future.add_done_callback(lambda f: f.cancelled() or f.exception())
    if handed:
        await asyncio.wait(handed, timeout=settle_s)
    deadline = loop.time() + settle_s
    state = getattr(server, "server_state", None)
    while loop.time() < deadline and any(_awaits_request(c) for c in list(getattr(state, "connections", ()))):
        await asyncio.sleep(0.02)


class DrainMiddleware:
    """While draining, every answer says ``Connection: close``: its connection is not reused."""

    def __init__(self, app: Any, drain: Drain):
        self.app = app
        self.drain = drain

    async def __call__(self, scope: dict, receive: Any, send: Any) -> None:
        if scope["type"] != "http" or not self.drain.draining:
            await self.app(scope, receive, send)
            return

        async def send_closing(message: dict) -> None:
            if message["type"] == "http.response.start":
                headers = [h for h in message.get("headers", []) if h[0].lower() != b"connection"]
                message = {**message, "headers": [*headers, _CLOSE]}
            await send(message)

        await self.app(scope, receive, send_closing)
