"""Provider prompt-cache optimisation and the prefix-stability report."""

from .anthropic import MAX_BREAKPOINTS, AnthropicCacheOptimizer, count_breakpoints
from .optimizer import CacheOptimizer
from .stability import PrefixTracker, TurnStability, prefix_elements

__all__ = [
    "MAX_BREAKPOINTS",
    "AnthropicCacheOptimizer",
    "CacheOptimizer",
    "PrefixTracker",
    "TurnStability",
    "count_breakpoints",
    "prefix_elements",
]
