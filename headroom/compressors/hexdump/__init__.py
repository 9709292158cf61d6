"""Hex dumps (``hexdump -C``, ``xxd``, ``od -A x -t x1z``): the lines a question about the
file's layout needs, and a legend of where its structures start.

A dump's lines all look alike, so neither a table's row selection nor a log's templates
can tell the line holding the first byte of ``.text`` from any other. The bytes can: the
dump is read back into bytes (``read.py``), the file's format is recognised by its magic
number and its structures are found by its published layout (``layouts.py``: ELF, ZIP,
gzip, PNG, tar). The lines holding those landmarks stay, verbatim, with the first and last
lines and the lines holding an offset or a word the question names; the first line of the
output says which landmark starts on which line. Nothing is rewritten; the original is
kept for retrieval as with every lossy step.
"""

from __future__ import annotations

import re
from bisect import bisect_right

from ..base import Compressed, CompressInput
from .layouts import landmarks
from .read import looks_like_dump, read_dump

__all__ = ["compress_hex_dump", "looks_like_dump"]

_EDGE = 3  # first and last lines kept
_LISTED = 48  # landmarks listed (and their lines kept) when the question names none of them
_OFFSET = re.compile(r"\b0x([0-9a-fA-F]{1,16})\b|\b([0-9a-fA-F]{6,16})\b")
_WORD = re.compile(r"[A-Za-z_.][\w./-]{2,}")


def compress_hex_dump(inp: CompressInput) -> Compressed | None:
    lines = inp.text.split("\n")
    dump = read_dump(lines)
    if dump is None:
        return None
    kind, marks = landmarks(dump.data)
    dump_lines = sorted(dump.offsets)
    starts = [dump.offsets[i] for i in dump_lines]

    def line_of(offset: int) -> int:
        k = bisect_right(starts, offset) - 1
        return dump_lines[max(k, 0)]

    query = inp.query or ""
    asked = _asked_landmarks(marks, query)
    listed = asked + [m for m in marks if m not in asked][: max(0, _LISTED - len(asked))]
    keep = set(dump_lines[:_EDGE]) | set(dump_lines[-_EDGE:])
    keep |= {line_of(off) for off, _ in listed if off < dump.known}
    keep |= {line_of(off) for off in _asked_offsets(query) if off < dump.known}
    if len(keep) >= 0.8 * len(dump_lines):
        return None
    legend = "; ".join(f"{label} at 0x{off:x} " + (f"(line {_offset_text(lines[line_of(off)])})" if off < dump.known
                                                    else f"(past these {dump.known} bytes)")
                       for off, label in sorted(listed))
    more = len(marks) - len(listed)
    head = (f"[hex dump of {_article(kind) if kind else 'a file of unknown format'}, {dump.known} bytes in "
            f"{len(dump_lines)} lines"
            + (f"; where its structures start: {legend}" if legend else "")
            + (f"; {more} more not listed (ask for one by name)" if more > 0 else "") + "]")
    out = [head]
    last = -1
    for i in sorted(keep):
        if last >= 0 and i > last + 1:
            out.append(f"… {i - last - 1} lines elided …")
        out.append(lines[i])
        last = i
    tail = [ln for ln in lines[last + 1:] if ln.strip()]
    if tail and len(tail) <= 2:  # the length line after the last dump line
        out += tail
    return Compressed(
        text="\n".join(out),
        items_before=len(dump_lines),
        items_after=len(keep),
        strategy="hex_layout",
        lossy=True,
        summary=(f"hex dump: {len(keep)} of {len(dump_lines)} lines kept (the first and last, the lines where "
                 f"the file's structures start, offsets the question names), kept lines unchanged"),
    )


def _asked_landmarks(marks: list[tuple[int, str]], query: str) -> list[tuple[int, str]]:
    """Landmarks whose name the question says: a section name with its dot (".text"), a
    member's path or file name, or every word of a structure's name ("central directory")."""
    if not query:
        return []
    low = query.lower()
    words = {w.lower().strip(".,;:?!") for w in _WORD.findall(query)} | set(_WORD.findall(low))
    out = []
    for off, label in marks:
        name = label.split(" of ", 1)[1] if " of " in label else label.removeprefix("section ")
        lname = name.lower()
        if lname in words or lname.rsplit("/", 1)[-1] in words or (
                " " in lname and all(w in low for w in lname.split() if len(w) > 2)):
            out.append((off, label))
    return out


def _asked_offsets(query: str) -> list[int]:
    """Offsets the question writes in hex ("0x8390", "00008390")."""
    out = []
    for m in _OFFSET.finditer(query[:2000]):
        digits = m.group(1) or m.group(2)
        if m.group(2) and not any(c.isdigit() for c in digits):
            continue  # a word of hex letters ("facade"), not an offset
        out.append(int(digits, 16))
    return out[:16]


def _offset_text(line: str) -> str:
    return line.split(None, 1)[0].rstrip(":") if line.strip() else ""


def _article(kind: str) -> str:
    return ("an " if kind[:1].upper() in "AEIOU" else "a ") + kind



