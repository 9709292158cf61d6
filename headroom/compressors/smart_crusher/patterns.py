"""What kind of array this is: time series, logs, search results or generic.

The pattern decides how leftover slots are filled (evenly spaced samples for a series,
the best-scored hits for search results) and names the strategy in decisions. The log
roles (time, level, message) are found by value shape only, whatever the fields are
called (issue 33): ISO times or a number that only goes one way, a handful of level
words, free text. A search hit's score is still found by its name.
"""

from __future__ import annotations

import enum
import itertools
import operator
import re
from dataclasses import dataclass
from typing import Any

from .stats import FieldStats


class Pattern(str, enum.Enum):
    TIME_SERIES = "time_series"
    LOGS = "logs"
    SEARCH_RESULTS = "search_results"
    GENERIC = "generic"


_ISO_TIME = re.compile(r"^\d{4}-\d{2}-\d{2}(?:[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)?$")
_SCORE_NAME = re.compile(r"^_?(?:score|relevance|relevance_score|similarity|rank|ranking|confidence|distance)$", re.IGNORECASE)
_LEVEL_VALUES = {"trace", "debug", "info", "notice", "warn", "warning", "error", "err", "fatal", "critical", "crit", "panic"}

# Epoch seconds (2001..2286) or milliseconds in the same span.
_EPOCH_S = (1e9, 1e10)
_EPOCH_MS = (1e12, 1e13)


@dataclass(frozen=True)
class FieldRoles:
    timestamp: str | None = None
    level: str | None = None
    message: str | None = None
    score: str | None = None
    metrics: tuple[str, ...] = ()
    # The timestamp column is sorted (either way): the items form a series.
    time_ordered: bool = False


def _looks_like_time(name: str, fs: FieldStats, sample: list[Any]) -> bool:
    """ISO-8601 strings; or a monotonic number in the epoch s/ms range, or one whose
    values are mostly distinct (seconds since start, a sequence)."""
    if fs.dominant_type == "string":
        strings = [v for v in sample if isinstance(v, str)]
        return bool(strings) and sum(1 for v in strings if _ISO_TIME.match(v)) >= 0.8 * len(strings)
    if fs.is_numeric and fs.monotonic and fs.minimum is not None and fs.maximum is not None:
        lo, hi = fs.minimum, fs.maximum
        epoch = (_EPOCH_S[0] <= lo and hi < _EPOCH_S[1]) or (_EPOCH_MS[0] <= lo and hi < _EPOCH_MS[1])
        if epoch:
            return True
        # Mostly distinct and irregular steps: seconds since start, a clock. A run of
        # integers in equal steps (1, 2, 3 …) is a row id, not a time.
        steps = {b - a for a, b in itertools.pairwise(sample)
                 if isinstance(a, (int, float)) and isinstance(b, (int, float))}
        return len(set(sample)) >= max(3, 0.9 * len(sample)) and len(steps) > 1
    return False


def _mostly_sorted(values: list[Any]) -> bool:
    """True when >= 95 % of consecutive steps go the same way (ISO strings sort as text)."""
    try:
        # ``b >= a`` for each consecutive pair (a, b), looped in C.
        up = sum(map(operator.ge, values[1:], values))
    except TypeError:  # mixed types cannot be ordered
        return False
    steps = len(values) - 1
    return steps > 0 and (up >= 0.95 * steps or steps - up >= 0.95 * steps)


def _is_level(name: str, fs: FieldStats, sample: list[Any]) -> bool:
    """A log level, by its values (INFO/WARN/ERROR…), whatever the field is called."""
    if fs.dominant_type != "string":
        return False
    return fs.distinct <= 8 and bool(sample) and all(isinstance(v, str) and v.lower() in _LEVEL_VALUES for v in sample)


def _is_message(fs: FieldStats, sample: list[Any]) -> bool:
    """Free text: most sampled values hold a space and at least 3 differ."""
    if fs.dominant_type != "string":
        return False
    strings = [v for v in sample if isinstance(v, str)]
    return len(strings) >= 3 and sum(" " in v.strip() for v in strings) >= 0.5 * len(strings) \
        and len(set(strings)) >= 3


def find_roles(items: list[Any], stats: dict[str, FieldStats]) -> FieldRoles:
    dicts = [it for it in items if isinstance(it, dict)]
    step = max(1, len(dicts) // 50)
    sample = dicts[::step]
    timestamp = level = message = score = None
    for name, fs in stats.items():
        values = [d[name] for d in sample if name in d]
        # A ranked hit list's score is sorted too: named as a score, it is no clock.
        if score is None and _SCORE_NAME.match(name) and fs.is_numeric:
            score = name
        elif timestamp is None and _looks_like_time(name, fs, values):
            timestamp = name
        elif level is None and _is_level(name, fs, values):
            level = name
        elif message is None and _is_message(fs, values):
            message = name
    metrics = tuple(
        name for name, fs in stats.items()
        if fs.is_numeric and not fs.constant and not fs.monotonic and name not in (timestamp, score)
    )
    time_ordered = timestamp is not None and _mostly_sorted([d[timestamp] for d in dicts if timestamp in d])
    return FieldRoles(timestamp, level, message, score, metrics, time_ordered)


def detect_pattern(roles: FieldRoles) -> Pattern:
    if roles.level is not None or (roles.message is not None and roles.timestamp is not None and not roles.metrics):
        return Pattern.LOGS
    if roles.score is not None:
        return Pattern.SEARCH_RESULTS
    if roles.time_ordered and roles.metrics:
        return Pattern.TIME_SERIES
    return Pattern.GENERIC
