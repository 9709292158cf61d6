"""Recognise a delimited text table by structure: a header row of short names, then rows
with the header's field count (quoted fields allowed), most of them.

Logs with commas (``12:00:01,123 INFO …``), prose and ``du``-style listings fail at least
one test: their first line is not a header of names, or their field counts wander, or their
cells are sentences.
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass

DELIMITERS = (",", "\t", ";")
MIN_ROWS = 5  # below this a table is not worth recognising (nor compressing)
_SAMPLE_LINES = 64  # enough rows to judge consistency; the cost is paid on every text output
_CONSISTENT = 0.9  # share of sampled rows that must have the header's field count
_MAX_HEADER_CELL = 64
_MAX_MEDIAN_CELL = 40  # body cell length: sentences split at commas are longer (median: one huge field is fine)
# A header cell never looks like data: a number, a date or a time ("2024-01-01 12:00:00").
_DATA_LIKE = re.compile(r"^[-+]?[\d.:/\- T]+$")
# Nor does it hold markup or key/value syntax (JSON lines, "key=value" logs, HTML).
_NOT_A_NAME = re.compile(r"[{}\[\]<>=]|: ")


@dataclass(frozen=True)
class Dialect:
    delimiter: str
    fields: int


def sniff(lines: list[str]) -> Dialect | None:
    """The table's dialect when ``lines`` (the text's first lines) look like a table."""
    sample = [ln for ln in lines[:_SAMPLE_LINES] if ln.strip()]
    if len(sample) < MIN_ROWS + 1:
        return None
    head = sample[0]
    for delim in DELIMITERS:
        if delim not in head:
            continue
        found = _check(sample, delim)
        if found is not None:
            return found
    return None


def _check(sample: list[str], delim: str) -> Dialect | None:
    try:
        # A bare carriage return inside a cell (a progress line's "\r") is no line break
        # here: the text is split at "\n" alone, and csv would refuse the line.
        rows = list(csv.reader([ln.replace("\r", " ") if "\r" in ln else ln for ln in sample], delimiter=delim))
    except csv.Error:
        return None
    header, body = rows[0], rows[1:]
    k = len(header)
    if k < 2 or any(len(c) > _MAX_HEADER_CELL for c in header):
        return None
    names = [c.strip() for c in header]
    if sum(1 for c in names if c) < 0.8 * k or any(_DATA_LIKE.match(c) or _NOT_A_NAME.search(c) for c in names if c):
        return None
    same = [r for r in body if len(r) == k]
    if len(same) < _CONSISTENT * len(body):
        return None
    cells = [c for r in same for c in r]
    if not cells or sorted(map(len, cells))[len(cells) // 2] > _MAX_MEDIAN_CELL:
        return None
    if k == 2 and not any(_mostly_numeric([r[j] for r in same]) for j in range(k)):
        return None  # "key,value" pairs of words are as likely prose as a table
    return Dialect(delim, k)


def _mostly_numeric(cells: list[str]) -> bool:
    n = 0
    for c in cells:
        try:
            float(c)
        except ValueError:
            continue
        n += 1
    return n >= 0.8 * len(cells)
