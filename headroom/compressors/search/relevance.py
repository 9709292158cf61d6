"""BM25 scores of hit lines against the question, the same floats as
``BM25(lines).scores(question)`` at a fraction of its cost.

The full index counts every term of every line into a ``Counter`` and takes an idf for
each, to then read the handful of terms the question has: on a grep output that was the
largest part of the compressor's time. Here a line is tokenised once (the same
:func:`headroom.relevance.bm25.tokenize` rules), its length kept, and only the question's
terms are counted; idf is taken for those terms alone. The arithmetic is the index's own,
term by term in the same order, so every score is bit-for-bit the same float (the
ranking, and so the output, does not move).
"""

from __future__ import annotations

from ...relevance.bm25 import _PART_RE, _TOKEN_RE, BM25, tokenize

_K1, _B = 1.5, 0.75  # BM25's defaults, as the index uses them


def bm25_scores(query: str, docs: list[str]) -> list[float]:
    """``BM25(docs).scores(query)``."""
    query_tokens = tokenize(query)
    q = set(query_tokens)  # the index iterates the same set: the same order of sums
    if not docs:
        return []
    tokens_of = _TOKEN_RE.findall
    parts_of = _PART_RE.findall
    lengths: list[int] = []
    counts: list[dict[str, int]] = []  # the question's terms in each line ({} for none)
    for d in docs:
        toks = tokens_of(d.lower())
        compound = [t for t in toks if not t.isalnum()]
        if compound:
            toks += parts_of(" ".join(compound))
        lengths.append(len(toks))
        common = q.intersection(toks) if q else None
        counts.append({t: toks.count(t) for t in common} if common else {})
    # The index's own arithmetic, from these counts (the same floats, term by term).
    # The query's tokens as tokenize gave them: a set built from them iterates as the
    # index's own does (a set rebuilt from another set's order may not, and float sums in
    # another order differ in the last bit).
    return BM25.scores_from_frequencies(counts, lengths, query_tokens, _K1, _B)
