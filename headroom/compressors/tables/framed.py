"""Tables drawn in a frame: every row between vertical bars, rules of box-drawing
characters or dashes around the header (``sqlite3 -box``, the MySQL client, ``psql`` with
borders, Markdown pipe tables, rich's tables).

Read as whitespace-aligned columns, the bars were columns of their own and the header, under
a top rule, went unrecognised: no column had a name, so "the longest official name" named
none. Here the bars split the cells and the first barred line names the columns; the rules
above the rows stay with the header, the rules below them after the kept rows.

Recognised by shape only: in the sample, at least ``MIN_ROWS`` + 1 lines that open and
close with a bar, as many bars on nearly every one of them as on the first, and nothing
else but rules (lines of box-drawing characters, dashes, pluses, colons and bars) among
the lines before the last barred one.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from .sniff import MIN_ROWS

_SAMPLE_LINES = 64
_BAR = "│┃║|"
_SPLIT = re.compile("[│┃║|]")
# A rule: box-drawing lines and corners, dashes, pluses, equals, colons (Markdown's
# alignment marks) and bars, with at least one line-drawing character. Two linear scans
# (one pattern with the line character between two stars backtracks quadratically on a
# long run of dashes that ends in something else).
_RULE_CHARS = re.compile(r"[ \t─━═┄┈╌\-+=:┌┐└┘├┤┬┴┼┏┓┗┛┣┫┳┻╋┡┩╇╞╡╪╔╗╚╝╠╣╦╩╬│┃║|]*")
_RULE_LINE = re.compile(r"[─━═┄┈╌\-=]")


def _is_rule(line: str) -> bool:
    return _RULE_CHARS.fullmatch(line) is not None and _RULE_LINE.search(line) is not None
_CONSISTENT = 0.9


@dataclass(frozen=True)
class Framed:
    """Where a framed table's header line is and how many cells a row has."""

    header: int  # index of the header line (the first barred one)
    cells: int


def _barred(line: str) -> bool:
    s = line.strip()
    return len(s) >= 2 and s[0] in _BAR and s[-1] in _BAR


def infer(lines: list[str]) -> Framed | None:
    """The frame of the table ``lines`` (a text's first lines) hold, else None."""
    sample = lines[:_SAMPLE_LINES]
    header = None
    barred = 0
    for i, ln in enumerate(sample):
        if not ln.strip():
            if header is not None and barred < MIN_ROWS + 1:
                return None  # a blank line inside a short table: no table of its own
            continue
        if _barred(ln) and not _is_rule(ln):
            if header is None:
                header = i
            barred += 1
        elif not _is_rule(ln):
            if header is None or barred < MIN_ROWS + 1:
                return None  # a line of text before or among the first rows
            break  # a footer ("(252 rows)"), after enough rows
    if header is None or barred < MIN_ROWS + 1:
        return None
    k = len(_SPLIT.split(sample[header].strip())) - 2
    if k < 2:
        return None
    rows = [ln for ln in sample[header + 1:] if _barred(ln) and not _is_rule(ln)]
    if sum(1 for ln in rows if len(_SPLIT.split(ln.strip())) - 2 == k) < _CONSISTENT * len(rows):
        return None
    return Framed(header, k)


def cells(line: str) -> list[str]:
    """A barred line's cells, stripped."""
    return [c.strip() for c in _SPLIT.split(line.strip())[1:-1]]


def parse(lines: list[str], frame: Framed) -> tuple[int, list[str], list[tuple[int, int]], list[list[str]], int]:
    """(end of the head: the header and the rules under it, the column names, each row's
    span, each row's cells, where the rules after the last row start)."""
    k = frame.header + 1
    while k < len(lines) and _is_rule(lines[k]):
        k += 1
    spans: list[tuple[int, int]] = []
    rows: list[list[str]] = []
    tail = len(lines)
    for i in range(k, len(lines)):
        ln = lines[i]
        if not ln.strip() or _is_rule(ln):
            continue
        spans.append((i, i + 1))
        rows.append(cells(ln))
    if spans:
        tail = spans[-1][1]
    return k, cells(lines[frame.header]), spans, rows, tail
