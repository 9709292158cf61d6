"""The one send loop around :class:`~headroom.exchange.core.ExchangeCore`, over a transport.

Every shell (the proxy, ``HeadroomClient`` sync and async, its live streams, the
integrations, the eval's LLM mode) does the same thing around a provider call: open the
exchange (compress, fall back to the original on any compression error, tag the caller's
tenant), send, and while the model's turn calls only ``headroom_retrieve`` answer it and
send the next round, the last one forbidding tool calls. That loop is written once here.

It is written as generators that *yield effects* (:class:`Send`, :class:`Open`,
:data:`PULL`, :data:`CLOSE`, :class:`Blocking`, :class:`Emit`) and receive their results;
:func:`run` / :func:`run_stream` perform them with a sync :class:`Transport`,
:func:`arun` / :func:`arun_stream` with an :class:`AsyncTransport`. The decisions (when a
round follows, what is held back of a stream, when the loop ends) live only in the
generators, so sync and async cannot drift apart. What a shell does with the answer (an
SDK object, an HTTP response, a scored answer) and how it records the call is its own.
"""

from __future__ import annotations

import asyncio
import functools
from collections.abc import AsyncIterable, AsyncIterator, Callable, Generator, Iterable, Iterator
from concurrent.futures import Executor
from dataclasses import dataclass
from typing import Any, Protocol

from ..formats import adapter
from ..pipeline import PipelineResult
from .core import Exchange, ExchangeCore
from .stream import LiveTurn

# -- transports -------------------------------------------------------------------------------

# One stream event as the loop reads it: its JSON (None when it has none, e.g. ``[DONE]``),
# the item to relay, and how to rebuild the item for an event a later round rewrote.
Event = tuple[dict[str, Any] | None, Any, Callable[[dict[str, Any]], Any]]


class Reader(Protocol):
    """How the loop reads what a transport returns (the same for sync and async)."""

    def turn(self, reply: Any) -> dict[str, Any] | None:
        """A whole answer as the turn dict the retrieve check reads; None when it is not a
        turn to look into (an error status, unreadable JSON): it then goes to the caller."""

    def events(self, item: Any) -> Iterable[Event]:
        """The events in one streamed item (an SDK chunk is one; a network read of an SSE
        stream may hold several, and what they release is handed over together)."""


class Transport(Reader, Protocol):
    """One round trip to the provider, blocking."""

    def send(self, body: dict[str, Any]) -> Any:
        """Send ``body``; the whole answer."""

    def stream(self, body: dict[str, Any]) -> Iterable[Any]:
        """Send ``body`` and stream the answer's items."""


class AsyncTransport(Reader, Protocol):
    """One round trip to the provider, awaited."""

    async def send(self, body: dict[str, Any]) -> Any: ...

    async def stream(self, body: dict[str, Any]) -> AsyncIterable[Any]: ...


# -- effects ----------------------------------------------------------------------------------


@dataclass(frozen=True)
class Send:
    """Send ``body``, answer the whole reply."""

    body: dict[str, Any]


@dataclass(frozen=True)
class Open:
    """Send ``body`` as a stream; it becomes the stream :data:`PULL` reads."""

    body: dict[str, Any]


@dataclass(frozen=True)
class Blocking:
    """Call ``fn`` (it may read the CCR store: the async runner calls it in a thread)."""

    fn: Callable[[], Any]


@dataclass(frozen=True)
class Emit:
    """Hand these stream items to the caller now."""

    items: list[Any]


PULL = "pull"  # the next item of the open stream, or END
CLOSE = "close"  # the open stream is done with: close it
END = object()

Loop = Generator[Any, Any, Any]


# -- the loop, written once ---------------------------------------------------------------------


def rounds(core: ExchangeCore, ex: Exchange, reader: Reader) -> Loop:
    """Whole answers: send, and while the turn is a retrieve call of ours, answer it and
    send the next round. Returns the reply the caller gets."""
    while True:
        reply = yield Send(ex.send)
        turn = reader.turn(reply) if ex.injected else None
        if turn is None:
            return reply
        nxt = yield Blocking(functools.partial(core.next_round, ex, turn))
        if nxt is None:
            return reply


def live_rounds(core: ExchangeCore, ex: Exchange, reader: Reader, gate: LiveTurn[Any] | None = None) -> Loop:
    """Streamed answers, relayed live through :class:`LiveTurn`: text as it comes, a
    retrieve-only turn held back, answered, and continued by the next round's stream.
    Starts reading the stream that is already open; returns the caller's last turn."""
    gate = gate or LiveTurn(ex.fmt)
    while True:
        while (item := (yield PULL)) is not END:
            out = [x for data, relayed, reencode in reader.events(item) for x in gate.feed(data, relayed, reencode)]
            if out:
                yield Emit(out)
        yield CLOSE
        turn = gate.turn()
        if turn is not None:
            ex.usage = adapter(ex.fmt).usage(turn)
        nxt = (yield Blocking(functools.partial(core.next_round, ex, turn))) \
            if gate.may_retrieve and turn is not None else None
        if nxt is None:
            if rest := gate.end():
                yield Emit(rest)
            return turn
        gate.next_round()
        yield Open(nxt)


# -- opening an exchange ------------------------------------------------------------------------


def open_exchange(core: ExchangeCore, body: dict[str, Any], fmt: str, mode: str, *,
                  result: PipelineResult | None = None, error: str | None = None,
                  tenant: str | None = None, session_id: str | None = None, model: str | None = None,
                  fallback_mode: str | None = None) -> Exchange:
    """The exchange for ``body`` once compression ran (``result``) or failed (``error``):
    the original goes out on failure, in ``fallback_mode`` when the shell names one."""
    if result is None and fallback_mode is not None:
        mode = fallback_mode
    ex = core.prepare(body, fmt, mode, result=result, error=error, session_id=session_id, model=model)
    ex.tenant = tenant
    return ex


def start(core: ExchangeCore, body: dict[str, Any], fmt: str, mode: str, *, copy_body: bool = False,
          budget_s: float | None = None, **opening: Any) -> Exchange:
    """Compress ``body`` (never raising: a failure sends the original) and open its exchange.
    Every mode is compressed (pass-through measures what it would save); a shell that
    must not spend the time opens with :func:`open_exchange` alone."""
    result, error = core.compress(body, fmt, model=opening.get("model"), copy_body=copy_body,
                                  tenant=opening.get("tenant"), budget_s=budget_s)
    return open_exchange(core, body, fmt, mode, result=result, error=error, **opening)


async def astart(core: ExchangeCore, body: dict[str, Any], fmt: str, mode: str, *,
                 executor: Executor | None = None, timeout_s: float | None = None,
                 budget_s: float | None = None, copy_body: bool = False, **opening: Any) -> Exchange:
    """:func:`start` off the event loop (in ``executor``), waiting at most ``timeout_s``:
    compression that takes longer sends the original."""
    work = functools.partial(core.compress, body, fmt, model=opening.get("model"), copy_body=copy_body,
                             tenant=opening.get("tenant"), budget_s=budget_s)
    try:
        result, error = await asyncio.wait_for(asyncio.get_running_loop().run_in_executor(executor, work),
                                               timeout_s)
    except asyncio.TimeoutError:
        result, error = None, f"timed out after {timeout_s:g} s"
    return open_exchange(core, body, fmt, mode, result=result, error=error, **opening)


# -- runners ------------------------------------------------------------------------------------


def _close(stream: Any) -> None:
    close = getattr(stream, "close", None)
    if callable(close):
        close()


async def _aclose(stream: Any) -> None:
    close = getattr(stream, "aclose", None) or getattr(stream, "close", None)
    if callable(close):
        res = close()
        if hasattr(res, "__await__"):
            await res


class SyncRunner:
    """Performs effects with a blocking transport; holds the open stream."""

    def __init__(self, transport: Transport, stream: Any = None):
        self.transport = transport
        self.stream, self.items = stream, None if stream is None else iter(stream)

    def perform(self, effect: Any) -> Any:
        if isinstance(effect, Send):
            return self.transport.send(effect.body)
        if isinstance(effect, Blocking):
            return effect.fn()
        if effect is PULL:
            return next(self.items, END)
        if effect is CLOSE:
            self.close()
            return None
        if isinstance(effect, Open):  # answers the stream object (the loop may hand it on)
            self.stream = self.transport.stream(effect.body)
            self.items = iter(self.stream)
            return self.stream
        raise TypeError(f"not an effect: {effect!r}")

    def close(self) -> None:
        stream, self.stream = self.stream, None
        if stream is not None:
            _close(stream)


class AsyncRunner:
    """Performs effects with an awaited transport; holds the open stream."""

    def __init__(self, transport: AsyncTransport, stream: Any = None):
        self.transport = transport
        self.stream, self.items = stream, None if stream is None else aiter(stream)

    async def perform(self, effect: Any) -> Any:
        if isinstance(effect, Send):
            return await self.transport.send(effect.body)
        if isinstance(effect, Blocking):
            return await asyncio.to_thread(effect.fn)  # store reads stay off the event loop
        if effect is PULL:
            return await anext(self.items, END)
        if effect is CLOSE:
            await self.close()
            return None
        if isinstance(effect, Open):
            self.stream = await self.transport.stream(effect.body)
            self.items = aiter(self.stream)
            return self.stream
        raise TypeError(f"not an effect: {effect!r}")

    async def close(self) -> None:
        stream, self.stream = self.stream, None
        if stream is not None:
            await _aclose(stream)


def drive(loop: Loop, runner: SyncRunner) -> Any:
    """Run a loop of effects (whole answers; no :class:`Emit`) to its return value. An
    effect that raises is thrown into the loop, so a shell's loop can book the failure."""
    value, error = None, None
    while True:
        try:
            effect = loop.send(value) if error is None else loop.throw(error)
        except StopIteration as done:
            return done.value
        value, error = None, None
        try:
            value = runner.perform(effect)
        except Exception as exc:  # noqa: BLE001 - handed to the loop, which re-raises it or not
            error = exc


async def adrive(loop: Loop, runner: AsyncRunner) -> Any:
    """:func:`drive` with the awaited runner: the same loop serves sync and async callers."""
    value, error = None, None
    while True:
        try:
            effect = loop.send(value) if error is None else loop.throw(error)
        except StopIteration as done:
            return done.value
        value, error = None, None
        try:
            value = await runner.perform(effect)
        except Exception as exc:  # noqa: BLE001 - handed to the loop, which re-raises it or not
            error = exc


def run(core: ExchangeCore, ex: Exchange, transport: Transport) -> Any:
    """The reply the caller gets, after every retrieve round (blocking)."""
    return drive(rounds(core, ex, transport), SyncRunner(transport))


async def arun(core: ExchangeCore, ex: Exchange, transport: AsyncTransport) -> Any:
    """The reply the caller gets, after every retrieve round (awaited)."""
    return await adrive(rounds(core, ex, transport), AsyncRunner(transport))


def run_stream(core: ExchangeCore, ex: Exchange, transport: Transport, first: Any) -> Iterator[Any]:
    """The caller's stream items over every round, starting with the open stream ``first``.
    Returns (as the generator's value) the caller's last turn; sets ``ex.usage``."""
    loop, runner, value = live_rounds(core, ex, transport), SyncRunner(transport, first), None
    try:
        while True:
            try:
                effect = loop.send(value)
            except StopIteration as done:
                return done.value
            if isinstance(effect, Emit):
                value = None
                yield from effect.items
            else:
                value = runner.perform(effect)
    finally:
        runner.close()  # also when the caller stops reading: the upstream stream is closed


async def arun_stream(core: ExchangeCore, ex: Exchange, transport: AsyncTransport, first: Any, *,
                      batched: bool = False) -> AsyncIterator[Any]:
    """The async twin of :func:`run_stream` (the last turn is in ``ex.usage`` only);
    ``batched`` yields lists, each what one streamed item released (one write for the proxy)."""
    loop, runner, value = live_rounds(core, ex, transport), AsyncRunner(transport, first), None
    try:
        while True:
            try:
                effect = loop.send(value)
            except StopIteration:
                return
            if isinstance(effect, Emit):
                value = None
                if batched:
                    yield effect.items
                else:
                    for item in effect.items:
                        yield item
            else:
                value = await runner.perform(effect)
    finally:
        await runner.close()


__all__ = ["AsyncRunner", "AsyncTransport", "Blocking", "Emit", "Event", "Open", "Reader", "Send", "SyncRunner",
           "Transport", "adrive", "arun", "arun_stream", "astart", "drive", "live_rounds", "open_exchange", "rounds",
           "run", "run_stream", "start"]
