"""Questions about order: what comes right after or before a thing the question names.

In an ordered listing (an installer's ranked tags, a sorted package list, a log) the answer
to "which tag comes right after X" is the line next to the one naming X, which holds none
of the question's words. A compressor that keeps the named line keeps its neighbours too
when the question asks this way: the nearest nonblank line on each side ("after" in time
is "above" in a newest-first listing).
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections import Counter
from collections.abc import Iterable, Sequence

_NEIGHBOUR = re.compile(
    r"\b(?:after|before|next|following|followed|preceding|preceded|precedes|previous|prior|above|below"
    r"|succeeding|succeeds|adjacent|neighbou?rs?)\b", re.IGNORECASE)
NAMED_AT_MOST = 4  # lines an order question may point at; more, and it names no one line
_SCAN_AT_MOST = 4096  # lines a term is looked for on; past that it names nothing in particular


def asks_neighbour(question: str | None) -> bool:
    """Whether the question asks what stands next to something (after, before, above ...)."""
    return bool(question) and _NEIGHBOUR.search(question) is not None


def pointed_lines(low: str, starts: Sequence[int], terms: Iterable[str], most: int = NAMED_AT_MOST) -> list[int]:
    """The lines an order question's anchors point at: those holding the most of ``terms`` at
    once (``libicu-dev`` and ``amd64`` of "libicu-dev:amd64"; a package and a time), when at
    most ``most`` lines tie for it. ``low`` is the lower-cased text, ``starts`` where each of
    its lines starts; one ``str.find`` scan a term."""
    held: Counter[int] = Counter()
    for term in terms:
        lines: set[int] = set()
        pos = low.find(term)
        while pos >= 0 and len(lines) <= _SCAN_AT_MOST:
            line = bisect_right(starts, pos) - 1
            lines.add(line)
            pos = low.find(term, starts[line + 1]) if line + 1 < len(starts) else -1
        held.update(lines)
    if not held:
        return []
    top = max(held.values())
    best = [i for i, c in held.items() if c == top]
    return sorted(best) if len(best) <= most else []


def neighbours(lines: Sequence[str], at: Iterable[int]) -> set[int]:
    """The nearest nonblank line above and below each of ``at`` (indices into ``lines``)."""
    out: set[int] = set()
    for i in at:
        for step in (-1, 1):
            j = i + step
            while 0 <= j < len(lines) and not lines[j].strip():
                j += step
            if 0 <= j < len(lines):
                out.add(j)
    return out
