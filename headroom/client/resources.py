"""The SDK resources HeadroomClient wraps: ``create`` (and Anthropic's ``stream``) go
through the engine; every other attribute is the original SDK's."""

from __future__ import annotations

import functools
from typing import Any

from ..exchange import arun, run
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


class Creates(_Wrapped):
    """Sync ``chat.completions`` / ``messages`` / ``responses``."""

    def create(self, **kwargs: Any) -> Any:
        call = self._engine.prepare(kwargs, self._fmt)
        if call.mode == SIMULATE:
            return self._engine.simulate(call)
        return self._send(call, self._target.create)

    def _send(self, call: Call, create: Any) -> Any:
        eng = self._engine
        try:
            if call.mode in (AUDIT, PASSTHROUGH):
                resp = create(**call.kwargs)
                eng.record(call, None if call.stream else resp)
                return resp
            transport = SDKTransport(create, call.options)
            if call.stream:
                resp = transport.stream(call.send)
                if not call.injected_tool:
                    eng.record(call, None)
                    return resp  # the SDK's own stream, untouched
                # Live: the text as it comes; rounds and the metrics row happen as it is read.
                return LiveStream(live_chunks(eng, call, transport, resp), resp)
            resp = run(eng.core, call.ex, transport)
            eng.record(call, resp)
            return resp
        except Exception as exc:
            eng.record(call, None, error=exc, status_code=getattr(exc, "status_code", None))
            raise


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
        eng = self._engine
        try:
            if call.mode in (AUDIT, PASSTHROUGH):
                resp = await create(**call.kwargs)
                eng.record(call, None if call.stream else resp)
                return resp
            transport = AsyncSDKTransport(create, call.options)
            if call.stream:
                resp = await transport.stream(call.send)
                if not call.injected_tool:
                    eng.record(call, None)
                    return resp
                return AsyncLiveStream(alive_chunks(eng, call, transport, resp), resp)
            resp = await arun(eng.core, call.ex, transport)
            eng.record(call, resp)
            return resp
        except Exception as exc:
            eng.record(call, None, error=exc, status_code=getattr(exc, "status_code", None))
            raise


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
