"""Is a JSON array of records a log? Decided by the shape of its columns, never their names.

A log, whatever its logger calls the fields, is an array of flat records with

- a **message**: a text column (most values hold spaces, several words) whose values vary
  freely while their templates (numbers, ids and hex masked) repeat;
- a **time**: a column of time-like strings ("2026-11-28 23:42:34", "Nov 28 23:42:34",
  "10:02:11.123") that changes, or a number that only goes one way (an epoch, a sequence);
- **low-cardinality** columns: a handful of short values, one of them usually dominant (a
  level, a component, a host, a flag).

An issue list has titles whose templates do not repeat; a metric series has no text; a
linter's findings have no time. Renaming every field or shuffling the key order changes
nothing here: columns are ordered by their values' statistics, and where two columns'
statistics tie, by their values, so the same columns play the same parts.
"""

from __future__ import annotations

import operator
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from .templates import keys_of

MIN_RECORDS = 12  # as a text log: shorter arrays are cheaper to send whole
_RECORD_SHARE = 0.9  # items that must be objects, and records that must hold a common column
_SAMPLE = 200  # records a column is profiled on (the first and last ones of longer arrays)
# A message column: most values hold a space, and there are several distinct ones.
_MESSAGE_SPACE_SHARE = 0.5
_MESSAGE_MIN_DISTINCT = 3
# ... whose templates repeat: at most this share of the sampled values are distinct keys
# (issue titles, package descriptions, commit subjects are nearly all distinct).
_MESSAGE_MAX_KEY_SHARE = 0.85
# A low-cardinality column: at most this many distinct values, each heard ~4 times on average.
_LOW_CARD_MAX = 16
_LOW_CARD_VALUE_CHARS = 40  # longer strings are text, not a category
# A numeric column is level-like (20 for INFO, 40 for ERROR) only when one value holds at
# least this share of the records.
_NUMERIC_LEVEL_SKEW = 0.5
_MONOTONE_SHARE = 0.95  # steps going one way for a numeric column to be a clock or a sequence
_TIME_SHARE = 0.9  # values that must look like a time
# Time-like: a clock (10:02:11) or a date (2026-11-28, 2026/11/28) inside a short value.
_TIME_LIKE = re.compile(r"\d{1,2}:\d{2}:\d{2}|\d{4}[-/.]\d{1,2}[-/.]\d{1,2}")
_DIGITS = re.compile(r"^-?\d+(?:\.\d+)?$")


@dataclass(frozen=True)
class RecordLayout:
    """Which columns of the records play which part (found by shape)."""

    message: str
    # Low-cardinality columns that vary, most skewed first: what a text logger prints
    # before its message (level, component, host), and where rare values are looked for.
    levels: tuple[str, ...]
    time: str | None
    # A sparse column holding multi-line text (a traceback): its last line names the exception.
    exception: str | None
    reason: str  # why the array reads as a log, for the decision record
    # Fields at most half the records fill, with how many do (fewest first).
    sparse: tuple[tuple[str, int], ...] = ()

    @property
    def level(self) -> str | None:
        return self.levels[0] if self.levels else None


@dataclass(frozen=True)
class _Column:
    name: str
    values: list[Any]  # one per sampled record (None where absent)
    signature: tuple[str, ...]  # the values as text: ties between columns break on content

    @property
    def strings(self) -> list[str]:
        return [v for v in self.values if type(v) is str]


def _sample(items: list[Any]) -> list[Any]:
    return items[:_SAMPLE] if len(items) <= 2 * _SAMPLE else items[:_SAMPLE // 2 * 3] + items[-_SAMPLE // 2:]


def _hashable(v: Any) -> Any:
    return v if isinstance(v, (str, int, float, bool, type(None))) else repr(v)


def _columns(dicts: list[dict]) -> list[_Column]:
    """The columns nearly every record holds, in an order that depends on values only."""
    counts: Counter[Any] = Counter()
    for d in dicts:
        counts.update(d.keys())
    out = []
    for name, c in counts.items():
        if c < _RECORD_SHARE * len(dicts):
            continue
        values = [d.get(name) for d in dicts]
        out.append(_Column(name, values, tuple(map(repr, values))))
    out.sort(key=lambda col: col.signature)
    return out


def _free_text(col: _Column, m: int) -> tuple[int, int] | None:
    """(distinct values, mean length) when ``col`` is a message column, else None."""
    strings = col.strings
    if len(strings) < _RECORD_SHARE * m:
        return None
    if sum(" " in s.strip() for s in strings) < _MESSAGE_SPACE_SHARE * len(strings):
        return None
    distinct = len(set(strings))
    if distinct < _MESSAGE_MIN_DISTINCT:
        return None
    first_lines = [s.strip().partition("\n")[0] for s in strings]
    if len(set(keys_of(first_lines))) > _MESSAGE_MAX_KEY_SHARE * len(strings):
        return None  # templates that do not repeat: titles, descriptions, not a log
    return distinct, sum(map(len, first_lines)) // len(first_lines)


def _number(v: Any) -> float | None:
    if type(v) in (int, float):
        return float(v)
    if type(v) is str and _DIGITS.match(v):
        return float(v)
    return None


def _time_rank(col: _Column, m: int) -> int:
    """2: time-like strings that change; 1: numbers that only go one way (an epoch, a
    sequence); 0: neither."""
    values = col.values
    if len(set(map(_hashable, values))) < 2:
        return 0
    strings = col.strings
    if len(strings) >= _TIME_SHARE * m and sum(
            1 for s in strings if len(s) <= 40 and s.count(" ") <= 3 and _TIME_LIKE.search(s)) >= _TIME_SHARE * m:
        return 2
    if sum(type(v) in (int, float) or type(v) is str and v[:1].isdigit() for v in values) < _TIME_SHARE * m:
        return 0
    numbers = [x for x in map(_number, values) if x is not None]
    if len(numbers) < _TIME_SHARE * m or len(set(numbers)) < max(3, len(numbers) // 2):
        return 0
    up = sum(map(operator.ge, numbers[1:], numbers))
    steps = len(numbers) - 1
    return int(steps > 0 and (up >= _MONOTONE_SHARE * steps or steps - up >= _MONOTONE_SHARE * steps))


def _low_card(col: _Column, m: int) -> tuple[int, float] | None:
    """(distinct values, share of the most common one) for a category column, else None."""
    vals = []
    for v in col.values:
        if v is None or type(v) in (bool, int, float) or \
                (type(v) is str and len(v) <= _LOW_CARD_VALUE_CHARS and " " not in v.strip()):
            vals.append(v)
        else:
            return None
    counts = Counter(vals)
    if len(counts) > min(_LOW_CARD_MAX, max(2, m // 4)):
        return None
    return len(counts), counts.most_common(1)[0][1] / m


_EMPTY = (None, "", [], {})


def _sparse_fields(dicts: list[dict], sample: list[dict]) -> dict[str, int]:
    """Fields at most half the records fill (a value other than null, "", [] or {}), with
    how many do: an error detail the others lack, a traceback. A field most of the sample
    fills is not looked at again; the others are counted over every record, column by
    column, the empty values counted in C."""
    n, m = len(dicts), len(sample)
    common = {k for k, c in Counter(k for d in sample for k, v in d.items() if v not in _EMPTY).items()
              if c > 0.6 * m}
    out: dict[str, int] = {}
    for k in set().union(*dicts) - common:
        col = [d.get(k) for d in dicts]
        filled = n - sum(col.count(e) for e in _EMPTY)
        if filled <= 0.5 * n:
            out[k] = filled
    return out


def _exception_field(dicts: list[dict], sparse: dict[str, int], skip: str) -> str | None:
    """A sparse column whose text runs over several lines (a traceback), the one with the
    most such values; ties broken by those values."""
    best: tuple[int, list[str]] | None = None
    name = None
    for k in sparse:
        if k == skip:
            continue
        texts = [v for v in (d.get(k) for d in dicts) if type(v) is str and "\n" in v.strip()]
        if texts and (best is None or (len(texts), texts) > best):
            best, name = (len(texts), texts), k
    return name


def _level_like(dicts: list[dict], name: str) -> Counter[Any] | None:
    """The counts of a column's values over all records when it has a handful of them
    (a level, a component, a host): None for an id or a counter that only looked few in
    the sample."""
    col = [d.get(name) for d in dicts]
    try:
        if len(set(col)) > _LOW_CARD_MAX:
            return None
    except TypeError:  # an object or array as a value
        col = list(map(_hashable, col))
    counts = Counter(col)
    return counts if 2 <= len(counts) <= _LOW_CARD_MAX else None


def _wordy(col: _Column) -> bool:
    """Values that are words ("INFO", "uvicorn.error"), not numbers: what a text logger
    prints before its message."""
    return any(type(v) is str and not _DIGITS.match(v) for v in col.values)


def layout_of(items: Any) -> RecordLayout | None:
    """How ``items`` is a log, or None when it is not one (see the module's docstring)."""
    if not isinstance(items, list) or len(items) < MIN_RECORDS:
        return None
    head = _sample(items)
    dicts = [it for it in head if type(it) is dict or isinstance(it, dict)]
    if len(dicts) < _RECORD_SHARE * len(head):
        return None
    m = len(dicts)
    cols = _columns(dicts)
    ranks = {c.name: _time_rank(c, m) for c in cols}
    # The message: the free-text column (not a clock: "2026-11-23 17:28:41.940 UTC" has
    # spaces too) with the most distinct values, then the longest.
    texts = [(stats, col) for col in cols if ranks[col.name] != 2 and (stats := _free_text(col, m)) is not None]
    if not texts:
        return None
    message = max(texts, key=lambda sc: (sc[0], sc[1].signature))[1]
    ranked = [(ranks[c.name], c) for c in cols if c is not message and ranks[c.name]]
    if not ranked:
        return None
    # The time: a time-like column before a sequence, then the one with the most distinct
    # values (a timestamp before a date column).
    time = max(ranked, key=lambda rc: (rc[0], len({_hashable(v) for v in rc[1].values}), rc[1].signature))[1]
    clocks = {c.name for rank, c in ranked if rank == 2}
    lows = [(stats, c) for c in cols if c is not message and c is not time and c.name not in clocks
            and (stats := _low_card(c, m)) is not None]
    if not lows:
        return None
    # Level-like: a handful of values over all records (a column that is constant in the
    # sample may still hold the one ERROR further on). Words before numbers, then the most
    # skewed first: a level (mostly INFO), a component, a host, then numeric flags.
    everyone = [it for it in items if type(it) is dict] if m < len(items) else dicts
    level_like = []
    for stats, c in lows:
        counts = _level_like(everyone, c.name)
        if counts is None:
            continue
        top = counts.most_common(1)[0][1]
        wordy = _wordy(c)
        if not wordy and top < _NUMERIC_LEVEL_SKEW * len(everyone):
            continue  # numbers spread evenly (a line number within a session): a counter, not a level
        level_like.append((not wordy, -top, len(counts), c.signature, c.name))
    levels = tuple(entry[-1] for entry in sorted(level_like))
    if not levels and ranks[time.name] != 2:
        # A numbered list of texts with constant columns (issues, all "open"): a table
        # with an id, not a log; a log has a clock or categories that vary.
        return None
    sparse = _sparse_fields(everyone, dicts)
    exception = _exception_field(everyone, sparse, message.name)
    found = f"time {time.name!r}, {len(lows)} low-cardinality field{'s' if len(lows) != 1 else ''}"
    if levels:
        found += f" (level-like {levels[0]!r})"
    return RecordLayout(message.name, levels, time.name, exception,
                        f"log records by shape: free-text field {message.name!r}, {found}",
                        tuple(sorted(sparse.items(), key=lambda kv: (kv[1], str(kv[0])))))


def rare_value_records(items: Sequence[Any], lay: RecordLayout, rare_max: int) -> list[int]:
    """Records whose value in a level-like column occurs at most ``rare_max`` times (the
    only ERROR among INFO lines, the one record of a host), and records holding a field
    at most ``rare_max`` records fill (an error detail the others lack)."""
    if rare_max <= 0:
        return []
    out: set[int] = set()
    for name in lay.levels:
        values = [_hashable(it.get(name)) if isinstance(it, dict) else None for it in items]
        counts = Counter(values)
        out.update(i for i, v in enumerate(values) if counts[v] <= rare_max)
    for name, filled in lay.sparse:
        if 0 < filled <= rare_max:
            out.update(i for i, it in enumerate(items) if isinstance(it, dict) and it.get(name) not in _EMPTY)
    return sorted(out)
