"""BM25 scores of many small documents against one question, the same floats as
``relevance.bm25.BM25(docs).scores(query)``, for less (issue 34).

BM25 builds a term counter per document and an idf for every term of every document;
a question has a handful of terms. Here the scores are summed term by term: a term's
documents are those whose alphanumeric runs hold it, and every document's length comes
from its runs plus its compound tokens, found in one scan of the documents joined by
newlines. TextCrusher has each sentence's lower-cased text, runs and run set at hand
already and passes them: a term's documents are then one C-level intersection of the
question's terms with each set, its count there a ``list.count``. Table rows and JSON
items are taken apart here, and building a set per row would cost more than the sums:
each alphanumeric term is found as a whole run by one regex scan of the joined text
(issue 34: BM25 over a 1 500-row hex dump ~14 -> ~6 ms). Half to two thirds of BM25's
time on man pages, import-time tables and JSON rows.

Why the lengths agree: ``bm25.tokenize`` gives a document's tokens plus the alphanumeric
parts of its compound ones ("alt-svc" gives "alt-svc", "alt", "svc"). Every run of
letters and digits lies in exactly one token, whole when the token is simple, as a part
when it is compound, so those runs are the simple tokens and the parts together: the
length is the runs plus the compound tokens, and an alphanumeric term occurs as often as
it does among the runs (a compound term, among the tokens). Neither a run nor a token
crosses a newline, so documents joined by newlines are measured in one pass.
"""

from __future__ import annotations

import math
import re
from bisect import bisect_right
from collections import Counter
from itertools import accumulate, count, repeat
from operator import add
from typing import TYPE_CHECKING

from ..relevance.bm25 import _TOKEN_RE, tokenize

if TYPE_CHECKING:
    from .base import CompressInput

_RUN = re.compile(r"[a-z0-9]+")
# One match per compound token (a token holding "_" or a separator between two token
# characters), found at its first such mark and run to the token's end; a sentence's
# closing "." or an option's leading "--" alone make none. The pattern starts with a
# character set, which the regex engine scans for in C: counting a man page's compound
# tokens this way costs a sixth of finding every token and asking each isalnum().
_COMPOUND = re.compile(r"[_.\-:/](?:(?<=_)|(?<=[a-z0-9][.\-:/])[.\-:/]*(?=[a-z0-9_]))[a-z0-9_.\-:/]*")
K1, B = 1.5, 0.75  # BM25's defaults
# Every byte but a-z and 0-9 becomes a space (see alnum_runs).
_RUN_BYTES_ONLY = bytes(c if 48 <= c <= 57 or 97 <= c <= 122 else 32 for c in range(256))


def alnum_runs(lowered: list[str]) -> list[list[str]]:
    """``[_RUN.findall(s) for s in lowered]``, in half the time (a man page's 2 700
    sentences: 13 ms -> 6 ms; issue 34). The run characters are ASCII, so each text is
    encoded to ASCII with every other character as "?", which ends a run as it does for
    the regex; every byte that is no run character becomes a space, and ``str.split``
    then gives the runs. All four steps are C calls, mapped without a Python loop."""
    ascii_texts = map(str.encode, lowered, repeat("ascii"), repeat("replace"))
    spaced = map(bytes.translate, ascii_texts, repeat(_RUN_BYTES_ONLY))
    return list(map(str.split, map(bytes.decode, spaced)))


def bm25_scores(query: str, docs: list[str], lowered: list[str] | None = None,
                runs: list[list[str]] | None = None, run_sets: list[frozenset[str]] | None = None) -> list[float]:
    """``BM25(docs).scores(query)``. ``lowered`` (each doc lower-cased), ``runs`` (each
    lowered doc's ``[a-z0-9]+`` runs) and ``run_sets`` (the set of each doc's runs) may be
    passed when the caller has them."""
    n = len(docs)
    if not n:
        return []
    q = set(tokenize(query))  # iterated in the same order as BM25's own set of the query
    if not q:
        return [0.0] * n
    low = lowered if lowered is not None else list(map(str.lower, docs))
    if runs is None:
        runs = alnum_runs(low)
    return _scores_by_term(list(q), low, runs, run_sets)  # the set's order: BM25's order of each sum


def relevance_scores(inp: CompressInput, items: list[str]) -> list[float]:
    """``inp.relevance_scores(items)`` (an embedding scorer when the pipeline has one, else
    BM25 against the question), the same floats: BM25 through :func:`bm25_scores`, which
    takes apart only the items holding a question term (two thirds of BM25's time on
    python -X importtime's 1 300 table rows, half on 28 JSON rows; issue 34)."""
    if inp.relevance is None and inp.query and items:
        return bm25_scores(inp.query, items)
    return inp.relevance_scores(items)


def _scores_by_term(terms: list[str], low: list[str], runs: list[list[str]],
                    sets: list[frozenset[str]] | None) -> list[float]:
    """``bm25_scores`` term by term: a term's documents are found by a set look-up each
    when the caller has each document's set of runs (a question's "i", "is", "the" are
    substrings of nearly every sentence but whole runs of fewer), else by one regex scan
    of the joined text for the term as a whole run; every document's compound tokens in
    one scan of the joined text. Each document's sum still adds its terms in the query
    set's order (one term after the other), so the floats agree."""
    n = len(low)
    joined = "\n".join(low)
    # Where each document starts in ``joined``: the lengths before it plus a newline
    # after each, summed in C.
    starts = list(map(add, accumulate(map(len, low), initial=0), count()))[:n]
    lengths = _lengths(runs, joined, starts)
    avgdl = sum(lengths) / n
    # Tokens are ASCII and lower-case, so an alphanumeric term is an [a-z0-9]+ run.
    alnum = frozenset(t for t in terms if t.isalnum())
    docs_of = _docs_by_sets(alnum, sets) if sets is not None else {}
    found: list[tuple[str, list[int], list[int]]] = []
    for t in terms:
        if t in alnum and sets is not None:
            docs = docs_of[t]
            counts = [runs[d].count(t) for d in docs]
        elif t in alnum:
            docs, counts = _docs_with_run(t, joined, starts)
        else:
            docs, counts = _docs_with_token(t, joined, starts, low)
        if docs:
            found.append((t, docs, counts))
    out = [0.0] * n
    norms: dict[int, float] = {}
    for t, docs, counts in found:
        f_t = len(docs)
        idf = math.log(1 + (n - f_t + 0.5) / (f_t + 0.5))
        for d, f in zip(docs, counts):
            norm = norms.get(d)
            if norm is None:
                norm = norms[d] = K1 * (1 - B + B * lengths[d] / avgdl) if avgdl else K1
            out[d] += idf * f * (K1 + 1) / (f + norm)
    return out


def _lengths(runs: list[list[str]], joined: str, starts: list[int]) -> list[int]:
    """Each document's BM25 length: its runs plus its compound tokens (none crosses the
    newline between two documents). The compound tokens' documents are found by a C-level
    map of ``bisect_right`` over their offsets and counted by a Counter."""
    lengths = list(map(len, runs))
    offsets = map(_match_start, _COMPOUND.finditer(joined))
    for d, k in Counter(map(bisect_right, repeat(starts), offsets)).items():
        lengths[d - 1] += k
    return lengths


_match_start = re.Match.start


def _docs_by_sets(alnum: frozenset[str], sets: list[frozenset[str]]) -> dict[str, list[int]]:
    """The documents of each alphanumeric term, in order: one C-level intersection of the
    question's terms with each document's set of runs."""
    docs_of: dict[str, list[int]] = {t: [] for t in alnum}
    for d, hit in enumerate(map(alnum.intersection, sets)):
        if hit:
            for t in hit:
                docs_of[t].append(d)
    return docs_of


def _docs_with_run(term: str, joined: str, starts: list[int]) -> tuple[list[int], list[int]]:
    """The documents holding ``term`` as a whole run, in order, and how often each: one
    regex scan of the joined text instead of a set of runs per document (table rows, JSON
    items: building the sets cost more than BM25's sums; issue 34). An occurrence with no
    [a-z0-9] on either side is one of the document's runs, and every run equal to the term
    is such an occurrence, so the counts are ``runs[d].count(term)``."""
    docs: list[int] = []
    counts: list[int] = []
    # The term first, then the look-behind over it: a pattern that starts with a literal
    # is searched for by the regex engine's fast scan (a look-behind first: 10x slower).
    # (An alphanumeric term needs no escaping.)
    pattern = re.compile(term + r"(?<![a-z0-9]" + term + r")(?![a-z0-9])")
    for d in map(bisect_right, repeat(starts), map(_match_start, pattern.finditer(joined))):
        if docs and docs[-1] == d - 1:
            counts[-1] += 1
        else:
            docs.append(d - 1)
            counts.append(1)
    return docs, counts


def _docs_with_token(term: str, joined: str, starts: list[int], low: list[str]) -> tuple[list[int], list[int]]:
    """The documents holding ``term`` (a compound token) among their tokens, in order, and
    how often each. A term holds no newline, so each occurrence in ``joined`` lies in one
    document: only the documents it occurs in are tokenized."""
    docs: list[int] = []
    counts: list[int] = []
    n = len(low)
    i = joined.find(term)
    while i != -1:
        d = bisect_right(starts, i) - 1
        c = _TOKEN_RE.findall(low[d]).count(term)
        if c:
            docs.append(d)
            counts.append(c)
        i = joined.find(term, starts[d + 1]) if d + 1 < n else -1
    return docs, counts
