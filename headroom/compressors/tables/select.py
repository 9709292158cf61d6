"""Which rows of a table stay in view, shared by CSV text and JSON record arrays.

A table is a header of column names and rows of cells (strings from CSV, scalars from
JSON). What a reader asks of a table is mostly "which row has the largest/smallest X"
and "what is X for the row with Y", so the rows kept are, in priority order:

1. vital, kept whatever the budget: the rows whose cells the question names (a lookup
   by key values: "year 1983, quarter 2", "state Minnesota"), the extreme rows of the
   columns the question names (only the direction it asks for when it says which), and
   ragged rows (a different field count is an anomaly, often a footer or an error);
2. then, while the token budget lasts: the first and last rows, the maximum and minimum
   row of every other numeric column, and outliers (past Tukey's far-out fences).

Every numeric column's range (its extreme cells verbatim) and every text column's
distinct count are summarised, so a value's extreme is in view even when its row is not.
"""

from __future__ import annotations

import math
import operator
import re
from bisect import bisect_right
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import partial
from itertools import pairwise
from typing import Any

from ...query.counts import counted_extreme, list_items
from ...query.file_kinds import suffixes_asked
from ...query.intent import content_lemmas, intents_of, names_content_word
from ...query.names import letters_in_order, name_parts, named_by_parts, question_words
from ...query.order import asks_neighbour
from ...query.said_numbers import rows_holding, said_numbers
from ...query.terms import worded_lines
from ..odd_members import odd_members
from .nesting import nesting_blocks, nesting_field, worded_rows
from .quantities import has_unit, quantity
from .repeats import empty_content_rows, odd_shape_rows, repeated_key_rows

FIRST_ROWS, LAST_ROWS = 2, 1
_NUMERIC_SHARE = 0.8  # of non-empty cells, for a column to count as numeric
_TYPE_SAMPLE = 16  # cells sampled to tell a text column at once
_REPEAT_SAMPLE = 64  # leading cells that tell a column of repeated codes from one of measurements
_FAR_OUT = 3.0  # Tukey's far-out fence, in IQRs
_OUTLIERS_PER_COLUMN = 2
_MAX_RAGGED = 5
_RELEVANT_ROWS = 2  # best-scoring rows, when the question names no cell and no column
# A number of the question this long (a port, a pid, an id) is selective as a whole token;
# shorter ones ("18" of a time) are everywhere.
_SELECTIVE_DIGITS = 3
_NAMED_ROWS = 32  # at most this many rows sharing the cells the question names are kept
_UNIX_TIMES = (1.0e9, 2.2e9)  # a number column all inside this range is seconds since 1970
_UNNAMED_EXTREME_COLUMNS = 8  # numeric columns whose extreme is kept when the question names none
_MAX_SUMMARY_COLUMNS = 40
# Rare values of a categorical column stay in view: a column of at most RARE_MAX_DISTINCT
# values, one of them held by at least half the rows, and a value held by at most
# _RARE_AT_MOST rows (ps's one stopped process, the one row of another user, dpkg's "rc").
RARE_MIN_ROWS = 20
RARE_MAX_DISTINCT = 16
_RARE_AT_MOST = 5
_RARE_NUMBERS = 3  # distinct values a number column may hold and still have rare ones
_RARE_ROWS = 16  # at most this many rows kept for rare values, whatever the table
_RARE_REPEATS = 4  # rows per distinct value, on average, in a column of a few usual values
_RARE_SHARE = 8  # ... whose rare values are held by at most one row in this many
# Elapsed times as ps and top print them ("0:02.81", "00:01:07", "2-03:04:05"): a column of
# them is numeric, in seconds, so "which process used the most CPU time?" has an extreme.
_DURATION = re.compile(r"(?:(\d+)-)?(?:(\d+):)?(\d+):(\d{2}(?:\.\d+)?)")
_NOT_NONE = partial(operator.is_not, None)  # a C-level filter predicate
# "The longest name", "the shortest title": over a text column the question names, the
# extreme is a cell's length.
_LONGEST, _SHORTEST = re.compile(r"\blongest\b"), re.compile(r"\bshortest\b")
# Superlatives asking for the top or the bottom of a column (one place: the JSON field
# ranker, smart_crusher/asked_field.py, reads them too). Measures as well as sizes (how
# full, busy, deep or costly a row is), whatever the table calls the column: "the fullest
# mount" asks for the top of a Use% column that no question word names, as "the biggest"
# does for a size. "closest/nearest" ("closest to running out") say no end: both lists.
MAX_WORDS = frozenset(["highest", "largest", "biggest", "greatest", "max", "maximum", "peak", "most", "top", "heaviest", "longest", "slowest", "best", "fullest", "busiest", "deepest", "widest", "hottest", "costliest", "priciest", "farthest", "furthest", "tallest", "loudest", "closest", "nearest", "newest", "latest"])
MIN_WORDS = frozenset(["lowest", "smallest", "least", "min", "minimum", "bottom", "fewest", "lightest", "shortest", "fastest", "worst", "emptiest", "cheapest", "coldest", "shallowest", "narrowest", "quickest", "quietest", "closest", "nearest", "oldest", "earliest", "once"])
_MAX_WORDS = re.compile(r"\b(?:" + "|".join(sorted(MAX_WORDS)) + r")\b")
_MIN_WORDS = re.compile(r"\b(?:" + "|".join(sorted(MIN_WORDS)) + r")\b")
# A number standing on its own: not part of an identifier ("web-35", "p99") or a time ("18:12").
_LETTERS = re.compile(r"[a-z]{2,}")
_MAX_LENGTH_COLUMNS = 8  # text columns whose longest cell stays when the question names none
_QUESTION_NUMBER = re.compile(r"(?<![\w.:-])\d+(?:\.\d+)?(?![\w:-]|\.\d)")


@dataclass
class Table:
    names: list[str]
    rows: list[list[Any]]  # cells per row; ragged rows allowed
    costs: list[float]  # per row, in the unit of the budget (tokens for JSON records, characters for text)
    texts: list[str] | None = None  # searchable text per row (for the question's anchors)
    strings: bool = False  # every cell is a str (CSV text): no column needs its cell types looked at
    # Rows titling a group of rows, ascending (the table printed once per process under a
    # line naming it): a group's rows run to the next title; rows before the first have
    # their title in the head.
    titles: list[int] | None = None


@dataclass
class Selection:
    kept: list[int]
    reasons: Counter = field(default_factory=Counter)
    named: list[int] = field(default_factory=list)  # kept rows the question names (a record shown whole)
    columns: str = ""  # one line: each column's range or distinct count

    def summary(self) -> str:
        parts = [f"{n} {r}" for r, n in self.reasons.most_common()]
        return ("kept rows: " + ", ".join(parts)) if parts else ""


def number(v: Any) -> float | None:
    """The numeric value of a cell (a JSON number or a numeric string), else None."""
    if isinstance(v, bool) or v is None:
        return None
    if isinstance(v, (int, float)):
        f = float(v)
    elif isinstance(v, str):
        if not v:  # a field a record lacks (an outline's): float() would raise, slowly
            return None
        try:
            f = float(v)
        except ValueError:
            return None
    else:
        return None
    return f if math.isfinite(f) else None


@dataclass(eq=False)  # compared by identity: ``c in named`` must not compare whole columns
class _Column:
    name: str
    cells: tuple[Any, ...]
    values: list[float | None]
    numeric: bool
    lo: int = -1  # row index of the (first) minimum
    hi: int = -1
    full: bool = False  # every cell is a number (no None among values)
    times: bool = False  # date-times: "longest ago" asks the minimum in words of a maximum


def _even(table: Table) -> bool:
    """Every row has one cell per column (no ragged row)."""
    width = len(table.names)
    return all(map(width.__eq__, map(len, table.rows)))


def _cells_by_column(table: Table, even: bool) -> list[tuple[Any, ...]]:
    """Each column's cells; a ragged row's missing cells are None."""
    width = len(table.names)
    rows = table.rows
    if even:
        return list(zip(*rows)) if rows else [() for _ in range(width)]
    return [tuple(r[j] if j < len(r) else None for r in rows) for j in range(width)]


def _values(cells: tuple[Any, ...], strings: bool = False) -> tuple[list[float | None], bool,
                                                                  dict[Any, float | None] | None]:
    """Numeric values of a column, whether every cell has one, and for string cells the
    number of each distinct cell (None where a column converts cell by cell). ``strings``:
    the caller knows every cell is a str.

    A fully numeric column converts in one C-level pass (over its distinct cells when they
    repeat: years, counts, categories coded as numbers); a column whose sampled cells are
    mostly not numbers is text (no per-cell conversion); the rest convert each distinct
    cell once ("NA" cells repeat, and a failed float() costs an exception)."""
    kinds = {str} if strings else set(map(type, cells))
    if kinds <= {str} and cells and number(cells[0]) is not None:  # text columns fail on the first cell
        try:
            # Whether cells repeat, judged on the first ones: hashing a whole column of
            # measurements only to find them all distinct costs a third of converting it.
            if 2 * len(set(cells[:_REPEAT_SAMPLE])) <= min(len(cells), _REPEAT_SAMPLE):
                distinct = set(cells)
                memo = dict(zip(distinct, map(float, distinct)))
                vals = list(map(memo.__getitem__, cells))
            else:
                memo, vals = None, list(map(float, cells))
        except ValueError:
            pass
        else:
            if math.isfinite(sum(vals)):
                return vals, True, memo  # type: ignore[return-value]
    elif kinds <= {int, float}:
        vals = list(map(float, cells))
        if math.isfinite(sum(vals)):
            return vals, True, None  # type: ignore[return-value]
    sample = cells[:: max(1, len(cells) // _TYPE_SAMPLE)]
    if not _reaches(_NUMERIC_SHARE / 2 * len(sample), number, sample):
        return [None] * len(cells), False, {}
    if kinds <= {str, type(None)}:  # hashing mixes 1, 1.0 and True: only strings share a memo
        memo = _numbers_of_distinct(set(cells))
        return list(map(memo.__getitem__, cells)), False, memo
    return [number(c) for c in cells], False, None


# Plain decimal numbers: float() parses every string this matches (so a whole batch of
# them converts in one C-level pass); the rest ("NA", "", "1_000", "inf") go through number().
_PLAIN_NUMBER = re.compile(r"\s*[-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?\s*")


# Cells that stand for a missing number in exported tables: set aside before a column's
# distinct cells are converted in one pass.
_MISSING = frozenset({None, "", "NA", "N/A", "n/a", "NaN", "nan", "null", "NULL", "None", "-", "?", "."})


def _numbers_of_distinct(distinct: set) -> dict[Any, float | None]:
    """``{cell: number(cell)}`` for the distinct cells of a mostly numeric column."""
    rest = distinct - _MISSING
    try:  # the usual case: everything but the missing markers is a number
        vals = list(map(float, rest))
    except (ValueError, TypeError):
        pass
    else:
        if math.isfinite(sum(vals)):
            memo: dict[Any, float | None] = dict(zip(rest, vals))
            memo.update((c, None) for c in distinct & _MISSING)
            return memo
    plain = [c for c in distinct if c is not None and _PLAIN_NUMBER.fullmatch(c)]
    try:
        vals = list(map(float, plain))
    except ValueError:  # a digit float() does not take: convert one by one
        return {c: number(c) for c in distinct}
    if not math.isfinite(sum(vals)):  # a plain number may still overflow ("1e999")
        return {c: number(c) for c in distinct}
    memo = dict(zip(plain, vals))
    for c in distinct:
        if c not in memo:
            memo[c] = number(c)
    return memo


def _reaches(bound: float, reading: Callable[[Any], Any], sample: tuple[Any, ...]) -> bool:
    """Whether at least ``bound`` sampled cells have a ``reading`` (one not None): the
    answer of counting them all, given up once too few cells are left to reach it (a text
    column fails each type's test on its first few cells, not on all sixteen)."""
    left = len(sample)
    for c in sample:
        if reading(c) is None:
            left -= 1
            if left < bound:
                return False
    return True


def _seconds(cell: Any) -> float | None:
    m = _DURATION.fullmatch(cell.strip()) if isinstance(cell, str) else None
    if m is None:
        return None
    days, hours, minutes, seconds = m.groups()
    if hours is None:  # "M:SS.ss" (top) or "MM:SS"
        hours = "0"
    return int(days or 0) * 86400 + int(hours) * 3600 + int(minutes) * 60 + float(seconds)


def _durations(cells: tuple[Any, ...]) -> list[float | None] | None:
    """A text column's cells as seconds when its sampled cells are elapsed times, else None."""
    sample = cells[:: max(1, len(cells) // _TYPE_SAMPLE)]
    if not sample or not _reaches(_NUMERIC_SHARE * len(sample), _seconds, sample):
        return None
    return [_seconds(c) for c in cells]


# A quantity printed with its unit: a percentage ("94%", df's Use%) or a size with a binary
# or decimal suffix ("4.0K", "252G", "250Mi", "1.2GB", du -h, ls -lh, docker images). Plain
# numbers ("0" bytes used) count too; a column of them alone is numeric already.
def _measures(cells: tuple[Any, ...]) -> list[float | None] | None:
    """A text column's cells as quantities when its sampled cells are numbers with a unit
    (at least one of them with its unit shown), else None."""
    sample = cells[:: max(1, len(cells) // _TYPE_SAMPLE)]
    if not sample or not _reaches(_NUMERIC_SHARE * len(sample), quantity, sample):
        return None
    if not any(map(has_unit, sample)):
        return None
    return [quantity(c) for c in cells]


def _rare_value_rows(cols: list[_Column], n: int) -> list[int]:
    """Rows holding a rare value of a column of few distinct values (see
    RARE_MAX_DISTINCT), numbers too: one segment attached (1) among idle ones (0), one
    mode 600 among 644s; a number column only when it holds at most ``_RARE_NUMBERS``
    values, or numbers all of one width (a flag, a mode or a code, not a measure: ``ps``'s
    %CPU is mostly 0.0 with a tail; ``git ls-tree``'s modes are six digits each)."""
    return rare_value_rows([c.cells for c in cols if not c.numeric or code_numbers(c.cells[:200])], n)


def code_numbers(cells: tuple[Any, ...]) -> bool:
    """Few distinct numbers (``_RARE_NUMBERS``), or up to ``RARE_MAX_DISTINCT`` whole
    numbers all written with the same number of digits, three or more (modes: 100644,
    100755, 120000; not 0.0 and 3.2, which measure)."""
    distinct = set(cells)
    if len(distinct) <= _RARE_NUMBERS:
        return True
    if len(distinct) > RARE_MAX_DISTINCT or not all(isinstance(x, str) and x.isdigit() for x in distinct):
        return False
    return len({len(x) for x in distinct}) == 1 and len(next(iter(distinct))) >= 3


def rare_value_rows(columns: list[tuple[Any, ...]], n: int) -> list[int]:
    """Rows holding a rare value of a categorical column, given each column's cells (a
    listing's status column too: ``git status -s``'s one conflicted path among a hundred
    modified ones)."""
    if n < RARE_MIN_ROWS:
        return []
    held: dict[int, int] = {}  # row -> the fewest rows any of its rare values is held by
    for cells in columns:
        if len(set(cells[:200])) > RARE_MAX_DISTINCT:
            continue  # most columns: told apart by their first cells, without counting all
        counts = Counter(cells)
        if not 2 <= len(counts) <= RARE_MAX_DISTINCT:
            continue
        top = counts.most_common(1)[0][1]
        if top * 2 >= n:  # one usual value: the others are rare up to _RARE_AT_MOST rows
            at_most = _RARE_AT_MOST
        elif n >= _RARE_REPEATS * len(counts):
            # A few usual values, each repeated (pmap's Mode: r----, r-x--, rw---): a value
            # held by a quarter as many rows as the commonest is rare (its one rw-s- map).
            at_most = min(_RARE_AT_MOST, top // 4)
            if sum(k for k in counts.values() if k <= at_most) * _RARE_SHARE > n:
                continue  # rare values everywhere (a cipher list's Enc=): none stands out
        else:
            continue
        for i, v in enumerate(cells):
            k = counts[v]
            if k <= at_most and v not in (None, ""):
                held[i] = min(k, held.get(i, k))
    # The rarest first when there are more than the cap can keep.
    return sorted(sorted(held, key=lambda i: (held[i], i))[:_RARE_ROWS])

# A date and a clock time ("2026-11-20 09:22:33.000 +0000", ISO's "T"): their digits in
# order are a number that sorts as the times do, within one column's single format.
# A date alone ("2026-11-18", a listing whose clock time is a column of its own) sorts too.
_DATETIME = re.compile(r"\s*(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2}))?|\s*$)")


def _datetime_match(cell: Any) -> re.Match[str] | None:
    return _DATETIME.match(cell) if isinstance(cell, str) else None


def _datetimes(cells: tuple[Any, ...]) -> list[float | None] | None:
    """A text column's cells as sortable numbers when its sampled cells are date-times
    (``stat``'s Modify, a listing's created-at), else None: "modified longest ago" is the
    column's minimum."""
    sample = cells[:: max(1, len(cells) // _TYPE_SAMPLE)]
    if not sample or not _reaches(_NUMERIC_SHARE * len(sample), _datetime_match, sample):
        return _listing_dates(cells, sample)
    out: list[float | None] = []
    for c in cells:
        m = _datetime_match(c)
        out.append(float("".join(g or "00" for g in m.groups())) if m else None)
    return out


# ls's date inside a cell a layout did not split ("4096 Nov 20 05:44 ./ledgerd", find -ls
# with its owners' widths shifting the gutters): a time of day within the last six months,
# else the year. A time of day is the later of the two, whatever the year.
_LISTING_DATE = re.compile(r"(?<!\S)(Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)\s+(\d{1,2})\s+"
                           r"(?:(\d{1,2}):(\d{2})|(\d{4}))(?!\S)")
_MONTH = {m: k for k, m in enumerate(("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov",
                                       "Dec"), 1)}


def _listing_date(cell: Any) -> re.Match[str] | None:
    return _LISTING_DATE.search(cell) if isinstance(cell, str) else None


def _listing_dates(cells: tuple[Any, ...], sample: tuple[Any, ...]) -> list[float | None] | None:
    if not _reaches(_NUMERIC_SHARE * len(sample), _listing_date, sample):
        return None
    out: list[float | None] = []
    for c in cells:
        m = _listing_date(c)
        if m is None:
            out.append(None)
            continue
        month, day, hh, mm, year = m.groups()
        when = _MONTH[month] * 100 + int(day)
        out.append(1e9 + when * 1e4 + int(hh) * 100 + int(mm) if year is None else int(year) * 1e4 + when)
    return out


_CLOCK_CELL = re.compile(r"\d{2}:\d{2}:\d{2}$")


def _clock_series(cells: tuple[Any, ...], seconds: list[float | None]) -> bool:
    """Clock times ("21:23:56") in order, one sample a row (mpstat, sar): the rows are a
    series in time, not durations ranked by length."""
    clocks = [v for c, v in zip(cells, seconds) if v is not None and isinstance(c, str) and _CLOCK_CELL.match(c)]
    return len(clocks) >= _NUMERIC_SHARE * len(cells) and all(a <= b for a, b in pairwise(clocks))


def _columns(table: Table) -> list[_Column]:
    cols = []
    even = _even(table)
    strings = table.strings and even  # a ragged row's missing cells are None, not str
    for name, cells in zip(table.names, _cells_by_column(table, even)):
        values, full, memo = _values(cells, strings)
        times = False
        if memo == {}:
            quantities = _durations(cells)
            times = quantities is not None and _clock_series(cells, quantities)
            if quantities is None:
                quantities = _measures(cells)
            if quantities is None:
                quantities = _datetimes(cells)
                times = quantities is not None
            if quantities is not None:
                values, memo = quantities, None
        col = _Column(str(name), cells, values, False, full=full, times=times)
        cols.append(col)
        if full:
            lo, hi = min(values), max(values)  # type: ignore[type-var]
        elif memo == {}:
            continue  # text: no cell is a number
        else:
            filled = len(cells) - cells.count(None) - cells.count("")
            if memo is None:
                present = [v for v in values if v is not None]
                n_present = len(present)
            else:  # the distinct cells' numbers; the cells' own, counted in C (a column of
                # hex bytes has hundreds of distinct non-numbers: one count per distinct cell
                # was quadratic, 150 ms on a hex dump)
                present = [v for v in memo.values() if v is not None]
                n_present = len(values) - values.count(None)
            if not (filled > 0 and n_present >= _NUMERIC_SHARE * filled and present):
                continue
            lo, hi = min(present), max(present)
        if lo != hi:
            col.numeric = True
            col.lo, col.hi = values.index(lo), values.index(hi)
            # Unix times of this century (stat -t's access, modify and change columns)
            col.times = col.times or _UNIX_TIMES[0] <= lo and hi <= _UNIX_TIMES[1]
    return cols


def _named_columns(cols: list[_Column], qlow: str, abbreviated: bool = False) -> list[_Column]:
    out = []
    short: list[_Column] = []
    words: tuple[str, ...] | None = None
    content: frozenset[str] | None = None
    for c in cols:
        name = c.name.lower().strip()
        if len(name) < 2:
            continue
        # "%CPU", "TIME+", "#files": the sign is the unit, the word is what a question says.
        bare = name.strip("%#+*$ ")
        for form in {name, name.replace("_", " "), *((bare,) if len(bare) >= 2 else ())}:
            if _says(form, qlow):
                out.append(c)
                break
        else:
            if abbreviated and _ABBREVIATION.fullmatch(bare):
                words = _question_words(qlow) if words is None else words
                content = content_lemmas(qlow) if content is None else content
                if _abbreviates(bare, words, content):
                    short.append(c)
    # A tool's short column names ("us", "cs", "%usr"): by what the question spells out,
    # unless that names many columns (then it names none in particular).
    return out + short if len(short) <= _ABBREVIATED_MAX else out


_ABBREVIATION = re.compile(r"[a-z]{2,5}")
_ABBREVIATED_MAX = 2
_WORD_OR_COMPOUND = re.compile(r"[a-z]+(?:-[a-z]+)*")


def _question_words(qlow: str) -> tuple[str, ...]:
    return tuple(_WORD_OR_COMPOUND.findall(qlow))


def names_abbreviated(name: str, qlow: str) -> bool:
    """Whether the (lower-cased) question names ``name`` whole, as a word, or by a word
    it abbreviates ("usr" for "user", "cs" for "context-switch"; see ``_abbreviates``)."""
    low = name.lower().strip()
    if len(low) >= 2 and _says(low, qlow):
        return True
    return bool(_ABBREVIATION.fullmatch(low)) and _abbreviates(low, _question_words(qlow), content_lemmas(qlow))


def _abbreviates(name: str, words: tuple[str, ...], content: frozenset[str]) -> bool:
    """A short column name is the start of a longer question word ("us" for "user", "sy"
    for "system"), a 3-5 letter name the word's letters in order from its first ("usr",
    not "swpd" for "swap"), or a two-letter name the initials of a
    hyphenated word or of two long words in a row ("cs": "context-switch", "context
    switches")."""
    for k, w in enumerate(words):
        if "-" in w:
            parts = w.split("-")
            if len(name) == len(parts) and all(p[:1] == ch for p, ch in zip(parts, name)):
                return True
            continue
        if len(w) < max(4, len(name) + 1) or w not in content:
            continue
        if w.startswith(name):
            return True
        if len(name) >= 3 and w[0] == name[0] and letters_in_order(name, w):
            return True
        if len(name) == 2 and k + 1 < len(words) and len(w) >= 4 and len(words[k + 1]) >= 4 \
                and w[0] == name[0] and words[k + 1][0] == name[1] and words[k + 1] in content:
            return True
    return False



def _lookup_rows(table: Table, cols: list[_Column], qlow: str, limit: int) -> list[int]:
    """Rows naming the most of the values the question names (numbers compare as numbers,
    text cells as whole words, a ``key=value`` cell by its value); none when too many rows
    tie for that.

    A row counts each named value once: "which suites use SRP for key exchange?" names
    the rows whose key exchange is SRP, also those whose authentication says SRP as well.
    When that leaves too many rows, the rows with the most named cells are tried (as
    before the values were counted once)."""
    qnums = {float(m) for m in _QUESTION_NUMBER.findall(qlow)}
    negated = _NEGATION.search(qlow) is not None
    qwords = set(_QUESTION_WORD.findall(qlow)) if negated else set()
    values: dict[int, set] = {}  # row -> the named values it holds
    cells: dict[int, int] = {}  # row -> how many of its cells are named
    # A word that names a column ("as their nil" over a NIL= column) is no value asked for,
    # even where some cells hold it.
    prefixes = {k: _key_prefix(c.cells) for k, c in enumerate(cols) if not c.numeric}
    column_words = {str(c.name).strip().lower() for c in cols} | {p[:-1].lower() for p in prefixes.values() if p}
    for k, c in enumerate(cols):
        if c.numeric:
            if qnums and not qnums.isdisjoint(c.values):  # one C-level pass rules most columns out
                for i in [i for i, v in enumerate(c.values) if v in qnums]:
                    values.setdefault(i, set()).add(c.values[i])
                    cells[i] = cells.get(i, 0) + 1
            continue
        prefix = prefixes[k]
        cut = len(prefix)
        named = {}
        for cell in set(c.cells):
            if not isinstance(cell, str):
                continue
            # Named as a whole word or phrase (_names), the value lowered once per cell:
            # a hex dump's 7 000 distinct cells a call (issue 34).
            low = cell[cut:].lower().strip()
            if low not in column_words and len(low) >= 3 and low in qlow and _says(low, qlow):
                named[cell] = low
        if negated and _abbreviated(prefix[:-1] if prefix else c.name, qwords):
            # "suites that offer no encryption" over an "Enc=" column: its empty values (and
            # the records of a stanza list that lack the field: "an image made without a label").
            for cell in set(c.cells):
                if isinstance(cell, str) and (cell[cut:].strip().lower() in _EMPTY_VALUES or not cell.strip()):
                    named[cell] = "no " + (prefix or c.name)
        if named:
            for i in [i for i, cell in enumerate(c.cells) if cell in named]:
                values.setdefault(i, set()).add(named[c.cells[i]])
                cells[i] = cells.get(i, 0) + 1
    for score in ({i: len(v) for i, v in values.items()}, cells):
        best = max(score.values(), default=0)
        if best == 0:
            return []
        rows = sorted(i for i, s in score.items() if s == best)
        if len(rows) <= limit:
            return rows
    return []


# A cell that opens with its own field name ("Kx=ECDH", "Au=RSA" in openssl's cipher list,
# "mtu:1500"): when every text cell of a column opens with the same one, the rest is its value.
_KEY_PREFIX = re.compile(r"[A-Za-z][\w.-]{0,30}[=:](?=[^\s=:])")


# "No X", "without X": the question asks for the rows where a column that X names is empty.
# A column's name is often cut short ("Enc", "Au", "Avail"): it names X when a word of the
# question (four letters or more) starts with it.
_NEGATION = re.compile(r"\b(?:no|none|not|without|lacks?|lacking)\b|n't\b")
_QUESTION_WORD = re.compile(r"[a-z]{4,}")
_EMPTY_VALUES = frozenset({"none", "null", "nil", "-", "n/a", "(none)", "<none>"})


def _rows_named_by_parts(cols: list[_Column], query: str) -> list[int]:
    """Rows whose name the question spells out word by word ("how many TCP connections
    were opened actively" and ``TcpActiveOpens`` in nstat's first column): in the first
    column of compound names (single tokens, mostly distinct), by query.names."""
    for c in cols:
        if c.numeric:
            continue
        sample = [x for x in c.cells[:200] if isinstance(x, str)]
        if len(sample) < _NAME_COLUMN_MIN or len(set(sample)) < 0.5 * len(sample) \
                or sum(1 for x in sample if " " in x or len(x) > 64) > 0.1 * len(sample):
            continue
        return named_by_parts(c.cells, query)
    return []


def _kind_extremes(cols: list[_Column], suffixes: tuple[str, ...], named: list[_Column], want_max: bool,
                   want_min: bool) -> list[int]:
    """The extremes of the named numeric columns (else of every numeric one, up to
    ``_UNNAMED_EXTREME_COLUMNS``) among the rows whose cell in the first text column
    holding such paths ends in one of ``suffixes``; none when no such column, or when every
    row is of the kind (the plain extremes say it)."""
    if not suffixes:
        return []
    for c in cols:
        if c.numeric:
            continue
        rows = [i for i, x in enumerate(c.cells) if isinstance(x, str) and x.lower().endswith(suffixes)]
        if len(rows) >= 2:
            break
    else:
        return []
    if len(rows) == len(c.cells):
        return []
    out: list[int] = []
    for col in (named or [c for c in cols if c.numeric][:_UNNAMED_EXTREME_COLUMNS]):
        valued = [i for i in rows if col.values[i] is not None]
        if not valued:
            continue
        if want_max:
            out.append(max(valued, key=lambda i: (col.values[i], -i)))
        if want_min:
            out.append(min(valued, key=lambda i: (col.values[i], i)))
    return out


_NAME_COLUMN_MIN = 8  # cells a column of names needs before its names say anything


def _abbreviated(name: Any, qwords: set[str]) -> bool:
    """Whether the column's name is a word of the question or the start of one."""
    key = str(name).strip().lower()
    return len(key) >= 2 and key.isalpha() and any(w.startswith(key) for w in qwords)


def _key_prefix(cells: tuple[Any, ...]) -> str:
    """The ``key=`` (or ``key:``) prefix all of a column's text cells share, else ""."""
    first = next((c for c in cells if isinstance(c, str) and c), None)
    m = _KEY_PREFIX.match(first) if first is not None else None
    if m is None:
        return ""
    prefix = m.group(0)
    return prefix if all(c.startswith(prefix) for c in cells if isinstance(c, str) and c) else ""


def _anchored_rows(table: Table, anchors, limit: int, named_limit: int) -> list[int]:
    """Rows naming a selective non-numeric anchor of the question (an id, a quoted
    string), rows holding a long number of the question as a whole token when at most
    ``named_limit`` rows do, and the rows holding the most of its anchors at once when
    few rows do: a time asked as "18:12 UTC on 4 March" names the row whose timestamp
    holds 18 and 12 (and the host) where each alone is common."""
    if not anchors or table.texts is None:
        return []
    lowered = [t.lower() for t in table.texts]
    n = len(lowered)
    score = [0] * n
    out: set[int] = set()
    for term in sorted(anchors.terms):
        hits = [i for i, t in enumerate(lowered) if term in t]
        if not hits or len(hits) == n:
            continue  # in every row: names nothing in particular
        if number(term) is None:
            if len(hits) <= limit:
                out.update(hits)
        elif len(term) >= _SELECTIVE_DIGITS:
            # "port 50051" inside "127.0.0.1:50051": a port, pid or id is a token of a text
            # cell, so no column holds it as a number. Its rows (the listener and its
            # peers) are kept together, like the rows of a named command.
            whole = re.compile(r"(?<![\d.])" + re.escape(term) + r"(?![\d.])")
            tokens = [i for i in hits if whole.search(lowered[i])]
            if len(tokens) <= named_limit:
                out.update(tokens)
        for i in hits:
            score[i] += 1
    best = max(score, default=0)
    if best >= 2:
        rows = [i for i in range(n) if score[i] == best]
        if len(rows) <= limit:
            out.update(rows)
    return sorted(out)


_TIES_MAX = 4  # rows sharing a column's extreme that are all kept ("which files were never run": two at 0 %)


def _tied(col: _Column, i: int) -> list[int]:
    """Row ``i`` (a column's extreme) and the rows holding the same value, when they are
    at most ``_TIES_MAX`` in all; else row ``i`` alone (a column of zeros ties everywhere)."""
    v = col.values[i] if i >= 0 else None
    if v is None:
        return [i]
    rows = [k for k, x in enumerate(col.values) if x == v]
    return rows if len(rows) <= _TIES_MAX else [i]


def _runner_up(col: _Column, highest: bool) -> list[int]:
    """The first row of the column's second-highest (or second-lowest) distinct value."""
    ext = col.values[col.hi if highest else col.lo]
    rest = [(v, i) for i, v in enumerate(col.values) if v is not None and v != ext]
    if not rest:
        return []
    return [(max if highest else min)(rest, key=lambda p: (p[0], -p[1]) if highest else (p[0], p[1]))[1]]


def _highest(col: _Column) -> tuple[int, ...]:
    """The column's highest row, and the runner-up when the highest is a last row summing
    the others (``coverage report``'s TOTAL, a ``du -c`` total): the total is kept, and is
    not what "which file has the most" asks for."""
    hi = col.hi
    vals = col.values
    if hi != len(vals) - 1 or hi < 2:
        return (hi,)
    rest = [v for v in vals[:-1] if v is not None]
    total = sum(rest)
    if not rest or abs(vals[hi] - total) > _TOTAL_SLACK * max(abs(total), 1):
        return (hi,)
    return hi, max(range(len(vals) - 1), key=lambda i: -math.inf if vals[i] is None else vals[i])


_TOTAL_SLACK = 0.01  # a total row's value may differ from the sum by rounding
_SERIES_TOP = 3  # rows of an asked column's extreme kept over a series
_SERIES_TIES = 6  # ... and rows tied with the last of them, up to this many in all


def _top_rows(col: _Column, highest: bool) -> list[int]:
    """The rows of the column's ``_SERIES_TOP`` highest (or lowest) values, with ties."""
    vals = [(v, i) for i, v in enumerate(col.values) if v is not None]
    if not vals:
        return []
    vals.sort(key=lambda p: (-p[0] if highest else p[0], p[1]))
    cut = vals[min(_SERIES_TOP, len(vals)) - 1][0]
    return [i for v, i in vals[:_SERIES_TIES] if (v >= cut if highest else v <= cut)]


_OUTLIER_INTENTS = frozenset({"extreme", "one_off"})


def _outliers(col: _Column) -> list[int]:
    """Rows of the column's most extreme values beyond Tukey's far-out fences (3 IQR past
    the quartiles): one sort, then only the few values past a fence are looked up."""
    s = sorted(col.values) if col.full else sorted(filter(_NOT_NONE, col.values))
    n = len(s)
    q1, q3 = s[n // 4], s[(3 * n) // 4]
    iqr = q3 - q1
    if iqr == 0:
        return []
    low, high = q1 - _FAR_OUT * iqr, q3 + _FAR_OUT * iqr
    med = s[n // 2]
    far = [v for v in s[:_OUTLIERS_PER_COLUMN] if v < low] + [v for v in s[-_OUTLIERS_PER_COLUMN:] if v > high]
    far.sort(key=lambda v: -abs(v - med))
    return [col.values.index(v) for v in dict.fromkeys(far[:_OUTLIERS_PER_COLUMN])]


_NONZERO = re.compile(r"\bnon[- ]?zero\b|\b(?:other than|not|above|more than|greater than) (?:zero|0)\b"
                      r"|\b(?:excluding|ignoring|besides|apart from) (?:the )?zero(?:e?s)?\b")


def asks_nonzero(qlow: str) -> bool:
    """Whether the (lower-cased) question leaves zero out of its smallest value ("the
    smallest non-zero advance width": glyphs that do not advance are not the thinnest)."""
    return _NONZERO.search(qlow) is not None


# "The big one" among many is the biggest: a plain adjective after "the" singles out the
# extreme as the superlative does ("which symbol is the big zero-filled buffer?").
_THE_BIG = re.compile(r"\bthe (?:big|huge|large|giant|massive|enormous)\b")
_THE_SMALL = re.compile(r"\bthe (?:tiny|small|little)\b")


def asked_directions(qlow: str) -> tuple[bool, bool]:
    """Whether the (lower-cased) question asks for a maximum, and for a minimum, in words
    ("the largest", "the fewest", "the big one")."""
    return (bool(_MAX_WORDS.search(qlow) or _THE_BIG.search(qlow)),
            bool(_MIN_WORDS.search(qlow) or _THE_SMALL.search(qlow)))


def select_rows(table: Table, *, query: str, anchors, budget: float, fmt=str, score=None) -> Selection:
    """Rows to keep (indices into ``table.rows``, in order) within ``budget`` tokens,
    vital rows whatever it costs. ``fmt`` renders a cell for the column summary;
    ``score`` (texts -> relevance to the question) ranks rows when the question names
    no cell and no column, e.g. a time said in words ("08:37 UTC on 4 March")."""
    n = len(table.rows)
    cols = _columns(table)
    qlow = query.lower()
    want_max, want_min = asked_directions(qlow)
    says_extreme = want_max or want_min  # the question's own words, before "neither" means both
    if want_max == want_min:
        want_max = want_min = True
    limit = max(4, n // 50)
    sel = Selection([])
    chosen: dict[int, str] = {}

    def take(i: int, reason: str) -> None:
        if i not in chosen:
            chosen[i] = reason
            sel.reasons[reason] += 1

    looked_up = _take_named(table, cols, query, qlow, anchors, limit, take)
    # Short names ("us", "Stmts") spelled out by the question count when it asks for an
    # extreme, in words or of a series: "how much resident memory does X use" looks a row up.
    series = any(c.times for c in cols)
    named = [c for c in _named_columns(cols, qlow, says_extreme or series) if c.numeric] if qlow else []
    # "What is X for <row>?" names X without asking for its extremes.
    asks_extreme = not looked_up or says_extreme
    # Over a series (rows in time, a column of times), an extreme is a stretch of rows: a
    # burst lasts several samples, so the top few of an asked column stay, with their ties.
    for c in named if asks_extreme else ():
        if want_max:
            for i in _top_rows(c, True) if series else _highest(c):
                take(i, "extremes of asked columns")
        if want_min:
            for i in _top_rows(c, False) if series else (c.lo,):
                take(i, "extremes of asked columns")
    # "Which Python module is the biggest?" over a listing: the extreme among the rows
    # whose path ends like the kind of file asked (query.file_kinds), not the biggest file.
    for i in _kind_extremes(cols, suffixes_asked(qlow), named, want_max, want_min) if says_extreme else ():
        take(i, "extremes of the asked kind")
    if says_extreme and not named:
        for i, reason in _extremes_no_column_names(cols, query, qlow, bool(looked_up), want_max, want_min):
            take(i, reason)
    longest, shortest = bool(_LONGEST.search(qlow)), bool(_SHORTEST.search(qlow))
    if longest or shortest:
        # Named when each word of the column's name is a word of the question ("official
        # country name" names official_name). "Which import took the longest?" names none.
        text_cols = [c for c in cols if not c.numeric and _words_named(c.name, qlow)]
        k = 1
        if not text_cols and not any(c.numeric for c in cols):
            # Nothing to measure but text, and no column named ("the longest translation"
            # over gettext's msgid/msgstr): each text column's two longest (shortest) cells,
            # for the longest is often a heading (a catalogue's header entry).
            text_cols, k = cols[:_MAX_LENGTH_COLUMNS], 2
        for i in _length_extremes(text_cols, longest, shortest, k):
            take(i, "extremes of asked columns")
    width = len(table.names)
    titled = set(table.titles or ())
    for i in [i for i, r in enumerate(table.rows) if len(r) != width and i not in titled][:_MAX_RAGGED]:
        take(i, "ragged")
    # The table printed per process: a row that reads otherwise than the same row of the
    # other groups is what sets its group apart (the one process allowed core dumps).
    for i in _odd_rows_across_groups(table.rows, titled) if titled else ():
        take(i, "unlike the other groups")


    optional: list[tuple[int, str]] = []
    # A named column's extremes answer "which is the largest X?"; "what is the X of <a row
    # no cell names whole>?" ("the RSS of the thumbnail process", inside a command line)
    # gets them as a hedge, and the rows relevance finds.
    if qlow and score is not None and table.texts is not None and not looked_up and not (named and says_extreme):
        rel = score(table.texts)
        ranked = sorted((i for i in range(n) if rel[i] > 0), key=lambda i: (-rel[i], i))
        optional += [(i, "relevant to the question") for i in ranked[:_RELEVANT_ROWS]]
    optional += [(i, "first/last") for i in range(min(FIRST_ROWS, n))]
    optional += [(i, "first/last") for i in range(max(0, n - LAST_ROWS), n)]
    numeric = [c for c in cols if c.numeric and c not in named]
    optional += [(c.hi, "column max") for c in numeric] + [(c.lo, "column min") for c in numeric]
    # The columns each optional extreme row is an extreme of: its ties are looked up only
    # when the row is taken.
    extreme_of: dict[int, list[_Column]] = {}
    for c in numeric:
        for i in {c.hi, c.lo}:
            extreme_of.setdefault(i, []).append(c)

    used = _take_optional(optional, extreme_of, chosen, table.costs, budget, take)
    # Rare values stay whatever the budget, and on top of it: the rows relevance and the
    # extremes picked for the question are not pushed out by them.
    for i in _rare_value_rows(cols, n):
        take(i, "rare values")
    for i, reason in _rows_set_apart(cols, n):
        take(i, reason)
    # Outliers last, and only computed when there is room for them; whatever the room when
    # the question asks for what stands out ("switching tasks far more than usual") and
    # names no column to rank.
    vital = bool(qlow) and not named and bool(intents_of(query) & _OUTLIER_INTENTS)
    if used < budget or vital:
        for i in (i for c in cols if c.numeric for i in _outliers(c)):
            if i not in chosen and (vital or used + table.costs[i] <= budget):
                take(i, "outlier")
                used += table.costs[i]
    if table.titles:  # a kept row says whose it is: its group's title stays with it
        for i in list(chosen):
            g = bisect_right(table.titles, i) - 1
            if g >= 0:
                take(table.titles[g], "group titles")
    sel.kept, sel.named = sorted(chosen), sorted(i for i, why in chosen.items() if why == "named by the question")
    sel.columns = _column_summary(cols, fmt)
    return sel


def _take_named(table: Table, cols: list[_Column], query: str, qlow: str, anchors, limit: int,
                take: Callable[[int, str], None]) -> list[int]:
    """Takes the rows the question names (its words, anchors, a group's title, a number said
    in words); returns the rows its words look up (they decide whether it asks for extremes)."""
    n = len(table.rows)
    # Rows of a thing the question names (a command, a host, a user) are kept together when
    # they are at most one row in eight, up to _NAMED_ROWS: lsof lists a couple of dozen
    # files per process, and two picked by relevance rarely hold the one asked about.
    named_limit = max(limit, min(_NAMED_ROWS, n // 8))
    looked_up = _lookup_rows(table, cols, qlow, named_limit) if qlow else []
    if qlow and not looked_up:
        looked_up = _rows_named_by_parts(cols, query)
    for i in looked_up:
        take(i, "named by the question")
    # A word of the question inside a cell ("which relation had a row locked" over
    # pg_waldump's "desc: LOCK off 1: …"), where few rows hold it; with each such row the
    # rows sharing one of its rare ids (the INSERT of the transaction whose ABORT is named).
    if qlow and table.texts is not None and not looked_up:
        worded = sorted(worded_lines(list(table.texts), query, max(4, n // 50)))
        for i in worded:
            take(i, "named by the question")
        for i in _id_mates(cols, worded):
            take(i, "shares an id with a named row")
    anchored = _anchored_rows(table, anchors, limit, named_limit)
    for i in anchored:
        take(i, "named by the question")
    # "Which entry comes right after X": the row next to X's holds none of the question's
    # words (a sorted or ranked table); both sides, as "after" in time is "above" in a
    # newest-first listing.
    pointed = sorted({*looked_up, *anchored})
    if pointed and len(pointed) <= _NEIGHBOURED and asks_neighbour(query):
        for i in pointed:
            for j in (i - 1, i + 1):
                if 0 <= j < n:
                    take(j, "next to a named row")
    # A named row inside a tree indented down one column (pickletools' records): its block;
    # there, a question word written once names the record it opens (later ones point back).
    field = nesting_field(table.texts) if table.texts and qlow else None
    if field is not None:
        named_rows = [*looked_up, *anchored] or worded_rows(table.texts, query)
        for i in named_rows:
            take(i, "named by the question")
        for i in nesting_blocks(table.texts, named_rows, field):
            take(i, "the block of a named row")
    # A group whose title the question names (``EXPLAIN SELECT … FROM stock_levels`` over its
    # bytecode): the asked value is one of its rows, so the group stays whole.
    for i in _named_group_rows(table, qlow) if table.titles and qlow else ():
        take(i, "named by the question")
    # A number said in words ("a zero-byte file"), where it is rare in a numeric column.
    for c in cols if (said := said_numbers(qlow)) else ():
        for i in rows_holding(c.values, said, limit) if c.numeric else ():
            take(i, "named by the question")
    return looked_up


_NEIGHBOURED = 4  # named rows whose neighbours an order question brings, at most
_ID_SHARE = 4  # rows per distinct value at most, on average, for a column to hold ids
_ID_MATES = 3  # rows a value may hold and still tie them together
_ID_NAMED_MAX = 12  # named rows whose ids are followed at most; more: the words named no few rows


def _id_mates(cols: list[_Column], rows: list[int]) -> list[int]:
    """Rows sharing a value of an id column (each value on a few rows: a transaction id,
    a process id) with one of ``rows``, where at most ``_ID_MATES`` rows hold that value."""
    if not rows or len(rows) > _ID_NAMED_MAX:
        return []
    out: set[int] = set()
    for c in cols:
        cells = c.cells
        try:
            if len(set(cells)) * _ID_SHARE < len(cells):
                continue
        except TypeError:  # a cell that is no string (a nested value): no ids there
            continue
        wanted = {cells[i] for i in rows if cells[i] is not None}
        held: dict[Any, list[int]] = {}
        for k, v in enumerate(cells):
            if v in wanted:
                held.setdefault(v, []).append(k)
        for ks in held.values():
            if 1 < len(ks) <= _ID_MATES:
                out.update(ks)
    return sorted(out - set(rows))


def _extremes_no_column_names(cols: list[_Column], query: str, qlow: str, looked_up: bool, want_max: bool,
                              want_min: bool) -> list[tuple[int, str]]:
    """(row, reason) for an extreme asked of no column by name: every numeric column's
    (``_unnamed_extremes``) and among the rows the question names (``_named_kind_extremes``)
    when it looked up no row; and, looked up or not, "the most parameters": the cells
    listing the most parts, as no column holds the count (a signature's arguments)."""
    out: list[tuple[int, str]] = []
    if not looked_up:
        out += [(i, "extremes (no column named)") for i in _unnamed_extremes(cols, qlow, want_max, want_min)]
        out += [(i, "extremes of the rows the question names")
                for i in _named_kind_extremes(cols, query, want_max, want_min)]
    counted = counted_extreme(qlow) if qlow else None
    if counted:
        out += [(i, "extremes of listed parts") for i in _item_count_extremes(cols, counted == "max")]
    return out


def _unnamed_extremes(cols: list[_Column], qlow: str, want_max: bool, want_min: bool) -> list[int]:
    """"Which file is the biggest?" over a table whose columns the question does not name
    (no header, as in ls -l, or a header in other words): the asked direction's extreme of
    every numeric column, as few rows as there are such columns. Columns whose names share
    a word with the question come first ("the most data (in bytes)" over "RX bytes" and
    "TX bytes" among a dozen counters)."""
    qwords = set(_LETTERS.findall(qlow))
    unnamed = sorted((c for c in cols if c.numeric),
                     key=lambda c: -len(qwords.intersection(_LETTERS.findall(c.name.lower()))))
    out: list[int] = []
    for c in unnamed[:_UNNAMED_EXTREME_COLUMNS]:
        # With the runner-up: which column is asked is a guess, and so is whether its
        # extreme counts ("tested the least" over a column whose 0 % rows were never
        # imported).
        if want_max or c.times:
            out += _tied(c, c.hi) + _runner_up(c, True)
        if want_min or c.times:
            out += _tied(c, c.lo) + _runner_up(c, False)
    return out


_NUMBER_IN_TEXT = re.compile(r"(?<![\w.])[-+]?\d+(?:\.\d+)?(?![\w.])")


def _named_kind_extremes(cols: list[_Column], query: str, want_max: bool, want_min: bool) -> list[int]:
    """"The longest timeout" over rows of many kinds (``ctags -x``: functions, classes, and
    ``*_TIMEOUT_MS = 2500`` constants): among the rows whose name in the first text column
    has a part the question says (at least two rows, at most half), the ones whose text
    cells hold the highest (lowest) number. The number is the last one standing alone in
    the row's other text cells; numeric columns (a line number) are not it."""
    text_cols = [c for c in cols if not c.numeric]
    if len(text_cols) < 2 or not query:
        return []
    words = question_words(query)
    names, rest = text_cols[0], text_cols[1:]
    rows = [i for i, x in enumerate(names.cells)
            if isinstance(x, str) and any(len(p) >= 4 and names_content_word(p, words) for p in name_parts(x))]
    if not 2 <= len(rows) <= len(names.cells) // 2:
        return []
    valued: list[tuple[float, int]] = []
    for i in rows:
        found = [m.group(0) for c in rest if isinstance(c.cells[i], str) for m in _NUMBER_IN_TEXT.finditer(c.cells[i])]
        if found:
            valued.append((float(found[-1]), i))
    if len(valued) < 2:
        return []
    valued.sort()
    return ([i for _, i in valued[-2:]] if want_max else []) + ([i for _, i in valued[:2]] if want_min else [])


def _rows_set_apart(cols: list[_Column], n: int) -> list[tuple[int, str]]:
    """(row, reason) for rows their keys set apart, whatever the budget: a key repeated
    where keys are distinct (numbers too: two paths of one inode are hard links), the digest
    of empty content, the ends of runs of offsets."""
    return ([(i, "a key repeated") for i in repeated_key_rows([c.cells for c in cols], n)]
            + [(i, "digest of empty content") for i in empty_content_rows([c.cells for c in cols if not c.numeric])]
            + [(i, "a value unlike its column's") for i in odd_shape_rows([c.cells for c in cols if not c.numeric], n,
                                                                         RARE_MAX_DISTINCT)]
            + [(i, "ends of runs of offsets") for i in _run_end_rows(cols)])


_RUNS_MAX = 120  # runs of consecutive offsets whose ends are kept at most


def _run_end_rows(cols: list[_Column]) -> list[int]:
    """The first and last row of each run of consecutive integers in the first column of a
    headless table, when it is whole numbers rising row by row (``cmp -l -b``'s byte
    offsets: a rewritten table is one run, a lone flipped byte a run of one), at most
    ``_RUNS_MAX`` runs. A named first column (``top``'s PID) is ids, whose runs say nothing."""
    if not cols or not cols[0].numeric or not cols[0].full or cols[0].name != "column 1":
        return []
    values = cols[0].values
    if any(v != int(v) for v in values) or any(b <= a for a, b in pairwise(values)):
        return []
    out: list[int] = [0]
    for k in range(1, len(values)):
        if values[k] != values[k - 1] + 1:
            out += [k - 1, k]
            if len(out) > 2 * _RUNS_MAX:
                return []
    out.append(len(values) - 1)
    return out


_ODD_ROWS = 16  # rows unlike the same row of the other groups kept at most, rarest first


_GROUP_ROWS = 120  # rows of a named group kept at most (more: the group is no answer's place)
_NAMED_GROUPS = 2
_IDENT = re.compile(r"[a-z_][a-z0-9_.-]{2,}")


def _named_group_rows(table: Table, qlow: str) -> list[int]:
    """The rows of the groups whose title holds a word of the question (an identifier or a
    word of three letters or more, whole) that at most ``_NAMED_GROUPS`` titles hold."""
    titles = table.titles or []
    texts = [" ".join(map(str, table.rows[t])).lower() for t in titles]
    words = set(_IDENT.findall(qlow))  # a word most titles hold ("from", "select") names none
    groups: set[int] = set()
    for w in words:
        pattern = re.compile(rf"(?<![\w.-]){re.escape(w)}(?![\w-])")
        hits = [k for k, t in enumerate(texts) if w in t and pattern.search(t)]
        if 0 < len(hits) <= _NAMED_GROUPS:
            groups.update(hits)
    if len(groups) > _NAMED_GROUPS:
        return []
    out: list[int] = []
    for k in sorted(groups):
        end = titles[k + 1] if k + 1 < len(titles) else len(table.rows)
        if end - titles[k] <= _GROUP_ROWS:
            out += range(titles[k], end)
    return out


def _odd_rows_across_groups(rows: list[list[Any]], titles: set[int]) -> list[int]:
    """Rows whose text after their first word (their key: ``NOFILE``) is odd among the
    same key's rows of the other groups (:func:`..odd_members.odd_members`). Read
    off the words, not the cells: a group printed with wider columns cuts its rows
    elsewhere, with the same words."""
    texts: dict[str, dict[str, list[int]]] = {}
    for i, cells in enumerate(rows):
        if i in titles:
            continue
        words = " ".join(map(str, cells)).split(None, 1)
        if words:
            texts.setdefault(words[0], {}).setdefault(" ".join(words[1].split()) if len(words) > 1 else "", []).append(i)
    return odd_members(texts.values(), _ODD_ROWS)


def _take_optional(optional: list[tuple[int, str]], extreme_of: dict[int, list[_Column]], chosen: dict[int, str],
                   costs: list[int], budget: float, take: Callable[[int, str], None]) -> int:
    """Takes the optional rows in order while they fit ``budget``; the cost of what is kept.
    ``extreme_of``: the columns whose maximum or minimum each extreme row is."""
    used = sum(costs[i] for i in chosen)
    for i, reason in optional:
        if i in chosen or used + costs[i] > budget:
            continue
        take(i, reason)
        used += costs[i]
        if reason in ("column max", "column min"):
            # The rows tying a kept extreme are the same answer ("never run": both at 0 %),
            # kept with it whatever they cost (at most _TIES_MAX).
            for k in sorted({k for c in extreme_of[i] for k in _tied(c, i)}):
                if k not in chosen:
                    take(k, reason)
                    used += costs[k]
    return used


def _says(phrase: str, qlow: str) -> bool:
    """The question holds ``phrase`` as whole words."""
    if phrase not in qlow:
        return False  # most column names: no regex built and searched for them
    return re.search(r"(?<!\w)" + re.escape(phrase) + r"(?!\w)", qlow) is not None


def _words_named(name: str, qlow: str) -> bool:
    words = re.findall(r"[^\W_]{2,}", name.lower())
    return bool(words) and all(_says(w, qlow) for w in words)


def _length_extremes(cols: list[_Column], longest: bool, shortest: bool, k: int = 1) -> list[int]:
    """Rows of the ``k`` longest (and/or shortest non-empty) cells of each text column in
    ``cols``."""
    out = []
    for c in cols:
        lengths = [len(v) if isinstance(v, str) else 0 for v in c.cells]
        if longest:
            out += sorted(range(len(lengths)), key=lambda i: -lengths[i])[:k]
        filled = [i for i, n in enumerate(lengths) if n]
        if shortest and filled:
            out += sorted(filled, key=lambda i: lengths[i])[:k]
    return out


_LIST_SHARE = 0.25  # of a column's cells that must list parts (hold a comma) to count them


def _item_count_extremes(cols: list[_Column], most: bool, k: int = 2) -> list[int]:
    """Rows of the ``k`` cells listing the most (or fewest) parts in each text column where
    a quarter of the cells or more list several, at most ``_MAX_LENGTH_COLUMNS`` columns."""
    out: list[int] = []
    for c in cols[:_MAX_LENGTH_COLUMNS]:
        if c.numeric:
            continue
        counts = [list_items(v) if isinstance(v, str) else 0 for v in c.cells]
        if sum(1 for n in counts if n > 1) < _LIST_SHARE * len(counts):
            continue
        filled = [i for i, n in enumerate(counts) if n]
        out += sorted(filled, key=lambda i: -counts[i] if most else counts[i])[:k]
    return out


def _column_summary(cols: list[_Column], fmt) -> str:
    parts = []
    for c in cols[:_MAX_SUMMARY_COLUMNS]:
        if c.numeric:
            parts.append(f"{c.name} {fmt(c.cells[c.lo])}..{fmt(c.cells[c.hi])}")
        else:
            distinct = len(set(c.cells) - {None, ""})
            parts.append(f"{c.name} ({distinct} distinct)")
    if len(cols) > _MAX_SUMMARY_COLUMNS:
        parts.append(f"and {len(cols) - _MAX_SUMMARY_COLUMNS} more columns")
    return "; ".join(parts)
