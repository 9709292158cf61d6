"""Google Gemini (through its OpenAI-compatible endpoint).

Google publishes no offline tokenizer, so counts are cl100k estimates; expect them to be
within roughly 10-15 % of Gemini's own ``countTokens`` on English text and JSON.
"""

from __future__ import annotations

from .base import Provider


class GoogleProvider(Provider):
    name = "google"
    wire_format = "openai_chat"
    default_context = 1_048_576
