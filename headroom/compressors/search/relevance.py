"""BM25 scores of hit lines against the question, the same floats as
``BM25(lines).scores(question)`` at a fraction of its cost.

The full index counts every term of every line into a ``Counter`` and takes an idf for
each, to then read the handful of terms the question has. Here only each line's length (in
:func:`headroom.relevance.bm25.tokenize`'s tokens) and the question's terms are counted;
idf is taken for those terms alone. The arithmetic is the index's own, term by term in
the same order, so every score is bit-for-bit the same float (the ranking, and so the
output, does not move).

The lines are not run through tokenize's regexes either (one pass of Python's regex
engine per line was most of the compressor's time on C headers): the lower-cased lines,
as ASCII bytes, are mapped by two byte tables in C, and ``split`` does the rest. Why that
is the same count:

* a token is a maximal run of token characters (``[a-z0-9_.:/-]``) holding a word
  character, its leading and trailing ``.:/-`` stripped (the regex's greedy body backs off
  to its last word character, and what it leaves cannot start a token);
* a *part* is a maximal ``[a-z0-9]`` run; every such run lies inside one token, and a
  token that is not alphanumeric (a *compound*) has its runs as its parts;
* so a line's tokens-plus-parts are its compounds and its runs (an alphanumeric token is
  one run), an alphanumeric question term occurs as often as it is a run, and a compound
  one as often as it is a compound token.

Characters outside ASCII (after lower-casing) are never token characters: they become
``?``, which is not one either.
"""

from __future__ import annotations

from ...relevance.bm25 import _PART_RE, _TOKEN_RE, BM25, tokenize

_K1, _B = 1.5, 0.75  # BM25's defaults, as the index uses them
_SEPS = b".-:/"  # token characters that are not word characters
_ALNUM = b"abcdefghijklmnopqrstuvwxyz0123456789"


def _table(keep: bytes) -> bytes:
    """A ``bytes.translate`` table: ``keep`` and ``\\n`` map to themselves, the rest to a space."""
    table = bytearray(b" " * 256)
    for c in keep + b"\n":
        table[c] = c
    return bytes(table)


_TOKEN_CHARS = _table(_ALNUM + b"_" + _SEPS)
_RUN_CHARS = _table(_ALNUM)


def bm25_scores(query: str, docs: list[str]) -> list[float]:
    """``BM25(docs).scores(query)``."""
    query_tokens = tokenize(query)
    if not docs:
        return []
    ascii_text = "\n".join(docs).lower().encode("ascii", "replace")
    chunk_lines = ascii_text.translate(_TOKEN_CHARS).split(b"\n")
    run_lines = ascii_text.translate(_RUN_CHARS).split(b"\n")
    if len(chunk_lines) != len(docs):  # a line holding a line break: token by token
        return _scores_by_regex(query_tokens, docs)
    # The question's terms as bytes, by kind; each count is keyed by the term itself.
    term_of = {t.encode(): t for t in query_tokens}
    # A term absent from the whole text is absent from every line: it is not looked for.
    present = [t for t in term_of if t in ascii_text]
    runs_asked = {t for t in present if t.isalnum()}
    compounds_asked = {t for t in present if not t.isalnum()}
    seps = _SEPS
    lengths: list[int] = []
    counts: list[dict[str, int]] = []  # the question's terms in each line ({} for none)
    for chunks, run_line in zip(chunk_lines, run_lines):
        runs = run_line.split()
        # Compound tokens: chunks with a separator or "_" that stay so once stripped (a
        # chunk of separators alone strips to b"", which is no token).
        compounds = [t for c in chunks.split() if not c.isalnum() and not (t := c.strip(seps)).isalnum()]
        n_compounds = len(compounds) - compounds.count(b"") if compounds else 0
        lengths.append(n_compounds + len(runs))
        found: dict[str, int] = {}
        if runs_asked:
            for t in runs_asked.intersection(runs):
                found[term_of[t]] = runs.count(t)
        if compounds_asked and n_compounds:
            for t in compounds_asked.intersection(compounds):
                found[term_of[t]] = compounds.count(t)
        counts.append(found)
    # The index's own arithmetic, from these counts (the same floats, term by term).
    # The query's tokens as tokenize gave them: a set built from them iterates as the
    # index's own does (a set rebuilt from another set's order may not, and float sums in
    # another order differ in the last bit).
    return BM25.scores_from_frequencies(counts, lengths, query_tokens, _K1, _B)


def _scores_by_regex(query_tokens: list[str], docs: list[str]) -> list[float]:
    """The same scores, each line tokenised by tokenize's own regexes."""
    q = set(query_tokens)
    lengths: list[int] = []
    counts: list[dict[str, int]] = []
    for d in docs:
        toks = _TOKEN_RE.findall(d.lower())
        compound = [t for t in toks if not t.isalnum()]
        if compound:
            toks += _PART_RE.findall(" ".join(compound))
        lengths.append(len(toks))
        common = q.intersection(toks) if q else None
        counts.append({t: toks.count(t) for t in common} if common else {})
    return BM25.scores_from_frequencies(counts, lengths, query_tokens, _K1, _B)
