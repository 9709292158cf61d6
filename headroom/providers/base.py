"""What headroom needs to know about a provider: context windows, token counts, prices.

A provider is plain data plus lookups; it never talks to the network. Token counts come
from :mod:`headroom.tokens` (offline tiktoken), prices and windows from ``prices.json``.
"""

from __future__ import annotations

from dataclasses import dataclass

from ..tokens import TokenCounter, counter_for
from .prices import ModelPrice, lookup

_MILLION = 1_000_000


@dataclass(frozen=True)
class CostEstimate:
    """USD for one request; ``None`` fields mean the model's price is unknown."""

    model: str
    input_usd: float | None
    output_usd: float | None
    total_usd: float | None


class Provider:
    """Base class: subclasses set ``name``, ``wire_format`` and ``default_context``."""

    name = "generic"
    wire_format = "openai_chat"
    # Used when a model is not in the price table, so budgets still have a bound.
    default_context = 128_000

    def price(self, model: str | None) -> ModelPrice | None:
        return lookup(self.name, model)

    def context_limit(self, model: str | None) -> int:
        p = self.price(model)
        return p.context if p else self.default_context

    def counter(self, model: str | None) -> TokenCounter:
        return counter_for(model)

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
        return f"{type(self).__name__}()"
