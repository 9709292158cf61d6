"""Abandon upstream work the moment the client goes away.

Starlette runs a route to completion even when the client has disconnected; only a
streaming body notices, and only at its next write. So a client that gave up on a slow
answer left its upstream request open until the provider answered (or 600 s passed),
burning provider tokens for nobody (issue 12, F3). :func:`until_disconnect` runs the
upstream part of a request as a task and cancels it when ``http.disconnect`` arrives;
cancelling closes the httpx request, so the provider sees the connection drop.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

T = TypeVar("T")


class ClientDisconnected(Exception):
    """The client closed the connection before the answer was ready."""


async def until_disconnect(receive: Callable[[], Awaitable[dict[str, Any]]], work: Awaitable[T]) -> T:
    """``await work``, unless the client disconnects first: then cancel it and raise ClientDisconnected.

    Call only once the request body has been read: every message after it is a disconnect.
    """
    task = asyncio.ensure_future(work)

    async def gone() -> None:
        while (await receive())["type"] != "http.disconnect":
            pass

    watcher = asyncio.ensure_future(gone())
    try:
        done, _ = await asyncio.wait({task, watcher}, return_when=asyncio.FIRST_COMPLETED)
    finally:
        loser = watcher if task.done() else task
        loser.cancel()
        await asyncio.gather(loser, return_exceptions=True)
    if task in done:
        return task.result()
    raise ClientDisconnected
