"""Recognise a whitespace-aligned text table by its gutters: ``dpkg -l``, ``ps aux``,
``ls -l``, ``docker ps``, ``kubectl get``, ``df``, ``pip list -v`` and the like.

Such a table has columns that start at the same character offset on nearly every row, so
some character positions are blank on nearly every row: the *gutters*. A column starts
right after a gutter. Right-aligned numbers (``ps``'s PID, ``ls``'s size) start later than
the gutter on short values, which is harmless: a cell is the row's text between two column
starts, stripped. The last column may hold spaces (``dpkg``'s description, ``ps``'s
command line) and runs to the end of the line.

Gutters are read off the body rows only (a header name may be wider than its values), and
only at positions that most rows reach, so the free text of a long last column cannot fake
one. Prose, logs and code fail: their words do not line up on ``MIN_ROWS`` lines.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise
from operator import itemgetter

import numpy as np

MIN_ROWS = 12
MIN_COLUMNS = 3
_SAMPLE_ROWS = 200  # body rows read to find the gutters
_GUTTER = 0.97  # share of the rows reaching a position that must have a blank there
_REACH = 0.9  # share of the rows that must reach a gutter position (excludes long-text tails)
_CONSISTENT = 0.9  # share of the sampled body rows that must fit the columns
_LOOSE_GUTTERS = (0.9, 0.8)  # gutter shares tried when the strict ones miss a header name
_DISTINCT = 0.5  # share of the sampled rows that must be distinct lines
_MAX_WIDTH = 400
_MAX_PREAMBLE = 8  # lines before the header (dpkg's legend, ls's "total N")
_RULER = re.compile(r"^[-=+|\s]{8,}$")
_RULER_CHARS = re.compile(r"[-=]")
# A header cell is a name, not data: no cell of it is a bare number.
_NUMBER = re.compile(r"^[-+]?\d[\d.,:]*[KMGTkmgt%]?$")
_NUMBERS = re.compile(r"[-+]?\d[\d.,:]*[KMGTkmgt%]?(?: [-+]?\d[\d.,:]*[KMGTkmgt%]?)*")  # blank-separated


@dataclass(frozen=True)
class Layout:
    header: int | None  # line index of the header row (None: no header, as in ``ls -l``)
    body: int  # line index of the first body row
    starts: tuple[int, ...]  # character offset where each column starts
    names: tuple[str, ...]
    titles: frozenset[int] = frozenset()  # lines titling a group of rows (group_titles), when there is a header


@dataclass(frozen=True)
class LayoutOf:
    """The layout detection read off ``text``'s lines (detect.Detected.hint): the table
    compressor takes it for a text equal to ``text`` instead of reading the lines again."""
    text: str
    layout: Layout


def cells(line: str, starts: tuple[int, ...]) -> list[str]:
    """The line cut at the column starts (the last cell runs to its end), each cell
    stripped; cut and stripped in C (a table has a thousand rows, issue 34)."""
    return list(map(str.strip, _cutter(starts)(line)))


@lru_cache(maxsize=32)
def _cutter(starts: tuple[int, ...]) -> Callable[[str], tuple[str, ...]]:
    """The line's cells, unstripped, by one itemgetter of slices."""
    cuts = [slice(a, b) for a, b in pairwise(starts)] + [slice(starts[-1], None)]
    if len(cuts) == 1:
        return lambda line: (line[cuts[0]],)
    return itemgetter(*cuts)


def row_cells(line: str, starts: tuple[int, ...]) -> list[str]:
    """A body row's cells: cut at the column starts when the row fits them; a row that
    overflows a column is split at its runs of blanks instead, and when that does not give
    one cell per column either, the row is ragged (its cell count differs), which the row
    selection keeps in view as an anomaly."""
    if fits(line, starts):
        return cells(line, starts)
    return line.split(None, len(starts) - 1)


_RUN_SHARE = 0.9  # rows whose last cell must be the run of numbers for it to be split
_WIDE_ROWS_MIN = 3  # rows with a longer run before its extra numbers are columns


def split_number_runs(names: list[str], body: list[list[str]]) -> tuple[list[str], list[list[str]]]:
    """``names`` and ``body`` with the last column split at its blanks when it holds a run
    of numbers on nearly every row (``git verify-pack -v``: "217 151 12" after the type,
    one blank apart, so no gutter cut them): each number a column a reader can rank. A row
    whose run is longer (a delta's depth and base) becomes ragged, which the row selection
    keeps in view. Unchanged otherwise."""
    if not body or not names:
        return names, body
    width = len(names)
    lasts = [r[width - 1].split() if len(r) == width else None for r in body]
    counts = [len(x) for x in lasts if x]
    if not counts:
        return names, body
    k = max(set(counts), key=counts.count)
    # Longer runs on a few rows (a delta's depth and base object) are columns of their own,
    # empty on the other rows, so that their extremes can be asked for too.
    longest = max(counts)
    wide = longest if counts.count(longest) >= _WIDE_ROWS_MIN else k
    if wide < 2:
        return names, body  # one word at most: nothing to split (the numbers are not read)
    # A run's first k words, one a number each: the words joined by blanks match numbers
    # joined by blanks (no number holds a blank), one C-level match a row.
    runs = [" ".join(x[:k]) for x in lasts if x and len(x) >= k]
    numeric = len(list(filter(_NUMBERS.fullmatch, runs)))
    if numeric < _RUN_SHARE * len(counts):  # of the rows with a last cell (not a trailer's)
        return names, body
    numbered = re.fullmatch(r"column (\d+)", names[-1])  # a headless table's own names go on counting
    first = int(numbered.group(1)) if numbered else 0
    new_names = [*names[:-1], *(names[-1] if j == 0 else f"column {first + j}" if numbered else f"{names[-1]} {j + 1}"
                                for j in range(wide))]
    rows = [[*r[:-1], *x, *[""] * (wide - len(x))] if x and len(x) <= wide else r for r, x in zip(body, lasts)]
    return new_names, rows


def widen_rows(names: list[str], rows: list[list[str]]) -> tuple[list[str], list[list[str]]]:
    """Rows of two lengths: when ``_WIDE_ROWS_MIN`` rows or more are longer than ``names``
    by one same count, their extra cells are columns of their own (named on from a
    headless table's "column N"), empty on the shorter rows; unchanged otherwise."""
    width = len(names)
    longer = [len(r) for r in rows if len(r) > width]
    if not longer:
        return names, rows
    wide = max(set(longer), key=longer.count)
    if longer.count(wide) < _WIDE_ROWS_MIN:
        return names, rows
    extra = [f"column {k + 1}" for k in range(width, wide)]
    return [*names, *extra], [[*r, *[""] * (wide - width)] if len(r) == width else r for r in rows]


def fits(line: str, starts: tuple[int, ...]) -> bool:
    """Every column boundary the line reaches falls on a blank (or the line's end), and the
    line has text in its first column."""
    if not line[: starts[1]].strip():
        return False
    n = len(line)
    for p in starts[1:]:  # a plain loop: a generator per row cost more than the test
        if p < n and line[p - 1] not in " \t":
            return False
    return True


def infer(lines: list[str], min_rows: int = MIN_ROWS) -> Layout | None:
    """The layout when ``lines`` (a text's lines) are an aligned table of at least
    ``min_rows`` rows, else None."""
    nonblank = [i for i, ln in enumerate(lines) if ln.strip()]
    if len(nonblank) < min_rows + 1:
        return None
    # Tabs make no aligned columns; one line of them is a title above the table
    # (mpstat's "Linux 6.1 (host) \t11/29/26 \t_x86_64_"). One tab on every line sets off
    # the last column (``git ls-tree -l``'s path after its padded size): a blank like any.
    tabs = [lines[i].count("\t") for i in nonblank[:_SAMPLE_ROWS]]
    if (sum(map(bool, tabs)) > 1 or any(tabs[1:])) and not all(t == 1 for t in tabs):
        return None
    header, body = _header_and_body(lines, nonblank)
    rows = body_rows(lines, nonblank, body)
    titles = group_titles(lines, nonblank, header)
    if titles:  # a title names its group of rows: no row of the columns
        rows = [i for i in rows if i not in titles]
    if len(rows) < min_rows:
        return None
    # The rows up to the first blank line are the table's own when there are enough of
    # them: what follows a blank line (readelf's histogram after its symbol table) has
    # columns of its own, which would close the table's gutters.
    head = rows[:_SAMPLE_ROWS]
    block = next((k for k in range(1, len(head)) if head[k] != head[k - 1] + 1), len(head))
    # Gutters are looked for in the first _MAX_WIDTH characters: a megabyte-long line must
    # not make a megabyte-wide grid, and tables put their columns well before that.
    sample = [lines[i][:_MAX_WIDTH].rstrip() for i in (head[:block] if block >= min_rows else head)]
    if tabs[-1]:
        sample = [ln.replace("\t", " ") for ln in sample]
    if len(set(sample)) < _DISTINCT * len(sample):
        return None  # the same line again and again aligns with itself: not a table
    # Gutters blank on every row first; only when a few rows overflow their column
    # (a long name pushing the rest of its row right) the near-unanimous gutters.
    counts = _blank_counts(sample)  # read once for every share tried below
    starts = _starts_at(counts, 1.0)
    # Near-unanimous gutters when a few rows overflow their column: when the unanimous
    # ones miss, or when they find more columns that most rows fit (``git ls-tree``'s one
    # "commit" row among "blob" rows closes the gutters of three columns).
    loose = _starts_at(counts, _GUTTER)
    if loose is not None and (starts is None or len(loose) > len(starts)) \
            and sum(1 for ln in sample if fits(ln, loose)) >= _CONSISTENT * len(sample):
        starts = loose
    if starts is None:
        return None
    if sum(1 for ln in sample if fits(ln, starts)) < _CONSISTENT * len(sample):
        return None
    names = _names(lines[header].rstrip(), starts) if header is not None else None
    if names is None and header is not None:
        wider = _past_header_words(lines[header].rstrip(), starts, sample)
        if wider is not None:
            starts, names = wider
    if names is None and header is not None:
        by_ends = _header_ends(lines[header].rstrip(), sample)
        if by_ends is not None:
            starts, names = by_ends
    if names is None and header is not None:
        loose = _header_gutters(lines[header].rstrip(), sample, counts)
        if loose is not None:
            starts, names = loose
    if names is None and header is not None:
        by_header = _header_starts(lines[header].rstrip(), sample)
        if by_header is not None:
            starts, names = by_header
    if names is None:
        header = None
        names = tuple(f"column {k + 1}" for k in range(len(starts)))
    return Layout(header, body, starts, names, frozenset(titles) if header is not None else frozenset())


_NAMED_ROWS = 0.9  # rows whose last cell must be one word for a listing of names


def ends_in_names(lines: list[str], layout: Layout) -> bool:
    """Whether the sampled rows of a headerless table end in one word each, nearly every
    one its own (a path, a name: ``tar -tvv``, ``ls -l``), and hold as many words each: a
    log's last column is free text of any length, or a field repeating (``gmtoff=7200``)."""
    if layout.header is not None:
        return False
    rows = [ln for ln in lines[layout.body:layout.body + _SAMPLE_ROWS] if ln.strip()]
    if len(rows) < MIN_ROWS:
        return False
    width = len(layout.starts)
    same = sum(1 for ln in rows if len(ln.split()) == width)
    last = [ln[layout.starts[-1]:].strip() for ln in rows]
    one_word = sum(1 for cell in last if " " not in cell)
    return min(same, one_word, len(set(last))) >= _NAMED_ROWS * len(rows)


def _past_header_words(header: str, starts: tuple[int, ...], sample: list[str]
                       ) -> tuple[tuple[int, ...], tuple[str, ...]] | None:
    """The second column's start moved past the first header name when that name is wider
    than the first column's values ("Filesystem" over short device names, as GNU ``df``
    prints them): to just after the name, when every sampled row is blank up to there too
    (the numbers right-aligned under the next name start later anyway); then the header is
    cut at the starts."""
    p = starts[1]
    if len(starts) < 2 or p > len(header) or header[p - 1] == " " or header[:1] == " ":
        return None
    end = header.find(" ", p)
    if end < 0 or (len(starts) > 2 and end + 1 >= starts[2]) or any(ln[p - 1:end + 1].strip() for ln in sample):
        return None
    moved = (starts[0], end + 1, *starts[2:])
    names = _names(header, moved)
    return (moved, names) if names is not None else None


def body_rows(lines: list[str], nonblank: list[int], body: int) -> list[int]:
    """The table's rows: its non-blank lines from ``body`` on, but for the head's lines
    printed again among them (``vmstat`` repeats its two header lines every screenful; as
    rows they would close the gutters and make a number column text)."""
    head = {lines[i].rstrip() for i in nonblank if i < body}
    return [i for i in nonblank if i >= body and lines[i].rstrip() not in head]


def group_titles(lines: list[str], nonblank: list[int], header: int | None) -> set[int]:
    """Lines that title a group of rows: the table printed once per process, host or
    interface (``prlimit`` in a loop, ``df`` per host), each time under a line naming
    it ("== 13392 ingest-router") and the header again. A title is the line right above
    a repeat of the header that has the shape of the line above the first header (as
    many words, each opening on the same kind of character); empty when the header does
    not repeat or nothing titles it."""
    if header is None:
        return set()
    at = nonblank.index(header) if header in nonblank else -1
    if at < 1:
        return set()
    first = _shape(lines[nonblank[at - 1]])
    head = lines[header].rstrip()
    out: set[int] = set()
    for k in range(at + 2, len(nonblank)):
        i = nonblank[k]
        if lines[i].rstrip() == head and _shape(lines[nonblank[k - 1]]) == first:
            out.add(nonblank[k - 1])
    return out


def _shape(line: str) -> tuple[str, ...]:
    """Each word's first character's kind: digit, letter, or the character itself."""
    return tuple("9" if w[0].isdigit() else "a" if w[0].isalpha() else w[0] for w in line.split())


_ENDS_FIT = 0.75  # rows that must fit columns read off right-aligned names


def _header_ends(header: str, sample: list[str]) -> tuple[tuple[int, ...], tuple[str, ...]] | None:
    """Columns that end where the header's right-aligned names end (``vmstat``: "  in   cs
    us"), when most rows fit them and every other row splits at its blanks into one cell per
    column: a value wider than its column (a context-switch storm's six digits) pushes the
    rest of its row right, which closes the gutters the rows alone would show."""
    found = [(m.start(), m.end(), m.group(0)) for m in _NAME_RUN.finditer(header)]
    k = len(found)
    if k < MIN_COLUMNS or not _header_words([w for _, _, w in found]) or found[0][0] == 0:
        return None  # a name at the left edge: left-aligned names (_header_starts)
    starts = (0, *(end + 1 for _, end, _ in found[:-1]))
    fit = 0
    for ln in sample:
        if fits(ln, starts):
            fit += 1
        elif len(ln.split(None, k - 1)) != k:
            return None
    if fit < _ENDS_FIT * len(sample):
        return None
    return starts, tuple(w for _, _, w in found)


def _header_starts(header: str, sample: list[str]) -> tuple[tuple[int, ...], tuple[str, ...]] | None:
    """Columns where the header's names start, when the rows fit them: left-aligned
    columns under left-aligned names (``ipcs``), whose short values leave gutters wider
    than the columns, and whose last name may head a column no row fills."""
    found = [(m.start(), m.group(0)) for m in _NAME_RUN.finditer(header)]
    if len(found) < MIN_COLUMNS or found[0][0] != 0 or not _header_words([w for _, w in found]):
        return None
    starts = tuple(p for p, _ in found)
    if sum(1 for ln in sample if fits(ln, starts)) < _CONSISTENT * len(sample):
        return None
    return starts, tuple(w for _, w in found)


_NAME_RUN = re.compile(r"\S+")


def _header_gutters(header: str, sample: list[str], counts: _BlankCounts
                    ) -> tuple[tuple[int, ...], tuple[str, ...]] | None:
    """Looser gutters, when they cut the header into its names.

    A right-aligned number wider than its column (``ps``'s RSS past 99 999 KiB) pushes the
    rest of its row one character right; on a few rows of fifty that closes a gutter the
    strict share needs, two columns read as one, and the header's names no longer match.
    Gutters blank on most rows are taken when they give one column per header name and
    every row either fits them or splits at its blanks into that many cells (how
    ``row_cells`` reads an overflowing row)."""
    words = header.split()
    if len(words) < MIN_COLUMNS:
        return None
    # The last name's column is free text (a command line): gutters between its words
    # start no column.
    last = header.rindex(words[-1])
    for share in _LOOSE_GUTTERS:
        found = _starts_at(counts, share)
        starts = tuple(p for p in found if p <= last) if found else None
        if starts is None or len(starts) != len(words):
            continue
        names = _names(header, starts)
        if names is None:
            continue
        k = len(starts)
        if all(fits(ln, starts) or len(ln.split(None, k - 1)) == k for ln in sample):
            return starts, names
    return None


# A name opens on a letter or a sign, or on a size and a dash before a word (``df``'s
# "1K-blocks", "1024-blocks"): never a number.
_HEADER_NAME = re.compile(r"^(?:[A-Za-z%#]|\d+[A-Za-z]?-[A-Za-z])[\w%#+/.:()-]*$")
# A sampled report's header starts with the sample's clock time (mpstat, sar, pidstat:
# "21:23:55     CPU    %usr"), in the column its rows' times fill.
_CLOCK = re.compile(r"^\d{1,2}:\d{2}(?::\d{2})?$")


def _header_words(words: list[str]) -> bool:
    """Every word a column name, the first one a clock time too."""
    return bool(words) and (_HEADER_NAME.match(words[0]) or _CLOCK.match(words[0])) is not None \
        and all(_HEADER_NAME.match(w) for w in words[1:])
_GUTTER_RUN = re.compile(r"\S {2,}(?=\S)")


def column_header(line: str) -> bool:
    """At least three names (no numbers) separated by runs of blanks, two of them two
    blanks wide or more: what a table's header row looks like, and prose does not."""
    words = line.split()
    return (len(words) >= MIN_COLUMNS and _header_words(words)
            and len(_GUTTER_RUN.findall(line)) >= 2)


def _header_and_body(lines: list[str], nonblank: list[int]) -> tuple[int | None, int]:
    """A ruler line near the top puts the header right above it (dpkg, pip list); else the
    first line of the table is the header when none of its words is a number."""
    for i in nonblank[:_MAX_PREAMBLE]:
        ln = lines[i].strip()
        if _RULER.match(ln) and len(_RULER_CHARS.findall(ln)) >= 0.6 * len(ln.replace(" ", "")):
            above = [j for j in nonblank if j < i]
            return (above[-1] if above else None), i + 1
    # A summary above the table (``top``'s five lines, a blank): the first line of names
    # set apart by gutters is the header.
    if not column_header(lines[nonblank[0]]):
        for i in nonblank[1:_MAX_PREAMBLE]:
            if column_header(lines[i]):
                return i, i + 1
    first = nonblank[0]
    words = lines[first].split()
    if len(words) >= MIN_COLUMNS and not any(_NUMBER.match(w) for w in words):
        return first, first + 1
    # No header: skip a short first line (``ls -l``'s "total 1234") when the rest is longer.
    if len(words) < MIN_COLUMNS and len(nonblank) > 1:
        return None, nonblank[1]
    return None, first


# Per character position of a sample: the rows with a blank there, the rows ending there;
# and the sample's row count and width.
_BlankCounts = tuple[list[int], list[int], int, int]


def _blank_counts(sample: list[str]) -> _BlankCounts:
    """What ``_starts_at`` reads of ``sample``, whatever the share: the grid is built once
    for the strict, near-unanimous and loose gutters of one sample."""
    width = max(map(len, sample))
    n = len(sample)
    # One byte per character (non-ASCII becomes "?"), padded with NULs: a row x position
    # grid, so the blank count per position is one vectorised sum.
    grid = np.frombuffer("".join(ln.encode("ascii", "replace").decode().ljust(width, "\0")
                                 for ln in sample).encode("ascii"), dtype=np.uint8).reshape(n, width)
    blank = (grid == 32).sum(axis=0).tolist()
    ends = np.bincount([len(ln) for ln in sample], minlength=width + 1).tolist()
    return blank, ends, n, width


def _starts_at(counts: _BlankCounts, share: float) -> tuple[int, ...] | None:
    """Column starts: one after the first gutter position (blank on ``share`` of the rows
    reaching it) that follows a column's text.

    Starting a column at the left edge of its gutter (not at its widest value) keeps
    right-aligned numbers whole: a single wide value makes the gutter one character
    narrower on one row, which would otherwise move the boundary into that value."""
    blank, ends, n, width = counts
    starts = [0]
    reach = n  # rows longer than p
    in_text = False
    for p in range(width):
        reach -= ends[p]
        if reach < _REACH * n:
            break
        if blank[p] < share * reach:
            in_text = True
        elif in_text:
            starts.append(p + 1)
            in_text = False
    else:
        if not in_text and len(starts) > 1:
            starts.pop()  # a trailing gutter starts no column
    return tuple(starts) if len(starts) >= MIN_COLUMNS else None


def _names(header: str, starts: tuple[int, ...]) -> tuple[str, ...] | None:
    """Column names from the header: cut at the column starts when every cell is one name;
    else the header's words, when there is one per column (right-aligned names)."""
    if any(header[p - 1] != " " for p in starts[1:] if p <= len(header)):
        words = header.split()
        return tuple(words) if len(words) == len(starts) else None
    names = cells(header, starts)
    # A name holding a gutter of its own ("in   cs  us") is several columns read as one
    # (a wide value on a few rows closed the gutters between them).
    if not all(names) or any((_NUMBER.match(c) and not (k == 0 and _CLOCK.match(c))) or "  " in c
                             for k, c in enumerate(names)):
        words = header.split()
        return tuple(words) if len(words) == len(starts) else None
    return tuple(names)


MIN_TABLE_ROWS = 3  # rows a table among several needs (its header says it is one)
_MAX_BLOCKS = 64  # blank-line separated blocks looked at for tables one after another
_TABLES_SHARE = 0.8  # of the non-blank lines the tables' blocks must hold
_BLANK_LINE = re.compile(r"\n[ \t]*(?=\n)")


def table_blocks(lines: list[str]) -> list[tuple[int, int]] | None:
    """The spans of two or more tables one after another, each a blank-line separated
    block opening (within its first three lines: a title may come first) with a header of
    names over at least ``MIN_TABLE_ROWS`` rows; each span runs to the next table's block.
    None for one table, or when the tables hold less than most of the lines. (``ipcs``:
    queues, segments and semaphores, each with its own columns; a table sampled whole
    would take the first one's columns for all.)"""
    text = "\n".join(lines)
    blanks: list[int] = []
    for m in _BLANK_LINE.finditer(text):
        blanks.append(m.start())
        if len(blanks) > _MAX_BLOCKS:
            return None  # blank lines all through: no few tables
    if not blanks:
        return None
    # Block starts and ends as line indexes: the line after each blank one.
    cut = sorted({text.count("\n", 0, pos) + 1 for pos in blanks})
    bounds = [0, *cut, len(lines)]
    tables: list[int] = []
    covered = nonblank = 0
    blank = set(cut)
    for a, b in pairwise(bounds):
        # Every block but the first opens with its blank line; only its first lines are read.
        size = b - a - (a in blank)
        first = [i for i in range(a, min(b, a + 4)) if i not in blank and lines[i].strip()][:3]
        nonblank += size
        head = next((k for k, i in enumerate(first) if column_header(lines[i])), None)
        if head is not None and size - head - 1 >= MIN_TABLE_ROWS:
            tables.append(first[0])
            covered += size
    if len(tables) < 2 or covered < _TABLES_SHARE * nonblank:
        return None
    return list(zip(tables, [*tables[1:], len(lines)]))
