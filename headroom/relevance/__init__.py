"""Relevance scoring: which items of a tool output matter for the current question.

``scorer_for(config.relevance)`` gives the scorer compressors receive as
``CompressInput.relevance``: ``None`` for BM25 (the compressors' built-in default),
otherwise a callable ``(query, items) -> list[float]``, higher = more relevant.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING

from .bm25 import BM25, tokenize

if TYPE_CHECKING:
    from ..config import RelevanceConfig

Scorer = Callable[[str, list[str]], list[float]]


def scorer_for(config: RelevanceConfig) -> Scorer | None:
    """The scorer a :class:`~headroom.config.RelevanceConfig` asks for (models load lazily)."""
    if config.mode == "bm25":
        return None
    if config.mode == "embedding":
        from .embedding import EmbeddingScorer

        return EmbeddingScorer(config.device, config.model_path)
    if config.mode == "hybrid":
        from .hybrid import HybridScorer

        return HybridScorer(config.device, config.model_path)
    raise ValueError(f"unknown relevance mode {config.mode!r}")


__all__ = ["BM25", "Scorer", "scorer_for", "tokenize"]
