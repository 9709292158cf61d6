"""The contract every wire-format adapter module implements, both directions.

Requests: ``parse`` a body into the neutral :class:`Conversation`, ``render`` it back.
Responses and the tool loop: define a tool, find the tool calls of a turn, continue the
conversation with tool results, read usage, rebuild a streamed turn, write an error
event. The provider behind it: the model names it serves, its tokenizer correction,
its default context window, its image token and size rules, how its prompt cache is
keyed and what the cache sees of a request, and the pairing rules the context budget
must respect. Everything format- and provider-specific lives in the adapter; callers
(the pipeline's stages, the cache optimiser, CCR, the exchange core, the proxy, the
client) stay neutral. Adding a provider = adding one module (``formats.register``).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Protocol

from .model import Conversation
from .wire import ToolCall, Usage


@dataclass(frozen=True)
class ImageRules:
    """What an image costs a provider and how the image stage may shrink it."""

    # (width, height, detail) -> input tokens, by the provider's published sizing rule.
    tokens: Callable[[int, int, str | None], int]
    # The provider has a low-detail setting (OpenAI ``detail: "low"``): "gist is enough"
    # sets it instead of downscaling the pixels.
    low_detail: bool = False
    # The ImageConfig field bounding the long side when "gist is enough" downscales.
    downscale_field: str | None = None


@dataclass(frozen=True)
class ProxyRoute:
    """A POST path ``headroom proxy`` serves for an adapter (read from its optional
    ``PROXY_ROUTES``; its upstream's default base URL is its optional ``UPSTREAM_URL``).
    ``call`` reads ``(model, stream)`` from the path parameters where the API puts them in
    the URL (None for either: the body says); it answers None for a path that is not a
    call to compress (forwarded untouched). Without ``call`` the body says both."""

    path: str
    call: Callable[[dict[str, str]], tuple[str | None, bool | None] | None] | None = None


# Optional adapter members (read with getattr; an adapter without them is still valid):
#   PROXY_ROUTES: tuple[ProxyRoute, ...]   paths `headroom proxy` serves for it
#   UPSTREAM_URL: str                      its API's default base URL
#   CREDENTIAL_ENV: tuple[str, ...]        environment variables holding its key (MCP scope)
#   SYSTEM_IN_MESSAGES: bool               the system prompt is a message (Chat), not apart


@dataclass(frozen=True)
class PrefixView:
    """A request as a provider's prompt cache reads it, in cache order: tools, then the
    system prompt, then the conversation items. ``None``/empty where the body has none."""

    model: Any
    tools: Any
    system: Any
    items: list[Any]


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
    PROVIDER: str  # the provider's name in providers/prices.json
    MESSAGES_KEY: str  # where the conversation lives in a body ("messages", "input", …)
    # Model-name prefixes of the provider's models (lower case). They pick the tokenizer
    # correction and the provider of a model sent through another provider's wire
    # format (a Claude model behind an OpenAI-compatible gateway).
    MODEL_PREFIXES: tuple[str, ...]
    TOKEN_FACTOR: float  # tiktoken count x this = the provider's tokens (no offline tokenizer)
    DEFAULT_CONTEXT: int  # context window of a model not in the price table
    CACHE_BREAKPOINTS: bool  # prompt caching needs cache_control breakpoints (Anthropic)
    PROMPT_CACHE_KEY: str | None  # body field that routes a session to one cache shard (OpenAI)
    TEXT_PART_TYPE: str | None  # "type" of a text part a stage writes (None: parts are untyped)
    IMAGES: ImageRules
    # Context budget (transforms/context_units.py): consecutive tool-call items are one
    # turn's calls and must be kept or dropped together (Responses' function_call items).
    CALLS_SPAN_ITEMS: bool
    # Roles must alternate, so a marker joins a neighbouring user message instead of
    # becoming a message of its own (Anthropic).
    ALTERNATING_ROLES: bool

    def owns(self, body: dict[str, Any]) -> bool:
        """Whether ``body``'s top-level keys are a sure sign of this format (``input``
        without ``messages``: Responses). ``detect_format`` asks every adapter first."""

    def prefix_view(self, body: dict[str, Any]) -> PrefixView:
        """What the provider's prompt cache sees of ``body`` (tools, system, items)."""

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
