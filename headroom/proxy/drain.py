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
"""

from __future__ import annotations

import signal
import threading
from typing import Any

_CLOSE = (b"connection", b"close")


class Drain:
    """The lame-duck state of one worker process."""

    def __init__(self, delay_s: float = 0.0):
        self.delay_s = delay_s
        self.draining = False

    def install(self) -> bool:
        """Put the lame duck in front of the SIGTERM handler the server installed.

        Only where a delay is set, in the main thread (where signal handlers live), and
        over a handler that can be called later (uvicorn's); False where nothing was done."""
        if self.delay_s <= 0 or threading.current_thread() is not threading.main_thread():
            return False
        shutdown = signal.getsignal(signal.SIGTERM)
        if not callable(shutdown):
            return False

        def on_term(sig: int, frame: Any) -> None:
            if self.draining:  # a second SIGTERM: no more waiting
                shutdown(sig, frame)
                return
            self.draining = True
            # The server's handler only sets flags its loop polls, so a timer thread may call it.
            timer = threading.Timer(self.delay_s, shutdown, args=(sig, None))
            timer.daemon = True
            timer.start()

        signal.signal(signal.SIGTERM, on_term)
        return True


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
