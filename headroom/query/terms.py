"""The words of a question that name things in a text: its content words and identifier
parts, stemmed, with the roots of its past-tense words, and the lines of a text that hold
them (used by the structured selector and by the table selector, which both look a
question's words up in the lines they keep; here, so that neither imports the other)."""

from __future__ import annotations

import re
from bisect import bisect_right
from functools import lru_cache
from itertools import accumulate

_TERM = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
STOP_WORDS = frozenset((
    "a", "an", "and", "any", "are", "as", "at", "be", "by", "can", "do", "does", "for", "from",
    "get", "give", "has", "have", "how", "i", "if", "in", "into", "is", "it", "its", "me", "my",
    "of", "on", "or", "set", "show", "tell", "that", "the", "their", "them", "then", "there",
    "these", "this", "to", "under", "value", "values", "what", "when", "where", "which", "who",
    "why", "will", "with", "within", "you", "your", "file", "config", "configuration", "setting",
    "settings", "option", "options", "key", "keys", "line", "lines", "please", "find", "look",
    "see", "used", "use", "using", "current", "currently", "did", "should", "would", "could",
))


def stem(word: str) -> str:
    """Plural and singular alike ("tests" asks for "test", "vulnerabilities" for "vulnerability")."""
    if len(word) > 4 and word.endswith("ies"):
        return word[:-3] + "y"
    return word[:-1] if len(word) > 3 and word.endswith("s") and not word.endswith("ss") else word


@lru_cache(maxsize=256)  # one question, asked of every structured output of a call and twice in each
def question_terms(query: str) -> frozenset[str]:
    """Lower-case words and identifier parts of the question (stop words dropped), stemmed."""
    out: set[str] = set()
    for m in _TERM.finditer(query[:2000]):
        w = m.group(0).lower()
        if len(w) >= 3 and w not in STOP_WORDS:
            out.add(stem(w))
            if len(w) >= 8 and w.endswith(("ction", "ssion")):
                out.add(w[:-3])  # the verb inside a key: "connection" in ssh's connecttimeout
        for part in w.split("_"):
            if len(part) >= 3 and part not in STOP_WORDS:
                out.add(stem(part))
    return frozenset(out)


def past_tense_roots(terms) -> set[str]:
    """The roots of the question's past-tense words: "the amended commit" is git reflog's
    "commit (amend)", "which job failed" a "FAIL". Roots under four letters would find
    too much."""
    out = set()
    for t in terms:
        if t.endswith("ied") and len(t) >= 6:
            out.add(t[:-3] + "y")
        elif t.endswith("ed") and len(t) >= 6:
            out.add(t[:-2])
    return out


def rows_naming(texts: list[str], words, limit: int, edge: str = "a-z0-9_") -> set[int]:
    """The rows of ``texts`` holding one of ``words`` (lower case) as a whole word, not
    touching a character of the class ``edge``, for each word at most ``limit`` rows hold.
    One pass over the lowered text for all the words, the longest first (a search per word
    read a 200 kB dump once each); a word no row holds is left out by a substring test."""
    low = "\n".join(texts).lower()
    present = sorted((w for w in words if w in low), key=len, reverse=True)
    if not present:
        return set()
    ends = list(accumulate(len(t) + 1 for t in texts))
    either = "|".join(map(re.escape, present))
    rows_of: dict[str, set[int]] = {}
    for m in re.finditer(rf"(?<![{edge}])(?:{either})(?![{edge}])", low):
        rows_of.setdefault(m.group(0), set()).add(bisect_right(ends, m.start()))
    return {i for rows in rows_of.values() if len(rows) <= limit for i in rows}


def worded_lines(lines: list[str], query: str, limit: int) -> set[int]:
    """Lines holding a word of the question, or the root of its past-tense word, as a whole
    word ("locked" is pg_waldump's ``LOCK``; "time" is no part of "datetime"), where at most
    ``limit`` lines hold it (counted plainly: rows of a table are records already)."""
    terms = question_terms(query)
    if not terms or not lines:
        return set()
    return rows_naming(lines, terms | past_tense_roots(terms), limit)
