"""OpenAI: o200k/cl100k tokenizers (exact), Chat Completions and Responses formats."""

from __future__ import annotations

from .base import Provider


class OpenAIProvider(Provider):
    name = "openai"
    wire_format = "openai_chat"
    default_context = 128_000
