"""Prices and context windows of one provider, from ``prices.json``.

A provider is plain data plus lookups; it never talks to the network. Everything else
about a provider (its wire format, tokenizer correction, default window, image rules,
prompt caching) is its adapter's, under ``headroom/formats/``; token counts come from
:mod:`headroom.token_accounting` (offline tiktoken times the adapter's correction).
"""

from __future__ import annotations

from dataclasses import dataclass

from ..formats import provider_adapter
from ..token_accounting import model_counter
from ..tokens import TokenCounter
from .prices import ModelPrice, lookup

_MILLION = 1_000_000


@dataclass(frozen=True)
class CostEstimate:
    """USD for one request; ``None`` fields mean the model's price is unknown."""

    model: str
    input_usd: float | None
    output_usd: float | None
    total_usd: float | None


# The window of a model neither the price table nor any adapter knows.
FALLBACK_CONTEXT = 128_000


class Provider:
    """The prices of the provider ``name`` (a key of ``prices.json`` and an adapter's
    ``PROVIDER``)."""

    name = "generic"

    def __init__(self, name: str | None = None):
        if name is not None:
            self.name = name

    @property
    def default_context(self) -> int:
        """The window of a model not in the price table (the adapter's), so budgets still
        have a bound."""
        try:
            return provider_adapter(self.name).DEFAULT_CONTEXT
        except ValueError:
            return FALLBACK_CONTEXT

    def price(self, model: str | None) -> ModelPrice | None:
        return lookup(self.name, model)

    def context_limit(self, model: str | None) -> int:
        p = self.price(model)
        return p.context if p else self.default_context

    def counter(self, model: str | None) -> TokenCounter:
        return model_counter(model)

    def count_tokens(self, text: str, model: str | None = None) -> int:
        return self.counter(model).count(text)

    def supports(self, model: str | None) -> bool:
        """Whether ``model`` is in this provider's price table."""
        return self.price(model) is not None

    def estimate_cost(
        self,
        model: str,
        input_tokens: int,
        output_tokens: int = 0,
        *,
        cached_tokens: int = 0,
        cache_write_tokens: int = 0,
    ) -> CostEstimate:
        """Cost of a request. ``input_tokens`` includes ``cached_tokens`` (as OpenAI reports
        usage); cached tokens are billed at the cache-read price where one is listed."""
        p = self.price(model)
        if p is None:
            return CostEstimate(model, None, None, None)
        cached = min(max(cached_tokens, 0), max(input_tokens, 0))
        fresh = max(input_tokens - cached - cache_write_tokens, 0)
        read_price = p.cached_input if p.cached_input is not None else p.input
        write_price = p.cache_write if p.cache_write is not None else p.input
        inp = (fresh * p.input + cached * read_price + cache_write_tokens * write_price) / _MILLION
        out = output_tokens * p.output / _MILLION
        return CostEstimate(model, round(inp, 8), round(out, 8), round(inp + out, 8))

    def savings_usd(self, model: str, tokens_saved: int) -> float | None:
        """What ``tokens_saved`` input tokens would have cost at the uncached input price."""
        p = self.price(model)
        return None if p is None else round(tokens_saved * p.input / _MILLION, 8)

    def __repr__(self) -> str:
        return f"{type(self).__name__}()" if type(self) is not Provider else f"Provider({self.name!r})"
