"""Providers: context windows, token counting and prices per model (``prices.json``)."""

from __future__ import annotations

from .anthropic import AnthropicProvider
from .base import CostEstimate, Provider
from .google import GoogleProvider
from .openai import OpenAIProvider
from .prices import ModelPrice, lookup, price_table, reset_prices, update_prices


def provider_for(model: str | None, client: object = None) -> Provider:
    """Pick a provider from an SDK client's module or, failing that, the model name."""
    mod = type(client).__module__ if client is not None else ""
    if mod.startswith("anthropic"):
        return AnthropicProvider()
    name = (model or "").lower().split("/")[-1]
    if name.startswith("claude"):
        return AnthropicProvider()
    if name.startswith("gemini"):
        return GoogleProvider()
    return OpenAIProvider()


def context_window(model: str | None) -> int:
    """The model's context window in tokens, from the one table (``prices.json``)."""
    return provider_for(model).context_limit(model)


__all__ = [
    "AnthropicProvider",
    "CostEstimate",
    "GoogleProvider",
    "ModelPrice",
    "OpenAIProvider",
    "context_window",
    "Provider",
    "lookup",
    "price_table",
    "provider_for",
    "reset_prices",
    "update_prices",
]
