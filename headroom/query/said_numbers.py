"""Numbers a question says in words: "a zero-byte file", "an empty one", "the client that
made just a single request"; and numbers it writes in digits, standing alone ("a complexity
of 9"). A table's or a listing's rows holding such a number in a column where it is rare
answer the question (the one empty file among sizes in kB, not the zeros of a uid column);
the compressors decide what is rare.
"""

from __future__ import annotations

import re

_SAID = ((re.compile(r"\b(?:zero|empty)\b"), 0.0),
         (re.compile(r"\b(?:single|once)\b|\b(?:just|only|exactly) one\b"), 1.0))


def said_numbers(qlow: str) -> list[float]:
    """The numbers the (lower-cased) question says in words, in order: 0, then 1."""
    return [v for pattern, v in _SAID if pattern.search(qlow)] if qlow else []


# A number written alone in the question: not part of a name, a path, a time or a version
# ("a complexity of 9", "scores at 7."; not "fees.c:405", "8-element", "v1.2").
_WRITTEN = re.compile(r"(?<![\w.:/-])\d+(?:\.\d+)?(?![\w:/-])(?!\.\d)")


def written_numbers(question: str) -> list[float]:
    """The numbers the question writes in digits, standing alone, in order."""
    return [float(m.group(0)) for m in _WRITTEN.finditer(question)] if question else []


def rows_holding(values, said: list[float], limit: int) -> list[int]:
    """Indices of the ``values`` (numbers or None) equal to a said number, for each said
    number held by 1 to ``limit`` of them (more: the number is no rare one here)."""
    out: list[int] = []
    for v in said:
        rows = [i for i, x in enumerate(values) if x == v]
        if 0 < len(rows) <= limit:
            out += rows
    return out
