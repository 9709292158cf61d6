"""Side-by-side diffs (``diff -y``, ``sdiff``): two columns of text around a gutter whose
mark says what changed on that line: ``|`` changed, ``<`` only on the left (removed), ``>``
only on the right (added), blank alike.

The marked lines are the difference itself, so they stay whatever else a selection keeps;
the unmarked ones are context. Read by shape (one column, the same on nearly every line,
blank or a mark between blanks), after expanding tabs as the terminal does.
"""

from __future__ import annotations

import re

_MARKS = "|<>"
# A mark between blanks, or a mark closing the line ("left text   <"); tabs or spaces.
_MARKED = re.compile(r"[ \t][|<>](?:[ \t]|$)")
_CANDIDATES_MAX = 4096  # marks looked at for the first one between blanks (more: markup, not a diff)
_SAMPLE = 200
_SHARE = 0.9  # of the sampled nonblank lines that must be blank (or marked) at the gutter
_MIN_LINES = 8
_MARKED_SHARE = 0.5  # of the nonblank lines at most marked
_TWO_COLUMNS = 0.5  # of the sampled nonblank lines that must go on past the gutter


def _gutter_column(lines: list[str], joined: str) -> int | None:
    """The gutter's column (tabs expanded), from the first line marked there, when nearly
    every sampled line is blank or marked at it; None otherwise."""
    at = _first_mark(joined)
    if at < 0:
        return None
    wide = lines[joined.count("\n", 0, at)].expandtabs()
    cols = [m.start() + 1 for m in _MARKED.finditer(wide)]
    sample = [ln.expandtabs() for ln in lines[:_SAMPLE] if ln.strip()]
    if len(sample) < _MIN_LINES:
        return None
    for c in cols:
        fits = sum(1 for s in sample if _fits(s, c))
        # Two columns: most lines go on past the gutter (lines that end before it fit any
        # column a text of short lines has).
        both = sum(1 for s in sample if len(s.rstrip()) > c + 1)
        if fits >= _SHARE * len(sample) and both >= _TWO_COLUMNS * len(sample):
            return c
    return None


def _first_mark(text: str) -> int:
    """Where the first mark between blanks (or closing its line) is in ``text``; -1 when
    none is among the first ``_CANDIDATES_MAX`` of each mark. A regex search would try
    every position; ``str.find`` skips to the few marks at memory speed."""
    best = -1
    for ch in _MARKS:
        pos = text.find(ch)
        for _ in range(_CANDIDATES_MAX):
            if pos < 0 or (best >= 0 and pos > best):
                break
            if pos and text[pos - 1] in " \t" and text[pos + 1:pos + 2] in (" ", "\t", "\n", ""):
                best = pos
                break
            pos = text.find(ch, pos + 1)
    return best


def _fits(wide: str, c: int) -> bool:
    """Blank at the gutter (or the line ends before it), or a mark with blanks around."""
    if len(wide) <= c:
        return True
    ch = wide[c]
    if ch == " ":
        return wide[c - 1:c] in (" ", "")
    return ch in _MARKS and wide[c - 1:c] == " " and wide[c + 1:c + 2] in (" ", "")


def gutter_lines(lines: list[str], joined: str | None = None) -> set[int]:
    """The lines a side-by-side diff marks as changed, removed or added; none for any other
    text (one regex search of the text, ``joined``: the lines joined by newlines, finds the
    first mark; most texts have none)."""
    if len(lines) < _MIN_LINES:
        return set()
    c = _gutter_column(lines, "\n".join(lines) if joined is None else joined)
    if c is None:
        return set()
    out: set[int] = set()
    for i, ln in enumerate(lines):
        if _MARKED.search(ln):
            wide = ln.expandtabs()
            if len(wide) > c and wide[c] in _MARKS and _fits(wide, c):
                out.add(i)
    # Marks on most lines are a table's column rule (psql's " | "), not a diff's gutter:
    # a diff marks what changed, and the rest is context.
    return out if len(out) <= _MARKED_SHARE * sum(1 for ln in lines if ln.strip()) else set()
