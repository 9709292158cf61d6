"""The upstream HTTP API as the exchange loop's transport (:mod:`headroom.exchange.driver`).

Every round of one client request goes to the same URL with the client's own headers.
The first round sends the bytes :func:`~headroom.proxy.forward.prepare` made (the
client's own bytes when nothing changed); later rounds send the loop's next body.
Whole answers come back as :class:`Reply` (status, headers, bytes); streams as SSE
events, relayed as the bytes of each network read that they release.
"""

from __future__ import annotations

import functools
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import httpx

from ..exchange.driver import Event
from ..formats.wire import SSEDecoder, SSEEvent, encode_event
from .jsonio import dumps
from .state import ProxyState


@dataclass
class Reply:
    """A whole upstream answer, read."""

    status_code: int
    headers: httpx.Headers
    data: bytes


class RoundRefused(Exception):
    """A later round of a stream got an error status: the client already has a 200 stream."""

    def __init__(self, status: int, detail: str):
        super().__init__(f"upstream returned {status} while headroom answered headroom_retrieve: {detail}")
        self.status = status


def event_data(event: SSEEvent) -> dict[str, Any] | None:
    try:
        data = json.loads(event.data)
    except ValueError:
        return None  # "[DONE]" and the like
    return data if isinstance(data, dict) else None


async def sse_events(resp: httpx.Response) -> AsyncIterator[list[tuple[SSEEvent, bytes]]]:
    """The stream's events with their bytes, one list per network read; the last event
    ended for the client even when the upstream left off its blank line (F9)."""
    decoder = SSEDecoder()
    try:
        async for chunk in resp.aiter_bytes():
            if events := decoder.feed(chunk):
                yield events
        if tail := SSEDecoder().feed(decoder.flush() + b"\n\n"):
            yield tail
    finally:
        await resp.aclose()


class Upstream:
    """One client request's upstream: URL, headers, and the first round's bytes."""

    def __init__(self, state: ProxyState, url: str, headers: list[tuple[str, str]], first: bytes | None = None):
        self.state = state
        self.url = url
        self.headers = headers
        self.first = first  # sent once, as the first round
        self.last: Reply | None = None  # the answer the loop is reading (for error reports)

    def _content(self, body: dict[str, Any]) -> bytes:
        first, self.first = self.first, None
        return first if first is not None else dumps(body)

    async def open(self, body: dict[str, Any]) -> httpx.Response:
        """Send a round; the response with its body still to read."""
        client = self.state.client
        req = client.build_request("POST", self.url, content=self._content(body), headers=self.headers)
        return await client.send(req, stream=True)

    async def send(self, body: dict[str, Any]) -> Reply:
        resp = await self.open(body)
        try:
            data = await resp.aread()
        finally:
            await resp.aclose()
        self.last = Reply(resp.status_code, resp.headers, data)
        return self.last

    async def stream(self, body: dict[str, Any]) -> AsyncIterator[list[tuple[SSEEvent, bytes]]]:
        resp = await self.open(body)
        if resp.status_code >= 400:
            detail = (await resp.aread()).decode("utf-8", errors="replace")[:2000]
            await resp.aclose()
            raise RoundRefused(resp.status_code, detail)
        return sse_events(resp)

    def turn(self, reply: Reply) -> Any:
        """A 200 answer's JSON (an error, or what is not JSON, goes to the client as it is)."""
        if reply.status_code != 200:
            return None
        try:
            return json.loads(reply.data)
        except ValueError:
            return None

    def events(self, item: list[tuple[SSEEvent, bytes]]) -> list[Event]:
        return [(event_data(event), raw, functools.partial(encode_event, event.event)) for event, raw in item]
