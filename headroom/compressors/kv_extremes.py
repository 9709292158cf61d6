"""Extremes of ``key=value`` numbers over lines that share their keys, and of columns of
whitespace-separated fields.

Some programs print a table as lines of ``key=value`` pairs (redis INFO's
``cmdstat_zadd:calls=161,usec=167447,usec_per_call=1040.04``, its keyspace lines, statistics
dumps): no header, no aligned columns, so the table compressor never sees them, and the
line selectors keep lines by relevance, which "where did the server spend most of its
time?" does not point at. When the question asks for an extreme (the table selector's
max/min words), the line holding each numeric key's maximum (or minimum) among the lines
with the same keys is kept: a few lines, whatever the keys are called. One pair a line
counts too when five lines or more repeat its key (curl's ``Server-Timing: app;dur=889.4``,
once per response).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from .tables.select import asked_directions, asks_nonzero

# A value may be quoted: an XML element's attributes (``ttx``'s ``<mtx name="A" width="640"/>``).
_PAIR = re.compile(r"""([A-Za-z_][\w.-]*)=(["']?)(-?\d+(?:\.\d+)?)\2(?![\w.])""")
_MIN_LINES = 5  # lines sharing a key set: fewer is no table
_MAX_KEYS = 8  # numeric keys whose extremes are kept, per key set
_MAX_LINE = 400  # longer lines are no rows of such a table


def extreme_lines(lines: Sequence[str], query: str, looked_at: Callable[[int], bool] | None = None) -> set[int]:
    """Indexes of the lines holding the extremes the question asks for, per set of keys;
    ``looked_at`` (an index test) leaves some lines out (the text extractor's sentences)."""
    want_max, want_min = asked_directions(query.lower())
    if not (want_max or want_min):
        return set()
    groups: dict[tuple[str, ...], list[tuple[int, dict[str, float]]]] = {}
    for i, ln in enumerate(lines):
        if "=" not in ln or len(ln) > _MAX_LINE or (looked_at is not None and not looked_at(i)):
            continue
        pairs = _PAIR.findall(ln)
        if not pairs:
            continue
        values = {k: float(v) for k, _, v in pairs}
        groups.setdefault(tuple(k for k, _, _ in pairs), []).append((i, values))
    nonzero = asks_nonzero(query.lower())
    out = _field_extremes(lines, want_max, want_min, looked_at, nonzero)
    for keys, rows in groups.items():
        if len(rows) < _MIN_LINES:
            continue
        taken = 0
        for k in keys:
            col = [(v[k], i) for i, v in rows]
            lo, hi = min(col), max(col, key=lambda p: (p[0], -p[1]))
            if lo[0] == hi[0]:
                continue  # a constant (0 rejected calls on every line) names no line
            if want_max:
                out.add(hi[1])
            if want_min:
                out.add(_least(col, nonzero)[1])
            taken += 1
            if taken >= _MAX_KEYS:
                break
    return out


# Lines of whitespace-separated fields, the same number on each (``nm -S``: address, size,
# type, name; single spaces, so no aligned table): a column of numbers, or of hex numbers
# all of one width (addresses and sizes), has its extreme lines kept like a key's above.
_MIN_FIELD_ROWS = 12  # lines of one width: fewer is no table
_FIELDS = (3, 12)  # fields a line: fewer is a listing (its own compressor), more is prose
_HEX_CELL = re.compile(r"(?:0x)?[0-9a-fA-F]{4,}")
_PREFIXED_HEX = re.compile(r"0x[0-9a-fA-F]+")
_PREFIXED_SHARE = 0.8


def _column_values(cells: list[str]) -> list[float | None] | None:
    """The numbers of a column: decimal when every cell is one, else hex when every cell is
    a hex number of one width, else ``0x`` numbers of any width in most cells (a link map's
    section sizes, 0x8 to 0x8ca0, beside the odd row of another shape: those read as None,
    neither the largest nor the smallest); None otherwise."""
    try:
        return [float(c) for c in cells]
    except ValueError:
        pass
    width = len(cells[0])
    if all(len(c) == width and _HEX_CELL.fullmatch(c) for c in cells):
        return [float(int(c, 16)) for c in cells]
    prefixed = [float(int(c, 16)) if _PREFIXED_HEX.fullmatch(c) else None for c in cells]
    if sum(v is not None for v in prefixed) >= _PREFIXED_SHARE * len(cells):
        return prefixed
    return None


def _least(pairs: list[tuple[float, int]], nonzero: bool) -> tuple[float, int]:
    """The (value, index) pair of the smallest value, the first of ties; of the smallest
    other than zero when the question says so ("the smallest non-zero width"), unless
    every value is zero."""
    if nonzero:
        pairs = [p for p in pairs if p[0] != 0] or pairs
    return min(pairs)


def _field_extremes(lines: Sequence[str], want_max: bool, want_min: bool,
                    looked_at: Callable[[int], bool] | None, nonzero: bool = False) -> set[int]:
    by_width: dict[int, list[tuple[int, list[str]]]] = {}
    lo_w, hi_w = _FIELDS
    for i, ln in enumerate(lines):
        if len(ln) > _MAX_LINE or (looked_at is not None and not looked_at(i)):
            continue
        cells = ln.split()
        if lo_w <= len(cells) <= hi_w:
            by_width.setdefault(len(cells), []).append((i, cells))
    out: set[int] = set()
    for width, rows in by_width.items():
        if len(rows) < _MIN_FIELD_ROWS:
            continue
        taken = 0
        for j in range(width):
            values = _column_values([cells[j] for _, cells in rows])
            present = [(v, k) for k, v in enumerate(values or ()) if v is not None]
            if not present or min(present)[0] == max(present)[0]:
                continue
            if want_max:  # the first row of the largest value, as list.index finds it
                out.add(rows[max(present, key=lambda p: (p[0], -p[1]))[1]][0])
            if want_min:
                out.add(rows[_least(present, nonzero)[1]][0])
            taken += 1
            if taken >= _MAX_KEYS:
                break
    return out
