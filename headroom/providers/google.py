"""Google Gemini's prices (the rest of the provider is ``formats/gemini.py``)."""

from __future__ import annotations

from .base import Provider


class GoogleProvider(Provider):
    name = "google"
