"""Per-field statistics over an array of JSON objects.

One pass over the items collects, for every key: how often it is present, the mix of
JSON types, how many distinct values it has (uniqueness), whether it is constant, and for
numeric fields mean / std / min / max, outliers and change points (sudden level shifts).
Numeric columns are analysed with numpy (a core dependency): vectorised statistics and
change-point scores cost a few microseconds a column where the per-value Python loops
cost most of the 10 ms budget of a 1 000-item array.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from operator import itemgetter
from typing import Any

import numpy as np

from ..tables.quantities import quantity


def hashable(value: Any) -> Any:
    """A hashable stand-in for a JSON value: equal only when the JSON text is equal
    (nested containers become their repr, key order included)."""
    if isinstance(value, (dict, list)):
        # repr() of a JSON-derived value is as exact as its JSON text (key order, 1 vs
        # 1.0 vs True, -0.0 all stay apart) and costs half as much to build.
        return ("\x00json", repr(value))
    if isinstance(value, float):
        # 1.0 == 1 in Python but not in the JSON text; NaN is never equal to itself.
        return ("\x00float", repr(value))
    if isinstance(value, bool):
        # True == 1 in Python; keep booleans apart from numbers.
        return ("\x00bool", value)
    return value


@dataclass
class FieldStats:
    name: str
    present: int = 0
    types: Counter = field(default_factory=Counter)
    # Exact for scalars; a lower bound for nested values in long columns (see _distinct_containers).
    distinct: int = 0
    # Set when every item has the key with the same value.
    constant: bool = False
    constant_value: Any = None
    # Numeric summary over the items whose value is a finite number (not bool).
    numeric_count: int = 0
    mean: float = 0.0
    std: float = 0.0
    minimum: float | None = None
    maximum: float | None = None
    monotonic: bool = False
    # Item indices (into the whole array) of outliers and of the first item of each new level.
    outliers: list[int] = field(default_factory=list)
    change_points: list[int] = field(default_factory=list)
    # Item indices holding a rare value of a categorical field (the one archived repo,
    # the one refunded order): see ``rare_value_positions``.
    rare: list[int] = field(default_factory=list)
    # (item positions, float values) of the finite numbers, numeric strings included:
    # what the numeric summary was computed from, kept for the keep plan's extremes.
    numbers: tuple[np.ndarray, np.ndarray] | None = field(default=None, repr=False, compare=False)
    # The distinct string values of a low-cardinality column (at most CATEGORY_VALUES), so
    # a question's words are matched against a few values, not against every item.
    categories: frozenset[str] | None = field(default=None, repr=False, compare=False)

    @property
    def uniqueness(self) -> float:
        return self.distinct / self.present if self.present else 0.0

    @property
    def is_numeric(self) -> bool:
        return self.numeric_count > 0 and self.numeric_count >= 0.8 * self.present

    @property
    def dominant_type(self) -> str:
        return self.types.most_common(1)[0][0] if self.types else "null"


def _floats(values: Sequence[float] | np.ndarray) -> np.ndarray:
    return values if isinstance(values, np.ndarray) else np.asarray(values, dtype=np.float64)


def mean_std(values: Sequence[float] | np.ndarray) -> tuple[float, float]:
    """Mean and population std; (0, 0) when they overflow (values near 1e308 have no
    meaningful spread, so nothing is an outlier)."""
    a = _floats(values)
    if not a.size:
        return 0.0, 0.0
    with np.errstate(all="ignore"):
        m = float(a.mean())
        s = float(np.sqrt(np.mean(np.square(a - m))))
    if not (math.isfinite(m) and math.isfinite(s)):
        return 0.0, 0.0
    return m, s


def outlier_positions(values: Sequence[float] | np.ndarray, threshold: float, cap: int) -> list[int]:
    """Positions (into ``values``) farther than ``threshold`` std from the mean.

    When more than ``cap`` values qualify the field is wide-tailed rather than anomalous:
    the bar doubles, and at most the ``cap`` most extreme are returned, so a planted
    spike always survives.
    """
    a = _floats(values)
    m, s = mean_std(a)
    if s <= 0:
        return []
    with np.errstate(all="ignore"):
        dev = np.abs(a - m)
    hits = np.flatnonzero(dev > threshold * s)
    if len(hits) > cap:
        # More "outliers" than the cap is a wide distribution's tail, not a few
        # anomalies (2 std flags ~5 % of normal data): only far-out values count then.
        hits = hits[dev[hits] > 2 * threshold * s]
    if len(hits) > cap:
        # The most extreme first, ties by position.
        hits = np.sort(hits[np.lexsort((hits, -dev[hits]))[:cap]])
    return hits.tolist()


def is_monotonic(values: Sequence[float] | np.ndarray) -> bool:
    """Counters, ids and epoch timestamps: nearly every step goes the same way."""
    a = _floats(values)
    if len(a) < 3:
        return False
    steps = np.diff(a)
    up, down = int(np.count_nonzero(steps > 0)), int(np.count_nonzero(steps < 0))
    return up >= 0.95 * len(steps) or down >= 0.95 * len(steps)


def change_point_positions(values: Sequence[float] | np.ndarray, threshold: float) -> list[int]:
    """Positions where the series jumps to a new level and stays there.

    At each position the mean of the next ``w`` values is compared with the mean of the
    previous ``w``; a shift larger than ``threshold`` times the pooled within-window std
    is a candidate, and the strongest candidate in each neighbourhood wins. A lone spike
    inflates the window std and so does not register here (it is an outlier instead).
    Prefix sums score every position in O(n), vectorised.
    """
    a = _floats(values)
    n = len(a)
    w = max(5, min(20, n // 50))
    if n < 2 * w:
        return []
    with np.errstate(all="ignore"):
        ps = np.concatenate(([0.0], np.cumsum(a)))
        ps2 = np.concatenate(([0.0], np.cumsum(np.square(a))))
        if not math.isfinite(ps2[-1]):  # squares overflowed: nothing sensible to compare
            return []
        scale = float(np.max(np.abs(a))) or 1.0
        eps = 1e-9 * scale
        i = np.arange(w, n - w + 1)
        m1 = (ps[i] - ps[i - w]) / w
        m2 = (ps[i + w] - ps[i]) / w
        v1 = np.maximum(0.0, (ps2[i] - ps2[i - w]) / w - m1 * m1)
        v2 = np.maximum(0.0, (ps2[i + w] - ps2[i]) / w - m2 * m2)
        shift = np.abs(m2 - m1)
        score = np.where(shift <= eps, 0.0, shift / (np.sqrt((v1 + v2) / 2) + eps))
    hit = np.flatnonzero(score > threshold)
    if not len(hit):
        return []
    # Strongest first (ties: earlier first); a pick blocks its w-neighbourhood.
    order = hit[np.lexsort((hit, -score[hit]))]
    blocked = np.zeros(n + w + 1, dtype=bool)
    picked: list[int] = []
    for k in order.tolist():
        pos = k + w
        if not blocked[pos]:
            picked.append(pos)
            blocked[max(0, pos - w + 1): pos + w] = True
    return sorted(picked)


_TYPE_NAMES = {type(None): "null", bool: "bool", int: "number", float: "number", str: "string",
               list: "array", dict: "object"}


_CONTAINERS = {dict, list}
# Low-cardinality string columns keep their distinct values (FieldStats.categories).
CATEGORY_VALUES = 64
# Container columns longer than this count distinct values on an evenly spaced sample.
_CONTAINER_SAMPLE = 256


def _distinct_count(values: list[Any], types: set[type]) -> int:
    # Plain ``set`` is exact unless numbers of different JSON types meet (1 == 1.0 == True
    # in Python, not in JSON) or values are unhashable containers; a column of containers
    # alone compares by repr (exact for JSON values, see ``hashable``).
    if not types & _CONTAINERS:
        numbers = types & {int, float}
        if len(numbers) < 2 and not (numbers and bool in types):
            return len(set(values))
    elif types <= _CONTAINERS:
        return _distinct_containers(values)
    return len({hashable(v) for v in values})


def _distinct_containers(values: list[Any]) -> int:
    """Distinct nested values: exact up to _CONTAINER_SAMPLE values; above that, counted
    on an evenly spaced sample, a lower bound. Nothing decides on more than "one value or
    several" for a nested column (constancy, for factoring), and that stays exact: a
    sample showing one value is confirmed on the whole column."""
    if len(values) <= _CONTAINER_SAMPLE:
        return len(set(map(repr, values)))
    step = len(values) / _CONTAINER_SAMPLE
    seen = len(set(map(repr, (values[int(i * step)] for i in range(_CONTAINER_SAMPLE)))))
    if seen > 1:
        return seen
    return len(set(map(repr, values)))


def _columns(items: list[Any]) -> tuple[dict[str, list[Any]], dict[str, list[int]], int]:
    """Values per key (and the item index of each value)."""
    if items and set(map(type, items)) == {dict}:
        keys = list(items[0])
        if keys and set(map(len, items)) == {len(keys)}:
            # Records with one key set (the common case): one C-level pass per key. Same
            # size and every key of the first item present means the same keys.
            try:
                columns = {k: list(map(itemgetter(k), items)) for k in keys}
            except KeyError:
                pass
            else:
                pos = list(range(len(items)))
                return columns, {k: pos for k in keys}, len(items)
    dicts = [i for i, it in enumerate(items) if type(it) is dict]
    columns: dict[str, list[Any]] = {}
    positions: dict[str, list[int]] = {}
    for idx in dicts:
        for k, v in items[idx].items():
            col = columns.get(k)
            if col is None:
                col = columns[k] = []
                positions[k] = []
            col.append(v)
            positions[k].append(idx)
    return columns, positions, len(dicts)


_NUMBER_TEXT = re.compile(r"\s*-?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?\s*")


def _looks_numeric(col: list[Any]) -> bool:
    """Numbers sent as strings (Prometheus values, CSV-ish APIs), or sizes with their unit
    (``lsblk --json``'s and ``lsipc --json``'s "540K", "96M"): judge by a sample."""
    step = max(1, len(col) // 32)
    sample = [v for v in col[::step] if isinstance(v, str)]
    return bool(sample) and (all(_NUMBER_TEXT.fullmatch(v) for v in sample)
                             or all(quantity(v) is not None for v in sample))


def _parse_numeric_strings(pos: list[int], col: list[Any]) -> tuple[list[int], list[float]]:
    keep, values = [], []
    for p, v in zip(pos, col):
        if isinstance(v, str) and not _NUMBER_TEXT.fullmatch(v):
            q = quantity(v)  # a size with its unit: its value in one scale
            if q is not None:
                keep.append(p)
                values.append(q)
            continue
        if isinstance(v, str):
            try:
                f = float(v)
            except (ValueError, OverflowError):  # regex whitespace is wider than float()'s ("0\x1f")
                continue
            keep.append(p)
            values.append(f)
    return keep, values


def _numbers(pos: list[int], col: list[Any], number_types_only: bool) -> tuple[list[int], list[float]]:
    """The int/float values of a column (bools excluded) with their item positions."""
    if number_types_only:
        return pos, col
    keep, values = [], []
    for p, v in zip(pos, col):
        if type(v) is int or type(v) is float:
            keep.append(p)
            values.append(v)
    return keep, values


def _as_floats(pos: list[int], values: list[Any]) -> tuple[np.ndarray, np.ndarray]:
    """Positions and float64 values, finite values only."""
    try:
        a = np.array(values, dtype=np.float64)
    except OverflowError:  # an int beyond the float range: convert one by one
        ok = [(p, float(v)) for p, v in zip(pos, values) if abs(v) < 1e308]
        pos, a = [p for p, _ in ok], np.array([v for _, v in ok], dtype=np.float64)
    finite = np.isfinite(a)
    positions = np.asarray(pos, dtype=np.int64)
    if not finite.all():
        return positions[finite], a[finite]
    return positions, a


def numeric_values(values: list[Any]) -> tuple[np.ndarray, np.ndarray]:
    """Positions and float values of the finite numbers (not bools) in a list."""
    pos, nums = _numbers(list(range(len(values))), values, False)
    return _as_floats(pos, nums)


# A categorical field: strings, booleans and nulls taking only a few distinct values.
_CATEGORY_TYPES = {str, bool, type(None)}
_MAX_CATEGORIES = 12
# A value is rare when at most 1 in this many items of the field hold it.
_RARE_SHARE = 20


def rare_value_positions(pos: list[int], col: list[Any], cap: int) -> list[int]:
    """Positions of the items holding a rare value of a categorical column.

    Rare: held by at most 1/_RARE_SHARE of the column. Kept only when all rare items
    together fit in ``cap``: a handful of odd values is an anomaly, a long tail is not.
    """
    if len(col) < _RARE_SHARE:
        return []
    counts = Counter(col)
    rare = {v for v, c in counts.items() if c * _RARE_SHARE <= len(col)}
    if not rare or sum(counts[v] for v in rare) > cap:
        return []
    return [p for p, v in zip(pos, col) if v in rare]


def field_stats(items: list[Any], threshold: float, outlier_cap: int) -> dict[str, FieldStats]:
    """Statistics for every key of the dict items (non-dict items are ignored).

    Values are gathered column by column first, so the per-column work runs in C
    (``set``, ``Counter(map(type, ...))``, numpy) instead of per value.
    """
    columns, positions, n_dicts = _columns(items)
    stats: dict[str, FieldStats] = {}
    for k, col in columns.items():
        fs = stats[k] = FieldStats(k, present=len(col))
        kinds = set(map(type, col))  # one C pass; counting only when types mix
        type_counts = Counter({kinds.pop(): len(col)}) if len(kinds) == 1 else Counter(map(type, col))
        for t, c in type_counts.items():
            fs.types[_TYPE_NAMES.get(t, t.__name__)] += c
        fs.distinct = _distinct_count(col, set(type_counts))
        if fs.distinct <= CATEGORY_VALUES and str in type_counts:
            # Mixed columns may hold containers (unhashable): strings are picked first there.
            fs.categories = frozenset(col) if len(type_counts) == 1 else frozenset(v for v in col if type(v) is str)
        if fs.present == n_dicts and fs.distinct == 1 and n_dicts > 1:
            fs.constant = True
            fs.constant_value = col[0]
        if type_counts.keys() <= _CATEGORY_TYPES and 2 <= fs.distinct <= _MAX_CATEGORIES:
            fs.rare = rare_value_positions(positions[k], col, outlier_cap)
        if int in type_counts or float in type_counts:
            # The exact type test leaves bools out (True is an int in Python, not in JSON).
            pos, values = _numbers(positions[k], col, type_counts.keys() <= {int, float})
        elif type_counts.get(str, 0) >= 0.8 * len(col) and _looks_numeric(col):
            pos, values = _parse_numeric_strings(positions[k], col)
        else:
            continue
        where, a = _as_floats(pos, values)  # NaN and infinities do not count
        fs.numeric_count = len(a)
        fs.numbers = (where, a)
        if not len(a):
            continue
        fs.mean, fs.std = mean_std(a)
        fs.minimum, fs.maximum = float(a.min()), float(a.max())
        fs.monotonic = is_monotonic(a)
        if fs.is_numeric and fs.distinct > 2 and not fs.monotonic:
            fs.outliers = where[outlier_positions(a, threshold, outlier_cap)].tolist()
            fs.change_points = where[change_point_positions(a, threshold)].tolist()
    return stats
