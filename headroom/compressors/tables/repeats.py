"""Rows a key column sets apart: a value that repeats where values are unique, the
digest of nothing, and a value unlike the column's others.

- **Duplicates.** In a column of identifiers that are all different (checksums, ids,
  inode numbers), the few rows sharing a value are what a reader looks for ("are any files
  the same?"): two files with one checksum, two entries with one id. Kept when they are
  few, so a column that merely repeats (a status, a size) is not read as keys.
- **Empty content.** A checksum listing's empty file is the row whose digest is the digest
  of zero bytes. The digests are computed here, with hashlib, for the common algorithms.
- **A value of another shape.** In a column of many distinct values that nearly all share
  one shape (letters, digits and signs, each run of letters or digits counted once:
  ``CHG-74711`` and ``CHG-9354`` are both ``a-9``), the one or two cells of another shape:
  ``join -a``'s "-" where a host has no ticket, an empty cell, a name where ids go.
"""

from __future__ import annotations

import hashlib
import re
import string
from collections import Counter
from typing import Any

_KEY_SHARE = 0.9  # of a column's cells that must be distinct for it to be a column of keys
_MIN_KEY = 6  # characters of an identifier (no blank inside)
_MAX_ROWS = 16  # rows kept for repeated keys, at most
_MIN_ROWS = 20
_EMPTY = frozenset(hashlib.new(name, b"").hexdigest() for name in ("md5", "sha1", "sha224", "sha256", "sha384",
                                                                   "sha512", "blake2b", "blake2s"))
_DIGEST_LENGTHS = frozenset(map(len, _EMPTY))


def _keys(cells: tuple[Any, ...]) -> bool:
    sample = cells[:50]
    return all(isinstance(c, str) and len(c) >= _MIN_KEY and " " not in c for c in sample)


def repeated_key_rows(columns: list[tuple[Any, ...]], n: int) -> list[int]:
    """Rows sharing a value of a column whose values are otherwise distinct identifiers."""
    if n < _MIN_ROWS:
        return []
    out: set[int] = set()
    for cells in columns:
        if not _keys(cells):
            continue
        counts = Counter(cells)
        if len(counts) < _KEY_SHARE * n or len(counts) == n:
            continue
        rows = [i for i, c in enumerate(cells) if counts[c] > 1]
        if len(rows) <= _MAX_ROWS:
            out.update(rows)
    return sorted(out)


def empty_content_rows(columns: list[tuple[Any, ...]]) -> list[int]:
    """Rows whose cell is the digest of zero bytes (an empty file in a checksum listing)."""
    out: set[int] = set()
    for cells in columns:
        first = cells[0] if cells else None
        if not (isinstance(first, str) and len(first) in _DIGEST_LENGTHS):
            continue
        out.update(i for i, c in enumerate(cells) if c in _EMPTY)
    return sorted(out)[:_MAX_ROWS]


# A cell's shape: each letter "a", each digit "9", signs kept, each run of "a" or "9" once.
_SHAPE_OF = str.maketrans({**dict.fromkeys(string.ascii_letters, "a"), **dict.fromkeys(string.digits, "9")})
# Runs collapsed by two plain substitutions: a backreference costs a Python-level
# replacement per run (54 ms for 10 000 cells, against 3.6 ms).
_LETTER_RUNS = re.compile("a+")
_DIGIT_RUNS = re.compile("9+")
_SEP = "\x1f"  # between cells while their shapes are made in one pass
_SHAPE_SHARE = 0.97  # of a column's cells one shape must hold for the others to be odd
_SHAPE_ODD = 2  # cells a shape may hold and still be odd
_SHAPE_OTHERS = 2  # cells of other shapes a column may always have
_SHAPE_SAMPLE = 200
_SHAPE_ROWS = 8  # rows kept for odd shapes, at most


# The coarse shape: each run of letters and digits one "w". Hashes and versions mix both
# ("f5f4e5e0…", "base32"), so their fine shapes differ cell to cell and nothing is odd by them;
# coarse, a 40-hex column shares "w" and the one "+8a99…" (git submodule status's drifted
# module) or "vendor/a/deps/b" among "vendor/a" stands out.
_WORD_RUNS = re.compile("[a9]+")


def _shapes(cells, coarse: bool = False) -> list[str] | None:
    """Each cell's shape (``coarse``: letters and digits as one class), or None when a cell
    is no string or holds the separator (all in C: a join, a translation, substitutions, a
    split)."""
    try:
        joined = _SEP.join(cells)
    except TypeError:
        return None
    if joined.count(_SEP) != len(cells) - 1:
        return None
    masked = joined.translate(_SHAPE_OF)
    if coarse:
        return _WORD_RUNS.sub("w", masked).split(_SEP)
    return _DIGIT_RUNS.sub("9", _LETTER_RUNS.sub("a", masked)).split(_SEP)


def _column_shapes(cells, n: int) -> list[str] | None:
    """The shapes that make the column's odd cells stand out: the fine ones when one holds
    ``_SHAPE_SHARE`` of its first cells, else the coarse ones when one of those does; None
    when neither (free text), and then the column is not read whole."""
    head = cells[:_SHAPE_SAMPLE]
    for coarse in (False, True):
        sample = _shapes(head, coarse)
        if sample is not None and _dominant(sample):
            shapes = _shapes(cells, coarse)
            return shapes if shapes is not None and _dominant(shapes) else None
    return None


def _dominant(shapes: list[str]) -> bool:
    """Whether one shape holds the column: ``_SHAPE_SHARE`` of its cells, or all but
    ``_SHAPE_OTHERS`` (in a short column 3 % is not even two cells: 65 submodules, one
    drifted and one not checked out)."""
    top = Counter(shapes).most_common(1)[0][1]
    return top >= min(_SHAPE_SHARE * len(shapes), len(shapes) - _SHAPE_OTHERS)


def odd_shape_rows(columns: list[tuple[Any, ...]], n: int, distinct_at_least: int) -> list[int]:
    """Rows whose cell has a shape at most ``_SHAPE_ODD`` cells of its column have, in a
    column of more than ``distinct_at_least`` distinct values (fewer: a category, whose rare
    values are read as such) where one shape holds ``_SHAPE_SHARE`` of the cells. A column
    is read whole only when its first cells all but share one shape (free text does not)."""
    if n < _MIN_ROWS:
        return []
    held: dict[int, int] = {}
    for cells in columns:
        if len(set(cells[:_SHAPE_SAMPLE])) <= distinct_at_least:
            continue
        shapes = _column_shapes(cells, n)
        if shapes is None:
            continue
        counts = Counter(shapes)
        odd = {shape: k for shape, k in counts.items() if k <= _SHAPE_ODD}
        if odd:  # most columns have none: no pass over their rows
            for i, shape in enumerate(shapes):
                if shape in odd:
                    held[i] = min(odd[shape], held.get(i, n))
    return sorted(sorted(held, key=lambda i: (held[i], i))[:_SHAPE_ROWS])
