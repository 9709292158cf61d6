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
    camelCase name also counts as its words ("parseArgs": parse, args)."""
    text = "\n".join(lines).encode("utf-8", "surrogatepass").translate(_LETTERS)
    tlines = text.split(b"\n")
    stems = _stems_for(text.split())
    out: list[Counter] = []
    for u in units:
        if u.kind == "container":
            out.append(Counter())
            continue
        words = b" ".join(tlines[u.doc_start if u.doc_start >= 0 else u.header: u.body_end + 1]).split()
        counts = term_counts(words, stems)
        if u.name:
            counts.update(_name_terms(u.name))
        out.append(counts)
    return out


def scores(units: list[Unit], lines: list[str], query: str, relevance=None) -> list[float]:
    """One score per unit (0 for containers: their members are scored instead)."""
    if relevance is not None:
        docs = ["" if u.kind == "container" else "\n".join(lines[u.doc_start if u.doc_start >= 0 else u.header:
                                                                   u.body_end + 1]) for u in units]
        return [0.0 if u.kind == "container" else s for u, s in zip(units, relevance(query, docs))]
    q = terms(query)
    if not q:
        return [0.0] * len(units)
    return BM25.scores_from_counts(unit_term_counts(units, lines), q)


def keep_whole(units: list[Unit], lines: list[str], query: str, anchors, relevance=None) -> set[int]:
    """Indices of the units the question is about."""
    chosen: set[int] = set()
    if not query:
        return chosen
    sc = scores(units, lines, query, relevance)
    best = max(sc, default=0.0)
    if best > 0:
        ranked = sorted(range(len(units)), key=lambda i: (-sc[i], i))
        chosen.update(i for i in ranked[:KEEP_AT_MOST] if sc[i] >= KEEP_RATIO * best)
    if anchors:
        # An anchor that names a unit ("read _is_binary_writer") asks for that unit: the
        # units that merely call it stay outlined (grep finds callers). An anchor that
        # names none (a value, a message) keeps every unit whose text holds it.
        named = {u.name.lower() for u in units if u.name} & anchors.terms
        for i, u in enumerate(units):
            if u.kind == "container":
                continue
            if u.name and u.name.lower() in named:
                chosen.add(i)
            elif anchors.matching("\n".join(lines[u.header: u.body_end + 1])) - named:
                chosen.add(i)
    return chosen
