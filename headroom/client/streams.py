"""Streaming while the retrieval loop may run (issue 13, bug 6).

When headroom injected ``headroom_retrieve``, the model's turn might be a retrieve call
the caller must never see. The caller still gets the answer live: the SDK's chunk
objects pass through :class:`~headroom.exchange.stream.LiveTurn` (the gate the proxy
uses), which holds back only what may belong to such a call; a retrieve-only turn is
answered and the next round continues the same iterator. Requests without the tool are
not touched: the caller gets the SDK's stream object itself.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

from ..exchange import arun_stream, run_stream
from .engine import Call, Engine
from .transport import AsyncSDKTransport, SDKTransport


def _record_error(eng: Engine, call: Call, exc: BaseException) -> None:
    eng.record(call, None, error=exc, status_code=getattr(exc, "status_code", None))


def live_chunks(eng: Engine, call: Call, transport: SDKTransport, raw: Any) -> Iterator[Any]:
    """The caller's chunks, round after round (:func:`headroom.exchange.run_stream`),
    starting with the stream ``raw``; the call's row once it ends, however it ends."""
    done = False
    try:
        yield from run_stream(eng.core, call.ex, transport, raw)
        done = True
        eng.record(call, None)  # the loop put the last turn's usage on the exchange
    except Exception as exc:
        done = True
        _record_error(eng, call, exc)
        raise
    finally:
        if not done:  # the caller stopped reading: the call still gets its row
            eng.record(call, None)


async def alive_chunks(eng: Engine, call: Call, transport: AsyncSDKTransport, raw: Any) -> AsyncIterator[Any]:
    """The async twin of :func:`live_chunks`."""
    done = False
    try:
        async for chunk in arun_stream(eng.core, call.ex, transport, raw):
            yield chunk
        done = True
        eng.record(call, None)
    except Exception as exc:
        done = True
        _record_error(eng, call, exc)
        raise
    finally:
        if not done:
            eng.record(call, None)


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
