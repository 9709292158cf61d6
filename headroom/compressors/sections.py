"""Outputs made of parts of different kinds, each compressed by its own compressor.

Agents run ``a && b``, or a program that prints its own output and then a report:
``python -m cProfile -m pip list`` prints pip's package table, a few summary lines and
then a 2 000-row profile table. Detection looks at the start of a text, so the whole
output went to the compressor of its first part: the table compressor took the package
table's layout and found nothing to do in the rest, and the prose compressor dropped the
profile as one overlong "sentence".

Here a text is cut at its blank lines into blocks. Blocks of at least ``MIN_LINES`` lines
are detected on their own; shorter ones (a heading, a summary line) join the part before
them. Consecutive large blocks of one kind form one part, except tables, each of which has
its own header and columns. When that gives two parts or more, each large part goes to its
own type's compressor; the rest stays as it was, and the blank lines between parts are
kept byte for byte. The router stores the whole original and appends one marker, as for
any lossy result.

Only texts whose whole-text detection is prose or a table are looked at: a log, a diff or
a git history with blank lines in it is one thing, and its compressor works best on all
of it.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace

from .base import Compressed, CompressInput, Compressor, hint_of
from .detect import ContentType, Detected, detect, first_visible_char

MIN_LINES = 20  # a block this long is detected on its own
SUMMARY_LINES = 8  # short blocks after a part's large ones up to this many lines are its summary
MAX_PARTS = 8  # more parts than this: a document with many sections, left to its compressor
HOSTS = (ContentType.TEXT, ContentType.TABLE)  # whole-text types whose texts may hold parts
_BLANK = re.compile(r"\n[ \t]*\n")


@dataclass(frozen=True)
class Part:
    start: int  # character offsets into the text
    end: int
    detected: Detected | None  # None: a short stretch, kept as it is


def _blocks(text: str) -> list[tuple[int, int]]:
    """Spans of the runs of non-blank lines, in order."""
    spans, pos = [], 0
    for m in _BLANK.finditer(text):
        if m.start() > pos:
            spans.append((pos, m.start()))
        pos = m.end()
    if pos < len(text):
        spans.append((pos, len(text)))
    return spans


def plan(text: str) -> list[Part] | None:
    """The parts of ``text`` when it holds at least two large parts of different kinds (or
    two tables), else None."""
    blocks = _blocks(text)
    if len(blocks) < 2:
        return None
    large = [(a, b) for a, b in blocks if text.count("\n", a, b) + 1 >= MIN_LINES]
    if not large or len(large) > 4 * MAX_PARTS:
        return None
    # A block's kind is read from its first lines (a JSON block whole: it must parse):
    # what the kinds decide is only whether the text has parts at all, and most texts
    # with many blocks (certificates, man pages, disassembly) have none. The parts found
    # are detected whole below.
    # Blocks that open alike (every certificate of a bundle opens "Certificate:", every
    # function of a disassembly "<address> <name>:") are one kind: detected once.
    by_opening: dict[str, Detected] = {}
    kinds = {}
    for a, b in large:
        opening = _opening(text, a)
        d = by_opening.get(opening) if opening else None
        if d is None or d.parsed is not None:
            d = detect(_head(text, a, b))
            by_opening.setdefault(opening, d)
        kinds[(a, b)] = d
    parts: list[list] = []  # [start, end, Detected | None]
    for a, b in blocks:
        d = kinds.get((a, b))
        if d is None:  # a short block: part of what comes before it
            if parts:
                parts[-1][1] = b
            else:
                parts.append([a, b, None])
            continue
        last = parts[-1] if parts else None
        if last is not None and last[2] is None and len(parts) == 1:
            last[1], last[2] = b, d  # a short lead-in (a title) belongs to the first large block
            continue
        if last is not None and last[2] is not None and last[2].type == d.type and d.type != ContentType.TABLE:
            last[1] = b
            continue
        parts.append([a, b, d])
    large_parts = [p for p in parts if p[2] is not None]
    if len(large_parts) < 2 or len(large_parts) > MAX_PARTS:
        return None
    # A part that starts with short blocks before its first large one was merged into the
    # previous part above; redetect each merged part as a whole (a table with its title).
    return [Part(a, b, d if d is None or (b - a <= _HEAD_CHARS and _head_end(text, a, b) == b) else detect(text[a:b]))
            for a, b, d in parts]


_FIRST_WORD = re.compile(r"\S+")
_NUMBERISH = re.compile(r"(?:0x)?[0-9a-fA-F]*[0-9][0-9a-fA-F]*")


def _opening(text: str, a: int) -> str:
    """A block's first word with its digits and hex runs folded; "" (no reuse) for a
    bracket (JSON) or a word of punctuation only (a heading mark: "# Server" and
    "# Keyspace" open different kinds of blocks)."""
    m = _FIRST_WORD.match(text, a, a + 200) or _FIRST_WORD.search(text, a, a + 200)
    if m is None or m.group(0)[:1] in "[{" or not any(ch.isalnum() for ch in m.group(0)):
        return ""
    return _NUMBERISH.sub("0", m.group(0))


_HEAD_LINES = 40
_HEAD_CHARS = 8_000


def _head_end(text: str, a: int, b: int) -> int:
    """End of the first ``_HEAD_LINES`` lines of ``text[a:b]`` (at most ``_HEAD_CHARS``)."""
    end = min(b, a + _HEAD_CHARS)
    pos = a - 1
    for _ in range(_HEAD_LINES):
        pos = text.find("\n", pos + 1, end)
        if pos < 0:
            return end
    return pos


def _head(text: str, a: int, b: int) -> str:
    if first_visible_char(text[a:a + 200]) in "[{":
        return text[a:b]
    return text[a:_head_end(text, a, b)]


def _after_last_large(text: str, start: int, end: int) -> int:
    """Where the last block of at least ``MIN_LINES`` lines within ``text[start:end]`` ends,
    when what follows it is a summary (at most ``SUMMARY_LINES`` lines); else ``end``."""
    for a, b in reversed(_blocks(text[start:end])):
        if text.count("\n", start + a, start + b) + 1 >= MIN_LINES:
            summary = sum(1 for ln in text[start + b:end].split("\n") if ln.strip()) <= SUMMARY_LINES
            return start + b if summary else end
    return end


def _no_parts(_text: str) -> None:
    return None  # a part is not cut again


class SectionsCompressor:
    name = "sections"

    def __init__(self, compressors: dict[ContentType, Compressor],
                 refine: Callable[..., Detected] | None = None):
        self.compressors = compressors
        # How the router refines a whole text's detection (``structured.refine``: plain
        # text that is no prose has its lines selected whole), applied to each part read as
        # text, so a part is never joined by the prose compressor where a whole text of its
        # kind would not be (issue 33). Passed in: this module is what refine itself plans
        # with, and importing it here would close a circle.
        self.refine = refine

    def compress(self, inp: CompressInput, parts: list[Part] | None = None) -> Compressed | None:
        text = inp.text
        parts = parts if parts is not None else plan(text)
        if not parts:
            return None
        out: list[str] = []
        pos = 0
        before = after = 0
        lossy, changed = False, False
        strategies: list[str] = []
        summaries: list[str] = []
        for p in parts:
            out.append(text[pos:p.start])  # the blank lines between parts, as they were
            # The short blocks after a part's last large one (a profile's "N function calls"
            # and "Ordered by:" lines after pip's table) are a summary between parts: they
            # stay as they are, outside what the part's compressor may leave out.
            end = _after_last_large(text, p.start, p.end)
            piece, tail = text[p.start:end], text[end:p.end]
            result = None
            detected = p.detected
            if self.refine is not None and detected is not None and detected.type is ContentType.TEXT:
                detected = self.refine(piece, detected, _no_parts)
            compressor = self.compressors.get(detected.type) if detected is not None else None
            if compressor is not None and not inp.expired():
                sub = replace(inp, text=piece, parsed=detected.parsed, hint=hint_of(detected), tokens=None, toin=None)
                got = compressor.compress(sub)
                result = got if isinstance(got, Compressed) else None
            if tail:
                n = tail.count("\n")
                before, after = before + n, after + n
            if result is None:
                out.append(piece + tail)
                n = piece.count("\n") + 1
                before, after = before + n, after + n
            else:
                out.append(result.text + tail)
                before, after = before + result.items_before, after + result.items_after
                lossy = lossy or result.lossy
                changed = True
                strategies.append(result.strategy)
                if result.summary:
                    summaries.append(result.summary)
            pos = p.end
        out.append(text[pos:])
        if not changed:
            return None
        return Compressed(text="".join(out), items_before=before, items_after=after,
                          strategy="sections:" + "+".join(strategies), lossy=lossy, summary="; ".join(summaries))
