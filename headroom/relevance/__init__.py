"""Relevance scoring: which items of a tool output matter for the current question."""

from .bm25 import BM25, tokenize

__all__ = ["BM25", "tokenize"]
