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
_MARKED_LINE = re.compile(r"[ \t][|<>](?:[ \t]|$)", re.MULTILINE)  # the same, in a joined text
_SAMPLE = 200
_SHARE = 0.9  # of the sampled nonblank lines that must be blank (or marked) at the gutter
_MIN_LINES = 8
_MARKED_SHARE = 0.5  # of the nonblank lines at most marked


def _gutter_column(lines: list[str], joined: str) -> int | None:
    """The gutter's column (tabs expanded), from the first line marked there, when nearly
    every sampled line is blank or marked at it; None otherwise."""
    m = _MARKED_LINE.search(joined)
    if m is None:
        return None
    wide = lines[joined.count("\n", 0, m.start())].expandtabs()
    cols = [m.start() + 1 for m in _MARKED.finditer(wide)]
    sample = [ln.expandtabs() for ln in lines[:_SAMPLE] if ln.strip()]
    if len(sample) < _MIN_LINES:
        return None
    for c in cols:
        fits = sum(1 for s in sample if _fits(s, c))
        if fits >= _SHARE * len(sample):
            return c
    return None


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
