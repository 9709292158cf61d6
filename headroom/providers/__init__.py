"""Providers: prices and context windows per model (``prices.json``). What else a provider
is (wire format, tokenizer, images, caching) lives in its adapter under ``formats/``."""

from __future__ import annotations

from ..formats import model_adapter, provider_of
from .anthropic import AnthropicProvider
from .base import CostEstimate, Provider
from .google import GoogleProvider
from .openai import OpenAIProvider
from .prices import ModelPrice, lookup, price_table, reset_prices, update_prices

_CLASSES: dict[str, type[Provider]] = {c.name: c for c in (AnthropicProvider, GoogleProvider, OpenAIProvider)}


def provider_named(name: str) -> Provider:
    """The provider called ``name`` (its key in ``prices.json``, its adapters' PROVIDER)."""
    cls = _CLASSES.get(name)
    return cls() if cls is not None else Provider(name)


def provider_of_model(model: str | None, fmt: str | None = None) -> Provider:
    """The provider whose price table lists ``model``; else the one whose adapter claims
    its name; else the provider of the wire format ``fmt`` it is sent in (OpenAI without
    one)."""
    for name in price_table():
        if lookup(name, model) is not None:
            return provider_named(name)
    a = model_adapter(model)
    if a is not None:
        return provider_named(a.PROVIDER)
    return provider_named(provider_of(fmt) if fmt else "openai")


def context_window(model: str | None, fmt: str | None = None) -> int:
    """The model's context window in tokens, from the one table (``prices.json``), else
    the default of its provider (see :func:`provider_of_model`)."""
    return provider_of_model(model, fmt).context_limit(model)


__all__ = [
    "AnthropicProvider",
    "CostEstimate",
    "GoogleProvider",
    "ModelPrice",
    "OpenAIProvider",
    "Provider",
    "context_window",
    "lookup",
    "price_table",
    "provider_named",
    "provider_of_model",
    "reset_prices",
    "update_prices",
]
