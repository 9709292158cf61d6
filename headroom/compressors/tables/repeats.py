"""Rows a key column sets apart: a value that repeats where values are unique, and the
digest of nothing.

- **Duplicates.** In a column of identifiers that are all different (checksums, ids,
  inode numbers), the few rows sharing a value are what a reader looks for ("are any files
  the same?"): two files with one checksum, two entries with one id. Kept when they are
  few, so a column that merely repeats (a status, a size) is not read as keys.
- **Empty content.** A checksum listing's empty file is the row whose digest is the digest
  of zero bytes. The digests are computed here, with hashlib, for the common algorithms.
"""

from __future__ import annotations

import hashlib
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
