"""Wire formats ⇄ the neutral conversation model; one adapter module per wire format,
holding its provider's rules too (see ``adapter.Adapter``).

``parse(body, fmt)`` and ``render(conversation)`` are the only entry points the rest of
headroom uses for bodies; ``detect_format`` guesses the format of a bare body or message
list. ``adapter(fmt)`` answers everything else about a format or its provider, and
``register(module)`` adds one.
"""

from __future__ import annotations

from typing import Any, cast

from . import anthropic, gemini, openai_chat, openai_responses
from .adapter import Adapter, ImageRules, PrefixView
from .model import (
    RETRIEVE_TOOL_NAME,
    Block,
    BlockKind,
    Conversation,
    ImageData,
    Message,
    Role,
    content_hash,
    is_retrieve_tool,
)

OPENAI_CHAT = openai_chat.FORMAT
OPENAI_RESPONSES = openai_responses.FORMAT
ANTHROPIC = anthropic.FORMAT
GEMINI = gemini.FORMAT

# Each adapter is a module implementing :class:`~headroom.formats.adapter.Adapter`.
ADAPTERS: dict[str, Adapter] = {
    m.FORMAT: cast(Adapter, m) for m in (openai_chat, openai_responses, anthropic, gemini)
}

_ANTHROPIC_BLOCK_TYPES = {"tool_use", "tool_result", "thinking", "redacted_thinking"}


def register(module: Any) -> Adapter:
    """Add a wire-format adapter (a module or object implementing :class:`Adapter`);
    one missing a member of the contract is refused here rather than failing mid-request."""
    contract = [n for n in dir(Adapter) if not n.startswith("_")] + list(Adapter.__annotations__)
    missing = sorted(n for n in contract if not hasattr(module, n))
    if missing:
        raise TypeError(f"adapter {getattr(module, 'FORMAT', module)!r} lacks {', '.join(missing)}")
    ADAPTERS[module.FORMAT] = cast(Adapter, module)
    return ADAPTERS[module.FORMAT]


def adapter(fmt: str) -> Adapter:
    try:
        return ADAPTERS[fmt]
    except KeyError:
        raise ValueError(f"unknown format {fmt!r}; expected one of {sorted(ADAPTERS)}") from None


def detect_format(body: dict[str, Any], model: str | None = None) -> str:
    """Guess the wire format of a request body: the adapter that owns its top-level keys,
    else Chat or Anthropic from the messages' shapes, else from the model name."""
    for a in ADAPTERS.values():
        if a.owns(body):
            return a.FORMAT
    messages = body.get("messages")
    if not isinstance(messages, list):
        raise ValueError("request body has neither 'messages' nor 'input'")
    for m in messages:
        if not isinstance(m, dict):
            continue
        if m.get("role") in ("tool", "system", "developer", "function") or "tool_calls" in m:
            return OPENAI_CHAT
        content = m.get("content")
        if isinstance(content, list):
            for part in content:
                if isinstance(part, dict):
                    if part.get("type") in _ANTHROPIC_BLOCK_TYPES:
                        return ANTHROPIC
                    if part.get("type") == "image_url":
                        return OPENAI_CHAT
    name = (model or body.get("model") or "").lower()
    return ANTHROPIC if name.startswith("claude") else OPENAI_CHAT


def parse(body: dict[str, Any], fmt: str | None = None) -> Conversation:
    return adapter(fmt or detect_format(body)).parse(body)


def render(conv: Conversation) -> dict[str, Any]:
    return adapter(conv.format).render(conv)


def provider_of(fmt: str) -> str:
    """The provider behind a wire format (``openai``, ``anthropic``, ``google``)."""
    return adapter(fmt).PROVIDER


def provider_adapter(provider: str) -> Adapter:
    """The first adapter of ``provider``: where its provider-wide rules are read."""
    for a in ADAPTERS.values():
        if a.PROVIDER == provider:
            return a
    raise ValueError(f"unknown provider {provider!r}; expected one of {sorted({a.PROVIDER for a in ADAPTERS.values()})}")


def model_adapter(model: str | None) -> Adapter | None:
    """The adapter whose provider serves ``model``, by its ``MODEL_PREFIXES`` (the whole
    name or its last path segment: ``anthropic/claude-…`` as LiteLLM spells it); None
    for a model no adapter claims."""
    name = (model or "").lower()
    names = (name, name.rsplit("/", 1)[-1])
    for a in ADAPTERS.values():
        if any(n.startswith(a.MODEL_PREFIXES) for n in names if n):
            return a
    return None


def token_factor(model: str | None) -> float:
    """tiktoken count x this = ``model``'s tokens (1.0 for a model no adapter claims)."""
    a = model_adapter(model)
    return a.TOKEN_FACTOR if a is not None else 1.0


def image_rules(provider: str) -> ImageRules:
    """``provider``'s image token and size rules."""
    return provider_adapter(provider).IMAGES


def prefix_view(body: dict[str, Any], fmt: str | None = None) -> PrefixView:
    """What a prompt cache sees of ``body`` (tools, system, items), in ``fmt`` or the
    detected format."""
    try:
        return adapter(fmt or detect_format(body)).prefix_view(body)
    except ValueError:  # no conversation at all: tools and system still make a prefix
        return PrefixView(body.get("model"), body.get("tools"), body.get("system"), [])


__all__ = [
    "ADAPTERS",
    "ANTHROPIC",
    "GEMINI",
    "OPENAI_CHAT",
    "OPENAI_RESPONSES",
    "RETRIEVE_TOOL_NAME",
    "Adapter",
    "Block",
    "BlockKind",
    "Conversation",
    "ImageData",
    "ImageRules",
    "Message",
    "PrefixView",
    "Role",
    "adapter",
    "content_hash",
    "detect_format",
    "image_rules",
    "is_retrieve_tool",
    "model_adapter",
    "parse",
    "prefix_view",
    "provider_adapter",
    "provider_of",
    "register",
    "render",
    "token_factor",
]
