"""Hybrid relevance: BM25 for exact names, embeddings for meaning, mixed per query.

The mix adapts to the question. When it names exact identifiers (``ORD-4411``,
``user_42``, ``auth.py``, a UUID, a number) the items that contain them are the answer and
embeddings blur near-identical ids together, so BM25 gets most of the weight. A question
in plain words leans on embeddings. When BM25 matches nothing at all, only embeddings
can say anything.
"""

from __future__ import annotations

import re

from ..query.bounded import scan_tokens
from .bm25 import BM25
from .embedding import EmbeddingScorer

# Tokens that look like exact identifiers: contain a digit, an inner _ . / or -, or camelCase.
_EXACT_ID = re.compile(
    r"\b[0-9a-fA-F]{8}-[0-9a-fA-F-]{27}\b"  # UUID
    r"|\b(?:[A-Za-z0-9]+[-_.:/])*[A-Za-z0-9]*\d[A-Za-z0-9]*(?:[-_.:/][A-Za-z0-9]+)*"  # ORD-4411, v1.2, 10.0.0.1
    r"|\b[A-Za-z0-9]+(?:[_./][A-Za-z0-9]+)+\b"  # snake_case, dotted, paths: auth.py, src/app
    r"|\b[a-z]+[A-Z][A-Za-z0-9]*\b"  # camelCase
)

# MiniLM embeds ~400 short texts/s on 2 CPU cores: embedding every line of a 10 000-line
# output would blow the router's deadline, and the output would then go uncompressed.
MAX_EMBEDDED = 256
# Its cost grows with the text: on this project's 2-core machine, under load, it embedded
# 3.5-5K characters of log lines or JSON rows a second (256 `dpkg -l` lines took 2.5-7 s,
# past the router's 2 s deadline, and every such output went through uncompressed). So on
# a CPU the candidates are also bounded by their characters, about a second's worth; an
# accelerator takes 24 times as much. Never fewer than MIN_EMBEDDED candidates.
MAX_EMBEDDED_CHARS_CPU = 4_000
MAX_EMBEDDED_CHARS_ACCELERATOR = 96_000
MIN_EMBEDDED = 16
# MiniLM reads at most 256 word pieces (about 1 000 characters); longer items are cut
# before they are embedded rather than tokenized whole and truncated by the model.
ITEM_CHARS = 1_000
# ... and cut shorter when the candidates' characters would pass the budget: sixteen code
# units of a thousand characters took 1.6 s on this project's 2-core machine (the router's
# deadline is 2 s, and those outputs went through whole). A unit's opening (its signature
# and docstring, a row's first fields) is what its embedding is read from first.
MIN_ITEM_CHARS = 240
ID_WEIGHT = 0.75  # BM25 share when the query names exact ids
WORD_WEIGHT = 0.15  # BM25 share for a plain-language question: a tie-breaker


def exact_ids(query: str) -> list[str]:
    return [m for m in scan_tokens(query, _EXACT_ID) if len(m) >= 2]


def bm25_weight(query: str, bm25_scores: list[float]) -> float:
    if not any(s > 0 for s in bm25_scores):
        return 0.0
    return ID_WEIGHT if exact_ids(query) else WORD_WEIGHT


def _scale(scores: list[float]) -> list[float]:
    """Min-max to [0, 1] within this item list, so the two signals are comparable."""
    lo, hi = min(scores), max(scores)
    if hi - lo < 1e-9:
        return [0.0] * len(scores)
    return [(s - lo) / (hi - lo) for s in scores]


def embedding_candidates(lexical: list[float], limit: int) -> list[int]:
    """Which items to embed when there are too many: BM25's best half of the budget, the
    rest spread evenly over the output (so a paraphrase anywhere can still be found)."""
    n = len(lexical)
    if n <= limit:
        return list(range(n))
    ranked = sorted((i for i in range(n) if lexical[i] > 0), key=lambda i: (-lexical[i], i))
    chosen = set(ranked[: limit // 2])
    step = n / (limit - len(chosen))
    k = 0.0
    while len(chosen) < limit and k < n:
        chosen.add(int(k))
        k += step
    for i in range(n):  # spread points that hit BM25 picks leave a few slots: fill them
        if len(chosen) >= limit:
            break
        chosen.add(i)
    return sorted(chosen)


def embedding_limit(items: list[str], max_items: int, max_chars: int) -> int:
    """How many of ``items`` to embed: ``max_items``, fewer when their (cut) length
    would pass ``max_chars`` on average, never fewer than ``MIN_EMBEDDED``."""
    if not items:
        return 0
    mean = sum(min(len(t), ITEM_CHARS) for t in items) / len(items)
    return max(min(MIN_EMBEDDED, max_items), min(max_items, int(max_chars / max(mean, 1.0))))


def item_chars(n: int, max_chars: int) -> int:
    """How much of each of ``n`` candidates to embed: their share of ``max_chars``, between
    ``MIN_ITEM_CHARS`` and ``ITEM_CHARS``."""
    return max(MIN_ITEM_CHARS, min(ITEM_CHARS, max_chars // max(n, 1)))


class HybridScorer:
    def __init__(self, device: str = "cpu", model_path: str | None = None, max_embedded: int = MAX_EMBEDDED):
        self.embedding = EmbeddingScorer(device, model_path)
        self.max_embedded = max_embedded
        self.max_chars = MAX_EMBEDDED_CHARS_CPU if self.embedding.device == "cpu" else MAX_EMBEDDED_CHARS_ACCELERATOR

    def __call__(self, query: str, items: list[str]) -> list[float]:
        if not items:
            return []
        lexical = BM25(items).scores(query)
        picked = embedding_candidates(lexical, embedding_limit(items, self.max_embedded, self.max_chars))
        cut = item_chars(len(picked), self.max_chars)
        if len(picked) == len(items):
            semantic = self.embedding(query, [t[:cut] for t in items])
        else:  # items not embedded get the lowest semantic score
            scores = self.embedding(query, [items[i][:cut] for i in picked])
            semantic = [min(scores)] * len(items)
            for i, sc in zip(picked, scores):
                semantic[i] = sc
        w = bm25_weight(query, lexical)
        return [w * b + (1 - w) * e for b, e in zip(_scale(lexical), _scale(semantic))]
