"""Anthropic: Messages format; token counts are cl100k estimates (see headroom.tokens)."""

from __future__ import annotations

from .base import Provider


class AnthropicProvider(Provider):
    name = "anthropic"
    wire_format = "anthropic"
    default_context = 200_000
    # Anthropic accepts at most this many cache_control breakpoints per request.
    max_cache_breakpoints = 4
