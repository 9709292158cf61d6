"""The SDK's ``create`` as the exchange loop's transport (:mod:`headroom.exchange.driver`).

A round is ``create(**body, **options)``: the request options the caller gave (headers,
timeout) go with every round, the body is the loop's. Answers and stream chunks are the
SDK's own objects; the loop reads them as dicts and relays them unchanged.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

from ..exchange.driver import Event
from .engine import response_dict


def _rebuilt(chunk: Any, data: dict[str, Any]) -> Any:
    """A rewritten event (a later round's) as the same SDK type as the chunk it replaces.

    The SDKs' own ``construct`` builds nested models as leniently as their stream decoder
    does (strict validation rejects fields a provider leaves out)."""
    return data if isinstance(chunk, dict) else type(chunk).construct(**data)


class SDKReader:
    """How the loop reads SDK answers and chunks."""

    def __init__(self, create: Callable[..., Any], options: dict[str, Any]):
        self.create = create
        self.options = options

    def turn(self, reply: Any) -> dict[str, Any] | None:
        return response_dict(reply)

    def events(self, item: Any) -> list[Event]:
        return [(response_dict(item), item, functools.partial(_rebuilt, item))]


class SDKTransport(SDKReader):
    """A sync SDK resource's ``create``."""

    def send(self, body: dict[str, Any]) -> Any:
        return self.create(**body, **self.options)

    stream = send  # the body says ``stream``; the SDK returns its stream object


class AsyncSDKTransport(SDKReader):
    """An async SDK resource's ``create``."""

    async def send(self, body: dict[str, Any]) -> Any:
        return await self.create(**body, **self.options)

    stream = send
