"""Streaming while the retrieval loop may run.

When a request carries retrieval markers, the model's turn might be a
``headroom_retrieve`` call that the client must never see. Such a turn is read to the
end (keeping the SDK's own chunk objects), inspected, and either answered (another
round) or replayed to the caller chunk for chunk. Requests without markers are not
touched: the caller gets the SDK's stream object itself.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

from ..ccr.responses import StreamAccumulator
from .engine import response_dict


def buffer_stream(raw: Any, fmt: str) -> tuple[list[Any], dict[str, Any]]:
    acc = StreamAccumulator(fmt)
    chunks = []
    try:
        for chunk in raw:
            chunks.append(chunk)
            acc.feed(response_dict(chunk))
    finally:
        _close(raw)
    return chunks, acc.response()


async def abuffer_stream(raw: Any, fmt: str) -> tuple[list[Any], dict[str, Any]]:
    acc = StreamAccumulator(fmt)
    chunks = []
    try:
        async for chunk in raw:
            chunks.append(chunk)
            acc.feed(response_dict(chunk))
    finally:
        await _aclose(raw)
    return chunks, acc.response()


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


class ReplayStream:
    """Iterates a finished turn's SDK chunks; otherwise behaves like the SDK stream
    (``with``, ``close()``, ``.response`` and other attributes come from the original)."""

    def __init__(self, chunks: list[Any], original: Any):
        self._chunks = chunks
        self._original = original
        self._iter: Iterator[Any] = iter(chunks)

    def __iter__(self) -> Iterator[Any]:
        return self

    def __next__(self) -> Any:
        return next(self._iter)

    def __enter__(self) -> ReplayStream:  # noqa: PYI034
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self._iter = iter(())

    def __getattr__(self, name: str) -> Any:
        return getattr(self._original, name)


class AsyncReplayStream:
    """The async twin of :class:`ReplayStream`."""

    def __init__(self, chunks: list[Any], original: Any):
        self._chunks = chunks
        self._original = original
        self._iter: Iterator[Any] = iter(chunks)

    def __aiter__(self) -> AsyncIterator[Any]:
        return self

    async def __anext__(self) -> Any:
        try:
            return next(self._iter)
        except StopIteration:
            raise StopAsyncIteration from None

    async def __aenter__(self) -> AsyncReplayStream:  # noqa: PYI034
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def close(self) -> None:
        self._iter = iter(())

    def __getattr__(self, name: str) -> Any:
        return getattr(self._original, name)


def message_stream_manager(api_request: Any, *, is_async: bool) -> Any:
    """Anthropic's own ``MessageStreamManager`` around a replayed raw event stream, so
    ``messages.stream()`` callers keep ``text_stream``, ``get_final_message()`` and the rest."""
    from anthropic.lib.streaming import AsyncMessageStreamManager, MessageStreamManager

    cls = AsyncMessageStreamManager if is_async else MessageStreamManager
    try:
        from anthropic import NOT_GIVEN

        return cls(api_request, output_format=NOT_GIVEN)
    except TypeError:  # older SDKs take only the request
        return cls(api_request)
