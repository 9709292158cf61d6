"""Relaying upstream bodies to the client: plain, streamed, and streamed through the CCR loop.

:class:`RelayResponse` is a Starlette response that streams an async iterator *and*
watches for the client going away: on disconnect it stops the iterator at once (which
closes the upstream request), instead of noticing only at the next write. That matters
while a turn is buffered for the retrieval loop and nothing is being written.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx
from starlette.responses import Response

from ..formats import adapter

log = logging.getLogger("headroom.proxy")


def sse_error_event(fmt: str, message: str, kind: str = "api_error", status: int | None = None) -> bytes:
    """An SSE error event the SDKs of ``fmt``'s provider raise on."""
    return adapter(fmt).error_event(message, kind, status)


async def relay_chunks(resp: httpx.Response, fmt: str | None) -> AsyncIterator[bytes]:
    """The upstream body as it arrives; a broken upstream stream ends with an error event."""
    try:
        async for chunk in resp.aiter_bytes():
            yield chunk
    except httpx.HTTPError as exc:
        if fmt is not None:
            yield sse_error_event(fmt, f"upstream stream failed: {type(exc).__name__}", "upstream_error")
    except Exception as exc:  # end the stream with an error event, never silently
        log.error("relaying the upstream stream failed", exc_info=exc)
        if fmt is not None:
            yield sse_error_event(fmt, f"headroom could not relay the upstream's stream: {type(exc).__name__}",
                                  "upstream_error")
    finally:
        await resp.aclose()


class RelayResponse(Response):
    def __init__(self, body: AsyncIterator[bytes], status_code: int, headers: dict[str, str],
                 on_close: Callable[[bool], None] | None = None):
        self.body_iterator = body
        self.status_code = status_code
        self.background = None
        self.on_close = on_close
        self.init_headers(headers)

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        disconnected = False

        async def pump() -> None:
            await send({"type": "http.response.start", "status": self.status_code, "headers": self.raw_headers})
            async for chunk in self.body_iterator:
                await send({"type": "http.response.body", "body": chunk, "more_body": True})
            await send({"type": "http.response.body", "body": b"", "more_body": False})

        async def watch() -> None:
            while (await receive())["type"] != "http.disconnect":
                pass

        pump_task = asyncio.ensure_future(pump())
        watch_task = asyncio.ensure_future(watch())
        try:
            done, _ = await asyncio.wait({pump_task, watch_task}, return_when=asyncio.FIRST_COMPLETED)
            if pump_task not in done:
                disconnected = True
            elif pump_task.exception() is not None:
                exc = pump_task.exception()
                disconnected = isinstance(exc, OSError)  # the client went away mid-write
                if not disconnected:
                    log.error("relaying the upstream response failed", exc_info=exc)
        finally:
            for task in (pump_task, watch_task):
                task.cancel()
            await asyncio.gather(pump_task, watch_task, return_exceptions=True)
            aclose = getattr(self.body_iterator, "aclose", None)
            if aclose is not None:
                await aclose()  # runs the iterator's finally: the upstream request is closed
            if self.on_close is not None:
                self.on_close(disconnected)
