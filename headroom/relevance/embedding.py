"""Embedding relevance: cosine similarity between the question and each item (MiniLM).

Catches paraphrases BM25 cannot ("permission problems" vs "403 Forbidden"). Vectors are
cached per text hash inside :mod:`headroom.ml.embeddings`, so items resent on every turn
are embedded once.
"""

from __future__ import annotations

from ..ml.registry import resolve, resolve_device

MODEL = "all-minilm-l6-v2"


class EmbeddingScorer:
    """``(query, items) -> cosine similarities`` in [-1, 1], one per item."""

    def __init__(self, device: str = "cpu", model_path: str | None = None):
        # Resolve now so a missing model is one clear error at configuration time.
        self.location = resolve(MODEL, model_path)
        self.device = resolve_device(device)
        self.model_path = str(self.location.path)

    def __call__(self, query: str, items: list[str]) -> list[float]:
        if not items:
            return []
        if not query.strip():
            return [0.0] * len(items)
        from ..ml.embeddings import embed

        vectors = embed([query, *items], self.device, self.model_path)
        return [float(x) for x in vectors[1:] @ vectors[0]]
