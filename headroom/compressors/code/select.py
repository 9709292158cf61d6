"""Which units stay whole: the ones the question describes, found by what they say.

Each function or block is scored against the question as one document: its name and
signature, its leading comments or docstring, its body's identifiers and comments, words
split at camelCase and snake_case and reduced to a crude stem ("pipes" and "piped" meet
"pipe"), so a question that names no symbol ("how does it handle named pipes?") still
finds the function whose docstring or code talks about them. BM25 ranks them; with a
configured relevance scorer (MiniLM, the ml extra) its scores are used instead, loaded
lazily by that scorer. The best few are kept whole; a unit that names an anchor of the
question (an identifier, a quoted value) is kept too.
"""

from __future__ import annotations

import re
from collections import Counter
from functools import lru_cache
from itertools import accumulate
from operator import neg

from ...relevance.bm25 import BM25
from .blocks import Unit

_WORD = re.compile(r"[A-Z]?[a-z]+|[A-Z]+(?![a-z])|\d+")
_STOP = frozenset(
    "a an the of to in on for and or is are be it its this that with as by at from how does do what when where "
    "which who why can could should would will not no if then else self this return def class function fn var let "
    "const new get set true false none null nil value values into out use used using about there their them they "
    "we you your i me my our".split())
_STEMS: dict[str, str] = {}

KEEP_AT_MOST = 3  # best matches kept whole
KEEP_RATIO = 0.6  # ... when their score is at least this share of the best one's


def _stem(word: str) -> str:
    w = word.lower()
    for suffix in ("ing", "ed", "es", "s"):
        if len(w) > len(suffix) + 3 and w.endswith(suffix) and not w.endswith("ss"):
            w = w[: -len(suffix)]
            break
    return "" if w in _STOP else w


def _stems_for(words) -> dict:
    """The stem of each word (memoised across calls, bounded); keys may be str or bytes."""
    if len(_STEMS) > 200_000:
        _STEMS.clear()
    for w in set(words).difference(_STEMS):
        _STEMS[w] = _stem(w.decode() if isinstance(w, bytes) else w)
    return _STEMS


def term_counts(words, stems: dict) -> Counter:
    counts = Counter(map(stems.__getitem__, words))
    counts.pop("", None)
    return counts


def terms(text: str) -> list[str]:
    """Stemmed words of ``text`` (identifiers split into their words), stop words dropped."""
    words = _WORD.findall(text)
    return list(term_counts(words, _stems_for(words)).elements())


_NAMES: dict[str, Counter] = {}
_NO_TERMS: Counter = Counter()


def _name_terms(name: str) -> Counter:
    """A name's words ("parseArgs": parse, arg), memoised across calls (bounded)."""
    got = _NAMES.get(name)
    if got is None:
        if len(_NAMES) > 50_000:
            _NAMES.clear()
        got = _NAMES[name] = Counter(terms(name))
    return got


# Letters lower-cased, everything else a space (line breaks kept): one bytes pass over the
# file gives every unit's words by a split, where a regex would build a match per word.
_LETTERS = bytes.maketrans(bytes(range(256)), bytes(
    c + 32 if 65 <= c <= 90 else c if 97 <= c <= 122 or c == 10 else 32 for c in range(256)))


def unit_term_counts(units: list[Unit], lines: list[str]) -> list[Counter]:
    """Each unit's stemmed words, from its leading comments to its body's end; a
    camelCase name also counts as its words ("parseArgs": parse, args). The meaning of
    the scores: unit_query_frequencies gives BM25 the same numbers for the question's
    terms without a Counter per unit (tests hold the two to the same floats)."""
    text = "\n".join(lines).encode("utf-8", "surrogatepass").translate(_LETTERS)
    tlines = text.split(b"\n")
    stems = _stems_for(text.split())
    out: list[Counter] = []
    for u in units:
        if u.kind == "container":
            out.append(Counter())
            continue
        words = b" ".join(tlines[_first_line(u): u.body_end + 1]).split()
        counts = term_counts(words, stems)
        if u.name:
            counts.update(_name_terms(u.name))
        out.append(counts)
    return out


_SUFFIXES = ("ing", "ed", "es", "s")


@lru_cache(maxsize=4096)
def _forms(stem: str) -> tuple[bytes, ...]:
    """Every word _stem may reduce to ``stem``: itself, or itself and one suffix."""
    return tuple(w.encode() for w in (stem, *(stem + s for s in _SUFFIXES)) if _stem(w) == stem)


# Every lower-case word whose stem is "" (a stop word, or one behind a suffix): a unit's
# length in terms is its word count less its words in this set.
_STOP_FORMS = frozenset(w.encode() for x in _STOP for w in (x, *(x + s for s in _SUFFIXES)) if _stem(w) == "")


def unit_query_frequencies(units: list[Unit], text: str, query_terms: list[str],
                           starts: list[int] | None = None) -> tuple[list[dict], list[int]]:
    """(each unit's counts of the question's terms, each unit's length in terms): what
    BM25 reads of unit_term_counts, without stemming the file.

    A stem has at most five surface forms (_stem strips one suffix), so the words that
    stand for the question's terms are known from the question alone, and so are the stop
    words: per unit, one split of its bytes and two C-level set lookups per word. Building
    a Counter of every unit's stems cost as much as masking the file. ``starts``: the
    text's line_starts, when at hand (byte offsets too where the text is ASCII)."""
    q = set(query_terms)
    forms = {w: t for t in q for w in _forms(t)}
    letters = text.encode("utf-8", "surrogatepass").translate(_LETTERS)
    if starts is None or len(letters) != len(text):  # offsets in bytes differ from those in characters
        starts = list(accumulate(map((1).__add__, map(len, letters.split(b"\n"))), initial=0))
    freqs: list[dict] = []
    lengths: list[int] = []
    for u in units:
        if u.kind == "container":
            freqs.append({})
            lengths.append(0)
            continue
        words = letters[starts[_first_line(u)]: starts[u.body_end + 1]].split()
        names = _name_terms(u.name) if u.name else _NO_TERMS
        f: dict[str, int] = {}
        for w in filter(forms.__contains__, words):
            t = forms[w]
            f[t] = f.get(t, 0) + 1
        for t, n in names.items():
            if t in q:
                f[t] = f.get(t, 0) + n
        freqs.append(f)
        lengths.append(len(words) - sum(map(_STOP_FORMS.__contains__, words)) + names.total())
    return freqs, lengths


def scores(units: list[Unit], lines: list[str], query: str, relevance=None, text: str | None = None,
           starts: list[int] | None = None) -> list[float]:
    """One score per unit (0 for containers: their members are scored instead).
    ``text``, ``starts``: ``"\\n".join(lines)`` and its line_starts, when the caller has them."""
    if relevance is not None:
        docs = ["" if u.kind == "container" else "\n".join(lines[_first_line(u): u.body_end + 1]) for u in units]
        return [0.0 if u.kind == "container" else s for u, s in zip(units, relevance(query, docs))]
    q = terms(query)
    if not q:
        return [0.0] * len(units)
    freqs, lengths = unit_query_frequencies(units, "\n".join(lines) if text is None else text, q, starts)
    return BM25.scores_from_frequencies(freqs, lengths, q)


def keep_whole(units: list[Unit], lines: list[str], query: str, anchors, relevance=None,
               text: str | None = None, starts: list[int] | None = None) -> set[int]:
    """Indices of the units the question is about (``text``, ``starts``: the lines joined
    and their line_starts, when at hand)."""
    chosen: set[int] = set()
    if not query:
        return chosen
    sc = scores(units, lines, query, relevance, text, starts)
    best = max(sc, default=0.0)
    if best > 0:
        # Highest score first, ties in file order (sorted in C, no key function per unit).
        ranked = [i for _, i in sorted(zip(map(neg, sc), range(len(sc))))[:KEEP_AT_MOST]]
        chosen.update(i for i in ranked if sc[i] >= KEEP_RATIO * best)
    if anchors:
        # An anchor that names a unit ("read _is_binary_writer") asks for that unit: the
        # units that merely call it stay outlined (grep finds callers). An anchor that
        # names none (a value, a message) keeps every unit whose text holds it.
        named = {u.name.lower() for u in units if u.name} & anchors.terms
        chosen.update(i for i, u in enumerate(units) if u.kind != "container" and u.name and u.name.lower() in named)
        others = anchors.terms - named
        if others:
            chosen.update(_naming_an_anchor(units, lines, others, text, starts))
    return chosen


def _naming_an_anchor(units: list[Unit], lines: list[str], terms, text: str | None, starts: list[int] | None):
    """Indices of the units whose lines, leading comments included (a question quotes a
    docstring as often as code), hold one of ``terms`` (lower-case anchor terms) in
    any case. An ASCII file is lower-cased once and each unit read as a slice of it: joining
    and lower-casing every unit's lines again cost as much as scoring them. (Lower-casing
    may change the length of other text, so offsets hold for ASCII only.)"""
    if text is None or starts is None or not text.isascii():
        return [i for i, u in enumerate(units)
                if u.kind != "container" and _holds_any("\n".join(lines[_first_line(u): u.body_end + 1]).lower(), terms)]
    low = text.lower()
    out = []
    for i, u in enumerate(units):
        if u.kind != "container":
            unit = low[starts[_first_line(u)]: starts[u.body_end + 1] - 1]
            if any(t in unit for t in terms):
                out.append(i)
    return out


def _first_line(u: Unit) -> int:
    return u.doc_start if u.doc_start >= 0 else u.header


def _holds_any(low: str, terms) -> bool:
    return any(t in low for t in terms)
