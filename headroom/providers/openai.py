"""OpenAI's prices (the rest of the provider is ``formats/openai_chat.py`` and
``formats/openai_responses.py``)."""

from __future__ import annotations

from .base import Provider


class OpenAIProvider(Provider):
    name = "openai"
