"""The SDK resources HeadroomClient wraps: ``create`` (and Anthropic's ``stream``) go
through the engine; every other attribute is the original SDK's."""

from __future__ import annotations

import functools
from typing import Any

from ..exchange.driver import AsyncRunner, Loop, Open, Send, SyncRunner, adrive, drive, rounds
from ..formats import ANTHROPIC
from ..modes import AUDIT, OPTIMIZE, PASSTHROUGH, SIMULATE
from .engine import Call, Engine
from .streams import AsyncLiveStream, LiveStream, alive_chunks, live_chunks, message_stream_manager
from .transport import AsyncSDKTransport, SDKTransport


class _Wrapped:
    def __init__(self, engine: Engine, target: Any, fmt: str):
        self._engine = engine
        self._target = target
        self._fmt = fmt

    def __getattr__(self, name: str) -> Any:
        return getattr(self._target, name)


def _sending(eng: Engine, call: Call, transport: SDKTransport | AsyncSDKTransport, live: Any) -> Loop:
    """One SDK call as a loop of effects, written once for sync and async: the driver's
    runners perform them (``drive`` / ``adrive``), so the two cannot drift apart. ``live``
    wraps a stream the retrieve loop must watch (``LiveStream`` or ``AsyncLiveStream``)."""
    try:
        if call.mode in (AUDIT, PASSTHROUGH):
            resp = yield Send(call.kwargs)  # the caller's own kwargs (options included), untouched
            eng.record(call, None if call.stream else resp)
            return resp
        if call.stream:
            resp = yield Open(call.send)
            if not call.injected_tool:
                eng.record(call, None)
                return resp  # the SDK's own stream, untouched
            # Live: the text as it comes; rounds and the metrics row happen as it is read.
            return live(eng, call, transport, resp)
        resp = yield from rounds(eng.core, call.ex, transport)
        eng.record(call, resp)
        return resp
    except Exception as exc:
        eng.record(call, None, error=exc, status_code=getattr(exc, "status_code", None))
        raise


def _live(eng: Engine, call: Call, transport: SDKTransport, resp: Any) -> LiveStream:
    return LiveStream(live_chunks(eng, call, transport, resp), resp)


def _alive(eng: Engine, call: Call, transport: AsyncSDKTransport, resp: Any) -> AsyncLiveStream:
    return AsyncLiveStream(alive_chunks(eng, call, transport, resp), resp)


def _options(call: Call) -> dict[str, Any]:
    """Request options every round adds; pass-through modes send the caller's kwargs as
    they are (options included), so theirs add none."""
    return {} if call.mode in (AUDIT, PASSTHROUGH) else call.options


class Creates(_Wrapped):
    """Sync ``chat.completions`` / ``messages`` / ``responses``."""

    def create(self, **kwargs: Any) -> Any:
        call = self._engine.prepare(kwargs, self._fmt)
        if call.mode == SIMULATE:
            return self._engine.simulate(call)
        return self._send(call, self._target.create)

    def _send(self, call: Call, create: Any) -> Any:
        transport = SDKTransport(create, _options(call))
        return drive(_sending(self._engine, call, transport, _live), SyncRunner(transport))


class Messages(Creates):
    """Anthropic ``messages``: ``create`` plus the ``stream()`` helper."""

    def stream(self, **kwargs: Any) -> Any:
        eng = self._engine
        call = eng.prepare(kwargs, ANTHROPIC)
        call.stream = True
        if call.mode == SIMULATE:
            return eng.simulate(call)
        if call.mode != OPTIMIZE or not call.injected_tool:
            eng.record(call, None)
            return self._target.stream(**(call.kwargs if call.mode != OPTIMIZE else call.send_kwargs()))
        live = self._send(call, functools.partial(self._target.create, stream=True))
        return message_stream_manager(lambda: live, is_async=False)


class AsyncCreates(_Wrapped):
    """Async ``chat.completions`` / ``messages`` / ``responses``."""

    async def create(self, **kwargs: Any) -> Any:
        call = self._engine.prepare(kwargs, self._fmt)
        if call.mode == SIMULATE:
            return self._engine.simulate(call)
        return await self._send(call, self._target.create)

    async def _send(self, call: Call, create: Any) -> Any:
        transport = AsyncSDKTransport(create, _options(call))
        return await adrive(_sending(self._engine, call, transport, _alive), AsyncRunner(transport))


class AsyncMessages(AsyncCreates):
    def stream(self, **kwargs: Any) -> Any:
        """Returns Anthropic's ``AsyncMessageStreamManager`` (use ``async with``)."""
        eng = self._engine
        call = eng.prepare(kwargs, ANTHROPIC)
        call.stream = True
        if call.mode == SIMULATE:
            return eng.simulate(call)
        if call.mode != OPTIMIZE or not call.injected_tool:
            eng.record(call, None)
            return self._target.stream(**(call.kwargs if call.mode != OPTIMIZE else call.send_kwargs()))

        return message_stream_manager(self._send(call, functools.partial(self._target.create, stream=True)),
                                      is_async=True)


class Chat:
    """``client.chat`` with a wrapped ``completions``; the rest is the SDK's."""

    def __init__(self, completions: Any, target: Any):
        self.completions = completions
        self._target = target

    def __getattr__(self, name: str) -> Any:
        return getattr(self._target, name)
