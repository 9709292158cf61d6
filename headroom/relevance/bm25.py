"""Okapi BM25 over small in-memory corpora (tool-output items, lines, sentences)."""

from __future__ import annotations

import math
import operator
import re
from collections import Counter
from itertools import repeat

# Identifiers such as ``user_42``, ``a1b2-c3``, ``10.0.0.1`` stay whole: they are what
# agents ask about, and splitting them would match unrelated items.
_TOKEN_RE = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.\-:/]*[A-Za-z0-9_]|[A-Za-z0-9_]")


_PART_RE = re.compile(r"[a-z0-9]+")


def tokenize(text: str) -> list[str]:
    """Whole tokens, then the parts of compound ones (``user_42`` also gives ``user``
    and ``42``), so a question naming either finds the item. Order carries no meaning.

    Tokens are ASCII, so ``isalnum()`` is false exactly for the compound ones (they hold
    a separator); their parts are the alphanumeric runs, found in one regex pass.
    """
    tokens = _TOKEN_RE.findall(text.lower())
    compound = [t for t in tokens if not t.isalnum()]
    if compound:
        tokens += _PART_RE.findall(" ".join(compound))
    return tokens


class BM25:
    def __init__(self, docs: list[str], k1: float = 1.5, b: float = 0.75, *, counts: list[Counter] | None = None):
        self.k1, self.b = k1, b
        self.doc_tokens = counts if counts is not None else [Counter(tokenize(d)) for d in docs]
        self.lengths = [c.total() for c in self.doc_tokens]
        self.avgdl = (sum(self.lengths) / len(self.lengths)) if self.lengths else 0.0
        df: Counter[str] = Counter()
        for c in self.doc_tokens:
            df.update(c.keys())
        n = len(self.doc_tokens)
        self.idf = {t: math.log(1 + (n - f + 0.5) / (f + 0.5)) for t, f in df.items()}

    @classmethod
    def from_counts(cls, counts: list[Counter], k1: float = 1.5, b: float = 0.75) -> BM25:
        """An index over documents already counted as terms (a caller with its own tokenizer)."""
        return cls([], k1, b, counts=counts)

    def scores(self, query: str) -> list[float]:
        return self.scores_for_tokens(tokenize(query))

    def scores_for_tokens(self, query_tokens: list[str]) -> list[float]:
        q = set(query_tokens)
        out: list[float] = []
        for counts, length in zip(self.doc_tokens, self.lengths):
            s = 0.0
            norm = self.k1 * (1 - self.b + self.b * length / self.avgdl) if self.avgdl else self.k1
            for t in q:
                f = counts.get(t)
                if f:
                    s += self.idf[t] * f * (self.k1 + 1) / (f + norm)
            out.append(s)
        return out

    @staticmethod
    def scores_from_counts(counts: list[Counter], query_tokens: list[str], k1: float = 1.5,
                           b: float = 0.75) -> list[float]:
        """``BM25.from_counts(counts, k1, b).scores_for_tokens(query_tokens)``, the same
        floats, without the index: document frequencies and idf are taken for the query's
        terms only, not for every term of every document (a source file's units hold
        thousands; a question a handful)."""
        return BM25.scores_from_frequencies(counts, [c.total() for c in counts], query_tokens, k1, b)

    @staticmethod
    def scores_from_frequencies(freqs: list, lengths: list[int], query_tokens: list[str], k1: float = 1.5,
                                b: float = 0.75) -> list[float]:
        """The same floats from each document's length and a mapping of (at least) the
        query's terms to their positive counts in it: a caller that counts only the
        query's terms need not build a Counter of every term of every document."""
        q = set(query_tokens)
        avgdl = (sum(lengths) / len(lengths)) if lengths else 0.0
        n = len(freqs)
        idf = {}
        for t in q:
            f = sum(map(operator.contains, freqs, repeat(t)))  # documents holding t, counted in C
            if f:
                idf[t] = math.log(1 + (n - f + 0.5) / (f + 0.5))
        # The terms some document holds, in the set's order: a term no document holds adds
        # nothing anywhere, and a document holding none of them scores 0.0 whatever its length.
        held = list(idf)
        out: list[float] = []
        for c, length in zip(freqs, lengths):
            s = 0.0
            if c:
                norm = k1 * (1 - b + b * length / avgdl) if avgdl else k1
                for t in held:
                    f = c.get(t)
                    if f:
                        s += idf[t] * f * (k1 + 1) / (f + norm)
            out.append(s)
        return out

    def top(self, query: str, k: int) -> list[int]:
        """Indices of the k best-scoring documents with a positive score, best first."""
        scored = [(s, i) for i, s in enumerate(self.scores(query)) if s > 0]
        scored.sort(key=lambda x: (-x[0], x[1]))
        return [i for _, i in scored[:k]]
