"""Which events of a streamed turn reach the caller now, IO-free (issue 13, bug 6).

When headroom injected ``headroom_retrieve``, a streamed turn may turn out to be a
retrieve call the caller never declared. :class:`LiveTurn` decides event by event: text
goes live at once; from the first event that may belong to such a call (a tool call, the
end of the turn, per the adapter's ``LiveRelay``) the rest is held until the turn's fate
is known. A turn that is surely the caller's (another tool is called, an error event) is
released at once; a retrieve-only turn is dropped, answered by
:meth:`~headroom.exchange.ExchangeCore.next_round`, and the next round continues the same
stream (``LiveRelay.rewrite`` makes its events follow on). The proxy relays SSE bytes and
``HeadroomClient`` relays SDK chunk objects through this same gate: items are opaque here.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Generic, TypeVar

from ..formats import adapter, is_retrieve_tool
from ..formats.wire import SSEEvent

log = logging.getLogger("headroom.exchange")

T = TypeVar("T")
_UNREADABLE = (TypeError, AttributeError, KeyError, IndexError, ValueError)


@dataclass
class StreamAccumulator:
    """Rebuilds the complete (non-streaming) response dict from a streamed turn.

    Feed it every SSE event in order; :meth:`response` returns what the same request
    without ``stream`` would have returned, as far as the retrieval loop needs it.
    """

    format: str
    error: dict[str, Any] | None = None
    # True once the stream shows a tool call other than headroom_retrieve: the turn is
    # the client's, so a caller buffering it can start relaying at once.
    saw_foreign_call: bool = False
    _turn: Any = field(default=None, repr=False)

    def __post_init__(self) -> None:
        self._adapter = adapter(self.format)
        self._turn = self._adapter.StreamTurn()

    def feed_event(self, event: SSEEvent) -> None:
        if event.data.strip() in ("", "[DONE]"):
            return
        try:
            data = json.loads(event.data)
        except ValueError:
            return
        if isinstance(data, dict):
            self.feed(data)

    def feed(self, data: dict[str, Any]) -> None:
        if self._adapter.is_error(data):
            self.error = data
            return
        if not self.saw_foreign_call and any(not is_retrieve_tool(n) for n in self._adapter.started_calls(data)):
            self.saw_foreign_call = True
        self._turn.feed(data)

    def response(self) -> dict[str, Any]:
        """The complete response as the non-streaming API would have returned it."""
        return self._turn.response()


class LiveTurn(Generic[T]):
    """One streamed exchange (all its rounds); ``T`` is what the shell relays (bytes, SDK chunks)."""

    def __init__(self, fmt: str):
        self.fmt = fmt
        self.relay = adapter(fmt).LiveRelay()
        self._new_round()

    def _new_round(self) -> None:
        self.acc = StreamAccumulator(self.fmt)
        self.held: list[T] = []
        self.holding = False
        self.released = False  # the turn is the caller's: nothing more is held this round

    def feed(self, data: dict[str, Any] | None, item: T, reencode: Callable[[dict[str, Any]], T]) -> list[T]:
        """What to relay now for one event: ``data`` is its JSON (None when it has none,
        e.g. ``[DONE]``), ``item`` what the shell would relay, ``reencode`` builds the item
        for an event a later round had to rewrite."""
        try:
            if data is not None:
                self.acc.feed(data)
                new = self.relay.rewrite(data)
                if new is None:
                    return []  # a later round's stream start: the caller already has one
                if new is not data:
                    data, item = new, reencode(new)
            if not (self.holding or self.released) and (data is None or self.relay.hold(data)):
                self.holding = True
        except _UNREADABLE:
            # An event we cannot read: the stream is the provider's to explain.
            log.warning("could not read the upstream's %s stream; relaying it unchanged", self.fmt)
            return [*self._release(), item]
        if self.holding:
            self.held.append(item)
            if self.acc.saw_foreign_call or self.acc.error is not None:
                return self._release()  # surely the caller's turn: go live
            return []
        if data is not None:
            self.relay.sent(data)
        return [item]

    def note(self, data: dict[str, Any]) -> None:
        """Account for an event the shell relays itself (the proxy's unterminated last event)."""
        try:
            self.acc.feed(data)
        except _UNREADABLE:
            self.released = True

    def _release(self) -> list[T]:
        out, self.held = self.held, []
        self.holding, self.released = False, True
        return out

    def turn(self) -> dict[str, Any] | None:
        """The round's complete turn once its stream ended (for usage and the retrieve
        check; the check is skipped when :attr:`released`); None when unreadable."""
        try:
            return self.acc.response()
        except _UNREADABLE:
            self.released = True
            return None

    @property
    def may_retrieve(self) -> bool:
        """Whether the ended round may be a retrieve-only turn (its fate was not decided yet)."""
        return not self.released

    def end(self) -> list[T]:
        """The turn is the caller's: what was held, to relay last."""
        return self._release()

    def next_round(self) -> None:
        """The held part was a retrieve call, answered: the next round continues the stream."""
        self.relay.next_round()
        self._new_round()


__all__ = ["LiveTurn"]
