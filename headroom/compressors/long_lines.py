"""Lines too long to compress as one unit: a way in for them (issue 24, class 4).

Every compressor selects lines, records or sentences. A tool output that is one enormous
line (5 MB of words, a minified bundle, a one-line log of concatenated records, a base64
blob) is a single unit to all of them, so it went through whole ("nothing to compress")
and later no context budget could fit it either. Such a text is split before detection,
at the structure its lines have, else at a size:

1. records: a line where a timestamp recurs is cut before each one (a log written
   without newlines, ``\\r``-joined progress);
2. sentences: cut after sentence ends, pieces grown to about ``_PIECE`` characters;
3. statements: cut after ``;``, ``{``, ``}`` or ``,`` (minified JS or JSON that does not
   parse as a whole), pieces of about ``_PIECE`` characters;
4. words: cut at spaces, pieces of about ``_PIECE`` characters;
5. size: fixed ``_PIECE``-character chunks (base64, hex).

The split text is what gets detected and compressed; the original stays what CCR stores,
so the model can still retrieve it byte for byte.
"""

from __future__ import annotations

import re
from collections import Counter

LONG_LINE = 20_000  # characters: a line longer than this is split
_AVERAGE = 2_000  # only texts whose lines average more than this are looked at (a cheap test)
# Characters a piece grows to before it is cut at the next boundary: long enough that a
# 5 MB line makes a few thousand units (the prose compressor's cost grows with them),
# short enough that keeping one costs a few hundred tokens.
_PIECE = 1000
_TIMESTAMP = re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2}|\b[A-Z][a-z]{2} [ \d]\d \d{2}:\d{2}:\d{2}")
_MIN_RECORDS = 20
# (name, boundary regex, share of pieces that must end on one for the rule to apply)
_BOUNDARIES = (
    # The closing quote or bracket after a sentence end stays with its sentence (group 1).
    ("sentences", re.compile(r"(?<=[.!?])([\"')\]]?)\s+(?=[A-Z0-9\"'(\[])")),
    ("statements", re.compile(r"(?<=[;{}])|(?<=,)(?=[\"{\[])")),
    ("words", re.compile(r"\s+")),  # (split with str.find when the spaces are plain, see _grow)
)


def needs_split(text: str) -> bool:
    """A cheap first test: long, and its lines average more than ``_AVERAGE`` characters."""
    n = len(text)
    return n > LONG_LINE and text.count("\n") * _AVERAGE < n


def split(text: str) -> tuple[str, str] | None:
    """``text`` with each line longer than ``LONG_LINE`` cut into pieces, and how they
    were cut ("one line of 4,991,798 characters split at words into 12,480 lines");
    None when no line is that long."""
    out: list[str] = []
    hows: Counter[str] = Counter()
    longest = 0
    for line in text.split("\n"):
        if len(line) <= LONG_LINE:
            out.append(line)
            continue
        how, pieces = _split_line(line)
        hows[how] += 1
        longest = max(longest, len(line))
        out.extend(pieces)
    if not hows:
        return None
    n = sum(hows.values())
    what = f"one line of {longest:,} characters" if n == 1 else f"{n} lines of up to {longest:,} characters"
    return "\n".join(out), f"{what} split at {', '.join(hows)} into {len(out):,} lines"


def _split_line(line: str) -> tuple[str, list[str]]:
    # A scan for timestamps costs ~70 ms a MB: only when the line's start holds a few.
    head = _TIMESTAMP.findall(line, 0, 20 * _PIECE)
    starts = [m.start() for m in _TIMESTAMP.finditer(line)] if len(head) >= 3 else []
    if len(starts) >= _MIN_RECORDS and len(line) / len(starts) <= _AVERAGE:
        cuts = [0] + [s for s in starts if s > 0]
        return "records", [line[a:b].rstrip() for a, b in zip(cuts, [*cuts[1:], len(line)])]
    for name, boundary in _BOUNDARIES:
        pieces = _grow(line, boundary)
        if pieces is not None:
            return name, pieces
    return "size", [line[k:k + _PIECE] for k in range(0, len(line), _PIECE)]


def _grow(line: str, boundary: re.Pattern[str]) -> list[str] | None:
    """Pieces of about ``_PIECE`` characters, each cut at the first boundary after that
    size; None when the boundaries are too sparse (a piece would exceed 5 x ``_PIECE``)."""
    pieces: list[str] = []
    start = 0
    n = len(line)
    if boundary.pattern == r"\s+" and " " in line[:5 * _PIECE]:
        return _grow_at_spaces(line)
    while start < n:
        if n - start <= _PIECE:
            pieces.append(line[start:])
            break
        m = boundary.search(line, start + _PIECE, min(n, start + 5 * _PIECE))
        if m is None:
            return None
        pieces.append(line[start:m.end(1) if boundary.groups else m.start()].rstrip())
        start = m.end()
    return pieces


def _grow_at_spaces(line: str) -> list[str] | None:
    """``_grow`` at plain spaces, with str.find (a regex search per piece costs more)."""
    pieces: list[str] = []
    start, n = 0, len(line)
    while n - start > _PIECE:
        cut = line.find(" ", start + _PIECE, start + 5 * _PIECE)
        if cut < 0:
            return None
        pieces.append(line[start:cut])
        start = cut + 1
    pieces.append(line[start:])
    return pieces
