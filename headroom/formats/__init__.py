"""Wire formats ⇄ the neutral conversation model.

``parse(body, fmt)`` and ``render(conversation)`` are the only entry points the rest of
headroom uses; ``detect_format`` guesses the format of a bare body or message list.
"""

from __future__ import annotations

from typing import Any, cast

from . import anthropic, gemini, openai_chat, openai_responses
from .adapter import Adapter
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


def adapter(fmt: str) -> Adapter:
    try:
        return ADAPTERS[fmt]
    except KeyError:
        raise ValueError(f"unknown format {fmt!r}; expected one of {sorted(ADAPTERS)}") from None


def detect_format(body: dict[str, Any], model: str | None = None) -> str:
    """Guess the wire format of a request body."""
    if "input" in body and "messages" not in body:
        return OPENAI_RESPONSES
    if "contents" in body and "messages" not in body:
        return GEMINI
    messages = body.get("messages")
    if not isinstance(messages, list):
        raise ValueError("request body has neither 'messages' nor 'input'")
    if "system" in body:
        return ANTHROPIC
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


__all__ = [
    "ADAPTERS",
    "Adapter",
    "ANTHROPIC",
    "GEMINI",
    "OPENAI_CHAT",
    "OPENAI_RESPONSES",
    "RETRIEVE_TOOL_NAME",
    "Block",
    "BlockKind",
    "Conversation",
    "ImageData",
    "Message",
    "Role",
    "adapter",
    "content_hash",
    "detect_format",
    "is_retrieve_tool",
    "parse",
    "provider_of",
    "render",
]
