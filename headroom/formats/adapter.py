"""The contract every wire-format adapter module implements, both directions.

Requests: ``parse`` a body into the neutral :class:`Conversation`, ``render`` it back.
Responses and the tool loop: define a tool, find the tool calls of a turn, continue the
conversation with tool results, read usage, rebuild a streamed turn, write an error
event. Everything format-specific lives in the adapter; callers (CCR, the exchange
core, the proxy, the client) stay format-neutral. Adding a provider = adding one module.
"""

from __future__ import annotations

from typing import Any, Protocol

from .model import Conversation
from .wire import ToolCall, Usage


class StreamTurn(Protocol):
    """Rebuilds the non-streaming response from the JSON data of each stream event."""

    def feed(self, data: dict[str, Any]) -> None: ...

    def response(self) -> dict[str, Any]: ...


class LiveRelay(Protocol):
    """Per streamed exchange: which events reach the client at once, and how a later
    retrieve round's events are rewritten to continue the same stream."""

    def hold(self, data: dict[str, Any]) -> bool:
        """Whether this event starts the part of a turn held back (tool calls, turn end)."""

    def sent(self, data: dict[str, Any]) -> None:
        """Note an event the client received (block counts, sequence numbers)."""

    def next_round(self) -> None:
        """A retrieve round starts: the held part of the turn was dropped."""

    def rewrite(self, data: dict[str, Any]) -> dict[str, Any] | None:
        """A later round's event as the client must see it; None drops it."""


class Adapter(Protocol):
    FORMAT: str
    PROVIDER: str  # headroom.providers name: prices, windows, image token rules
    MESSAGES_KEY: str  # where the conversation lives in a body ("messages", "input", …)
    CACHE_BREAKPOINTS: bool  # prompt caching needs cache_control breakpoints (Anthropic)
    PROMPT_CACHE_KEY: str | None  # body field that routes a session to one cache shard (OpenAI)

    def parse(self, body: dict[str, Any]) -> Conversation: ...

    def render(self, conv: Conversation) -> dict[str, Any]: ...

    def tool_definition(self, name: str, description: str, parameters: dict[str, Any]) -> dict[str, Any]: ...

    def tool_calls(self, response: dict[str, Any]) -> list[ToolCall] | None:
        """The turn's tool calls ([] for none); None when the turn holds a call of a kind
        headroom must not answer for the client (several choices, built-in tools)."""

    def continue_body(self, body: dict[str, Any], response: dict[str, Any],
                      results: dict[str, str]) -> dict[str, Any]:
        """The next request: ``body``, the model's turn, one tool result per call id."""

    def forbid_tool_calls(self, body: dict[str, Any]) -> dict[str, Any]:
        """``body`` whose next turn may call no tool (after the retrieve-round limit)."""

    def usage(self, response: Any) -> Usage: ...

    def error_event(self, message: str, kind: str = ..., status: int | None = ...) -> bytes:
        """An SSE error event this provider's SDKs raise on."""

    def is_error(self, data: dict[str, Any]) -> bool: ...

    def started_calls(self, data: dict[str, Any]) -> list[str | None]:
        """Names of the tool calls one stream event starts (None: not a function call)."""

    StreamTurn: type[StreamTurn]
    LiveRelay: type[LiveRelay]
