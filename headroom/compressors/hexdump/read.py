"""The bytes behind a hex dump, and which dump line holds which offset.

``hexdump -C`` (``00000010  03 00 3e 00 …  |..>...|``), ``xxd`` (``00000010: 0300 3e00 …``)
and ``od -A x -t x1z`` print an offset, then the bytes in hex, then (mostly) the same bytes
as characters. ``*`` stands for lines equal to the one above it (``hexdump``, ``od``,
``xxd -a``), and a last line of an offset alone gives the length. Read by shape: the
offsets rise by the same step on nearly every line, and each line's hex groups hold that
many bytes.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from itertools import pairwise

# An offset (6 to 16 hex digits, xxd puts a colon after it), then hex groups of 2, 4 or 8
# digits separated by one or two blanks.
_LINE = re.compile(r"([0-9a-fA-F]{6,16}):?((?:\s{1,2}[0-9a-fA-F]{2}(?:[0-9a-fA-F]{2}){0,3}(?![0-9a-fA-F]))+)")
_OFFSET_ONLY = re.compile(r"[0-9a-fA-F]{6,16}:?\s*")
MIN_LINES = 8
_SHARE = 0.9  # of nonblank lines that must be dump lines (or "*")
_MAX_WIDTH = 64  # bytes a dump line may hold


@dataclass(slots=True)
class Dump:
    data: bytes  # the bytes, repeated lines filled in
    width: int  # bytes a full line holds
    offsets: dict[int, int]  # line index -> the offset of its first byte (dump lines only)
    known: int  # bytes the dump accounts for (its length)


def looks_like_dump(nonblank: list[str]) -> bool:
    """A cheap test on a sample: nearly every line an offset and hex groups (or ``*``),
    the offsets rising."""
    sample = nonblank[:64]
    if len(sample) < MIN_LINES:
        return False
    last, hits = -1, 0
    for ln in sample:
        if ln.strip() == "*":
            hits += 1
            continue
        m = _LINE.match(ln)
        if m is None:
            continue
        off = int(m.group(1), 16)
        if off <= last:
            return False
        last = off
        hits += 1
    return hits >= _SHARE * len(sample)


def read_dump(lines: list[str]) -> Dump | None:
    """The dump's bytes and line offsets, or None when the text is no hex dump."""
    rows: list[tuple[int, int, list[str]]] = []  # (line index, offset, hex groups)
    end: int | None = None
    other = 0
    for i, ln in enumerate(lines):
        s = ln.strip()
        if not s or s == "*":
            continue
        m = _LINE.match(ln)
        if m is None:
            if _OFFSET_ONLY.fullmatch(s) and i >= len(lines) - 2:
                end = int(s.rstrip(":").strip(), 16)  # the length, after the last line
            else:
                other += 1
            continue
        rows.append((i, int(m.group(1), 16), m.group(2).split()))
    if len(rows) < MIN_LINES or other > (1 - _SHARE) * (len(rows) + other):
        return None
    steps = [b[1] - a[1] for a, b in pairwise(rows)]
    width = max(set(steps), key=steps.count)
    if not 1 <= width <= _MAX_WIDTH or steps.count(width) < 0.5 * len(steps) or any(s <= 0 for s in steps):
        return None
    last = _line_bytes(rows[-1][2], width)
    if last is None:
        return None
    known = end if end is not None else rows[-1][1] + len(last)  # xxd: the last line is as long as its bytes
    data = bytearray(known)
    previous = b""
    for k, (_, off, groups) in enumerate(rows):
        chunk = _line_bytes(groups, width)
        if chunk is None:
            return None
        nxt = rows[k + 1][1] if k + 1 < len(rows) else known
        # Lines a "*" stood for repeat this one's predecessor up to this offset.
        if previous and k and off > rows[k - 1][1] + width:
            for at in range(rows[k - 1][1] + width, off, width):
                data[at:at + width] = previous[: max(0, min(width, off - at))]
        data[off:off + len(chunk)] = chunk[: max(0, min(len(chunk), nxt - off, known - off))]
        previous = chunk
    return Dump(bytes(data[:known]), width, {i: off for i, off, _ in rows}, known)


def _line_bytes(groups: list[str], width: int) -> bytes | None:
    """A line's bytes from its hex groups, at most ``width`` (the groups after them are
    the character column, when it happens to look like hex)."""
    out = bytearray()
    for g in groups:
        if len(out) >= width:
            break
        try:
            out += bytes.fromhex(g)
        except ValueError:
            return None
    return bytes(out[:width])
