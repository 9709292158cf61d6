"""Streaming while the retrieval loop may run (issue 13, bug 6).

When headroom injected ``headroom_retrieve``, the model's turn might be a retrieve call
the caller must never see. The caller still gets the answer live: the SDK's chunk
objects pass through :class:`~headroom.exchange_stream.LiveTurn` (the gate the proxy
uses), which holds back only what may belong to such a call; a retrieve-only turn is
answered and the next round continues the same iterator. Requests without the tool are
not touched: the caller gets the SDK's stream object itself.
"""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator, Callable, Iterator
from typing import Any

from ..exchange_stream import LiveTurn
from .engine import Call, Engine, response_dict


def _rebuilt(chunk: Any, data: dict[str, Any]) -> Any:
    """A rewritten event (a later round's) as the same SDK type as the chunk it replaces."""
    return data if isinstance(chunk, dict) else type(chunk).model_validate(data)


def _feed(gate: LiveTurn[Any], chunk: Any) -> list[Any]:
    return gate.feed(response_dict(chunk), chunk, functools.partial(_rebuilt, chunk))


def _record_error(eng: Engine, call: Call, exc: BaseException) -> None:
    eng.record(call, None, error=exc, status_code=getattr(exc, "status_code", None))


def _round_ended(eng: Engine, call: Call, gate: LiveTurn[Any]) -> list[Any] | None:
    """None when the round was a retrieve call, answered (``call.send`` is the next
    request); otherwise the held chunks to hand over last, the call's row recorded."""
    turn = gate.turn()
    if gate.may_retrieve and turn is not None and eng.retrieve_round(call, turn):
        gate.next_round()
        return None
    rest = gate.end()
    eng.record(call, turn)
    return rest


def live_chunks(eng: Engine, call: Call, create: Callable[..., Any], raw: Any) -> Iterator[Any]:
    """The caller's chunks, round after round, starting with the stream ``raw``."""
    gate: LiveTurn[Any] = LiveTurn(call.fmt)
    done = False
    try:
        while True:
            try:
                for chunk in raw:
                    yield from _feed(gate, chunk)
            finally:
                _close(raw)
            rest = _round_ended(eng, call, gate)
            if rest is None:
                raw = create(**call.send_kwargs())
                continue
            done = True
            yield from rest
            return
    except Exception as exc:
        done = True
        _record_error(eng, call, exc)
        raise
    finally:
        if not done:  # the caller stopped reading: the call still gets its row
            eng.record(call, None)


async def alive_chunks(eng: Engine, call: Call, create: Callable[..., Any], raw: Any) -> AsyncIterator[Any]:
    """The async twin of :func:`live_chunks`."""
    gate: LiveTurn[Any] = LiveTurn(call.fmt)
    done = False
    try:
        while True:
            try:
                async for chunk in raw:
                    for out in _feed(gate, chunk):
                        yield out
            finally:
                await _aclose(raw)
            rest = _round_ended(eng, call, gate)
            if rest is None:
                raw = await create(**call.send_kwargs())
                continue
            done = True
            for out in rest:
                yield out
            return
    except Exception as exc:
        done = True
        _record_error(eng, call, exc)
        raise
    finally:
        if not done:
            eng.record(call, None)


def _close(raw: Any) -> None:
    close = getattr(raw, "close", None)
    if callable(close):
        close()


async def _aclose(raw: Any) -> None:
    close = getattr(raw, "close", None)
    if callable(close):
        res = close()
        if hasattr(res, "__await__"):
            await res


class LiveStream:
    """Iterates :func:`live_chunks`; otherwise behaves like the SDK stream of the first
    round (``with``, ``close()``, ``.response`` and other attributes come from it)."""

    def __init__(self, chunks: Iterator[Any], original: Any):
        self._chunks = chunks
        self._original = original

    def __iter__(self) -> Iterator[Any]:
        return self

    def __next__(self) -> Any:
        return next(self._chunks)

    def __enter__(self) -> LiveStream:  # noqa: PYI034
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        close = getattr(self._chunks, "close", None)
        if close is not None:
            close()  # runs the generator's finally: the open upstream stream is closed

    def __getattr__(self, name: str) -> Any:
        return getattr(self._original, name)


class AsyncLiveStream:
    """The async twin of :class:`LiveStream`."""

    def __init__(self, chunks: AsyncIterator[Any], original: Any):
        self._chunks = chunks
        self._original = original

    def __aiter__(self) -> AsyncIterator[Any]:
        return self

    async def __anext__(self) -> Any:
        return await self._chunks.__anext__()

    async def __aenter__(self) -> AsyncLiveStream:  # noqa: PYI034
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def close(self) -> None:
        aclose = getattr(self._chunks, "aclose", None)
        if aclose is not None:
            await aclose()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._original, name)


def message_stream_manager(api_request: Any, *, is_async: bool) -> Any:
    """Anthropic's own ``MessageStreamManager`` around the live raw event stream, so
    ``messages.stream()`` callers keep ``text_stream``, ``get_final_message()`` and the rest."""
    from anthropic.lib.streaming import AsyncMessageStreamManager, MessageStreamManager

    cls = AsyncMessageStreamManager if is_async else MessageStreamManager
    try:
        from anthropic import NOT_GIVEN

        return cls(api_request, output_format=NOT_GIVEN)
    except TypeError:  # older SDKs take only the request
        return cls(api_request)
