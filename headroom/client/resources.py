"""The SDK resources HeadroomClient wraps: ``create`` (and Anthropic's ``stream``) go
through the engine; every other attribute is the original SDK's."""

from __future__ import annotations

from typing import Any

from ..formats import ANTHROPIC
from ..modes import AUDIT, OPTIMIZE, PASSTHROUGH, SIMULATE
from .engine import Call, Engine
from .streams import (
    AsyncReplayStream,
    ReplayStream,
    abuffer_stream,
    buffer_stream,
    message_stream_manager,
)


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
            while True:
                resp = create(**call.send_kwargs())
                if call.stream and not call.injected_tool:
                    eng.record(call, None)
                    return resp  # the SDK's own stream, untouched
                if call.stream:
                    chunks, final = buffer_stream(resp, call.fmt)
                    if eng.retrieve_round(call, final):
                        continue
                    eng.record(call, final)
                    return ReplayStream(chunks, resp)
                if eng.retrieve_round(call, resp):
                    continue
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
        try:
            while True:
                raw = self._target.create(**call.send_kwargs(), stream=True)
                chunks, final = buffer_stream(raw, ANTHROPIC)
                if eng.retrieve_round(call, final):
                    continue
                eng.record(call, final)
                replay = ReplayStream(chunks, raw)
                return message_stream_manager(lambda replay=replay: replay, is_async=False)
        except Exception as exc:
            eng.record(call, None, error=exc, status_code=getattr(exc, "status_code", None))
            raise


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
            while True:
                resp = await create(**call.send_kwargs())
                if call.stream and not call.injected_tool:
                    eng.record(call, None)
                    return resp
                if call.stream:
                    chunks, final = await abuffer_stream(resp, call.fmt)
                    if eng.retrieve_round(call, final):
                        continue
                    eng.record(call, final)
                    return AsyncReplayStream(chunks, resp)
                if eng.retrieve_round(call, resp):
                    continue
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

        async def run_rounds() -> Any:
            try:
                while True:
                    raw = await self._target.create(**call.send_kwargs(), stream=True)
                    chunks, final = await abuffer_stream(raw, ANTHROPIC)
                    if eng.retrieve_round(call, final):
                        continue
                    eng.record(call, final)
                    return AsyncReplayStream(chunks, raw)
            except Exception as exc:
                eng.record(call, None, error=exc, status_code=getattr(exc, "status_code", None))
                raise

        return message_stream_manager(run_rounds(), is_async=True)


class Chat:
    """``client.chat`` with a wrapped ``completions``; the rest is the SDK's."""

    def __init__(self, completions: Any, target: Any):
        self.completions = completions
        self._target = target

    def __getattr__(self, name: str) -> Any:
        return getattr(self._target, name)
