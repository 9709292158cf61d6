"""Anthropic's prices (the rest of the provider is ``formats/anthropic.py``)."""

from __future__ import annotations

from .base import Provider


class AnthropicProvider(Provider):
    name = "anthropic"
