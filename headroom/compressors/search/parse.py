"""Parsing grep / ripgrep / git grep output into hits grouped by file.

Accepted shapes: ``path:12:text`` (grep -n, rg, git grep -n), ``path:12-text`` (context
lines), ``path:text`` (no line numbers), ``path:12:5:text`` (rg --vimgrep, grep --column),
and rg's heading mode (a path line, then ``12:text``).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from itertools import groupby
from operator import attrgetter, itemgetter

# A path: no spaces, has a dot-extension or a slash, no leading colon.
_WITH_LINE = re.compile(r"^(?P<path>[^\s:][^:\n]*?):(?P<line>\d+)(?P<sep>[:-])(?P<text>.*)$")
_NO_LINE = re.compile(r"^(?P<path>[^\s:]+?\.[A-Za-z0-9_]{1,10}|[^\s:]*/[^\s:]+):(?P<text>.*)$")
_HEADING_HIT = re.compile(r"^(?P<line>\d+)(?P<sep>[:-])(?P<text>.*)$")
_HEADING_PATH = re.compile(r"^[^\s:]*(?:/|\.[A-Za-z0-9_]{1,10}$)[^\s:]*$")
# Every line of the text in one regex pass: a ``path:12:text`` hit (_WITH_LINE), else a
# ``12:text`` line (_HEADING_HIT), else the line as it is. No part of it crosses a "\n".
_LINES = re.compile(
    r"^(?:(?P<path>[^\s:][^:\n]*?):(?P<line>\d+)(?P<sep>[:-])(?P<text>.*)"
    r"|(?P<hline>\d+)(?P<hsep>[:-])(?P<htext>.*)"
    r"|(?P<raw>.*))$", re.MULTILINE)
_PATH_OF, _LINE_OF, _SEP_OF, _TEXT_OF = (itemgetter(k) for k in range(4))  # a _LINES row's hit fields
_HIT_PATH = attrgetter("path")
# Line breaks of str.splitlines() other than "\n": where one occurs, lines are read one by one.
# (Nine substring searches: a regex character class over the text took as long as the parse.)
_OTHER_BREAKS = ("\r", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e", "\x85", "\u2028", "\u2029")


@dataclass(slots=True)  # one per output line: slots make them cheaper to build and to read
class Hit:
    path: str
    line: int | None
    text: str
    context: bool = False  # a ``-`` context line, not a match
    heading: bool = False  # under an rg ``--heading`` path line: printed as ``12:text``
    column: str = ""  # ``rg --vimgrep`` / ``grep --column``: ``path:12:5:text``

    def render(self) -> str:
        """The line as the search printed it."""
        if self.column:
            return f"{'' if self.heading else self.path + ':'}{self.line}:{self.column}:{self.text}"
        if self.heading:
            return f"{self.line}{'-' if self.context else ':'}{self.text}"
        if self.line is None:
            return f"{self.path}:{self.text}"
        return f"{self.path}:{self.line}{'-' if self.context else ':'}{self.text}"


@dataclass
class FileHits:
    path: str
    hits: list[Hit] = field(default_factory=list)


def parse_search(text: str) -> tuple[list[FileHits], int]:
    """Files in first-seen order, and the number of lines that were not hits."""
    files: dict[str, FileHits] = {}
    heading: str | None = None
    other = 0

    def add(hit: Hit) -> None:
        f = files.get(hit.path)
        if f is None:
            f = files[hit.path] = FileHits(hit.path)
        f.hits.append(hit)

    if any(c in text for c in _OTHER_BREAKS):
        rows = [("", "", "", "", "", "", "", raw) for raw in text.splitlines()]
    else:
        # The regex classifies every line in C; the common lines (a numbered hit outside a
        # heading block, a hit inside one) are read right here, every other line by the
        # rules below, which decide alone.
        rows = _LINES.findall(text)
        if rows and all(map(_PATH_OF, rows)):
            # Every line a numbered hit (grep -n, rg -n: no heading, nothing else): the hits
            # are built by map and filed by groupby, no Python loop per line.
            hits = list(map(Hit, map(_PATH_OF, rows), map(int, map(_LINE_OF, rows)), map(_TEXT_OF, rows),
                            map("-".__eq__, map(_SEP_OF, rows))))
            for path, run in groupby(hits, _HIT_PATH):
                f = files.get(path)
                if f is None:
                    f = files[path] = FileHits(path)
                f.hits += run
            _split_columns([h for f in files.values() for h in f.hits if not h.context])
            return list(files.values()), 0
    last: FileHits | None = None
    for path, line, sep, rest, hline, hsep, htext, raw in rows:
        if path:
            if heading is None:
                # Consecutive lines mostly share their file: the dict is asked on a change only.
                if last is None or last.path != path:
                    last = files.get(path)
                    if last is None:
                        last = files[path] = FileHits(path)
                last.hits.append(Hit(path, int(line), rest, sep == "-"))
                continue
            raw = f"{path}:{line}{sep}{rest}"
        elif hline:
            if heading is not None:
                if last is None or last.path != heading:
                    last = files.get(heading)
                    if last is None:
                        last = files[heading] = FileHits(heading)
                last.hits.append(Hit(heading, int(hline), htext, hsep == "-", heading=True))
                continue
            raw = f"{hline}{hsep}{htext}"
        if not raw.strip() or raw == "--":
            heading = None if not raw.strip() else heading
            continue
        hit = None
        m = _WITH_LINE.match(raw)
        if m and (heading is None or not _HEADING_HIT.match(raw)):
            hit = Hit(m["path"], int(m["line"]), m["text"], m["sep"] == "-")
        elif heading is not None and (m := _HEADING_HIT.match(raw)):
            hit = Hit(heading, int(m["line"]), m["text"], m["sep"] == "-", heading=True)
        elif (m := _NO_LINE.match(raw)) is not None:
            hit = Hit(m["path"], None, m["text"])
        elif _HEADING_PATH.match(raw.strip()):
            heading = raw.strip()
            continue
        if hit is None:
            other += 1
            continue
        add(hit)
    _split_columns([h for f in files.values() for h in f.hits if h.line is not None and not h.context])
    return list(files.values()), other


_COLUMN = re.compile(r"(\d+):")


def _split_columns(hits: list[Hit]) -> None:
    """``rg --vimgrep`` and ``grep --column`` print a column after the line number. When
    (nearly) every numbered hit has one, it is split off, so the text is the code line."""
    if len(hits) < 2:
        return
    # Fewer than 90 % can have one as soon as too many lack one: stop counting there.
    need, most = 0.9 * len(hits), len(hits)
    for h in hits:
        if not _COLUMN.match(h.text):
            most -= 1
            if most < need:
                return
    for h in hits:
        if m := _COLUMN.match(h.text):
            h.column, h.text = m.group(1), h.text[m.end():]


