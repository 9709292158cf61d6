"""Per-field statistics over an array of JSON objects.

One pass over the items collects, for every key: how often it is present, the mix of
JSON types, how many distinct values it has (uniqueness), whether it is constant, and for
numeric fields mean / std / min / max, outliers and change points (sudden level shifts).
Everything is plain Python: numpy would cost more to import than it saves on arrays of
a few thousand items.
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from dataclasses import dataclass, field
from itertools import pairwise
from typing import Any


def hashable(value: Any) -> Any:
    """A hashable stand-in for a JSON value: equal only when the JSON text is equal
    (nested containers become their JSON, key order included)."""
    if isinstance(value, (dict, list)):
        return "\x00" + json.dumps(value, ensure_ascii=False, default=str)
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

    @property
    def uniqueness(self) -> float:
        return self.distinct / self.present if self.present else 0.0

    @property
    def is_numeric(self) -> bool:
        return self.numeric_count > 0 and self.numeric_count >= 0.8 * self.present

    @property
    def dominant_type(self) -> str:
        return self.types.most_common(1)[0][0] if self.types else "null"


def _finite_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v)


def mean_std(values: list[float]) -> tuple[float, float]:
    n = len(values)
    if not n:
        return 0.0, 0.0
    try:
        m = math.fsum(values) / n
        var = math.fsum((v - m) ** 2 for v in values) / n
    except OverflowError:  # values near 1e308: no meaningful spread, no outliers
        return 0.0, 0.0
    return m, math.sqrt(var)


def outlier_positions(values: list[float], threshold: float, cap: int) -> list[int]:
    """Positions (into ``values``) farther than ``threshold`` std from the mean.

    When more than ``cap`` values qualify the field is wide-tailed rather than anomalous:
    the bar doubles, and at most the ``cap`` most extreme are returned, so a planted
    spike always survives.
    """
    m, s = mean_std(values)
    if s <= 0:
        return []
    hits = [(abs(v - m), i) for i, v in enumerate(values) if abs(v - m) > threshold * s]
    if len(hits) > cap:
        # More "outliers" than the cap is a wide distribution's tail, not a few
        # anomalies (2 std flags ~5 % of normal data): only far-out values count then.
        hits = [h for h in hits if h[0] > 2 * threshold * s]
    if len(hits) > cap:
        hits.sort(key=lambda t: (-t[0], t[1]))
        hits = hits[:cap]
    return sorted(i for _, i in hits)


def is_monotonic(values: list[float]) -> bool:
    """Counters, ids and epoch timestamps: nearly every step goes the same way."""
    if len(values) < 3:
        return False
    up = down = 0
    for a, b in pairwise(values):
        if b > a:
            up += 1
        elif b < a:
            down += 1
    steps = len(values) - 1
    return up >= 0.95 * steps or down >= 0.95 * steps


def change_point_positions(values: list[float], threshold: float) -> list[int]:
    """Positions where the series jumps to a new level and stays there.

    At each position the mean of the next ``w`` values is compared with the mean of the
    previous ``w``; a shift larger than ``threshold`` times the pooled within-window std
    is a candidate, and the strongest candidate in each neighbourhood wins. A lone spike
    inflates the window std and so does not register here (it is an outlier instead).
    Prefix sums keep this O(n).
    """
    n = len(values)
    w = max(5, min(20, n // 50))
    if n < 2 * w:
        return []
    ps = [0.0]
    ps2 = [0.0]
    for v in values:
        ps.append(ps[-1] + v)
        ps2.append(ps2[-1] + v * v)
    if not math.isfinite(ps2[-1]):  # squares overflowed: nothing sensible to compare
        return []
    scale = max(abs(v) for v in values) or 1.0
    eps = 1e-9 * scale
    def score_at(i: int) -> float:
        m1 = (ps[i] - ps[i - w]) / w
        m2 = (ps[i + w] - ps[i]) / w
        v1 = max(0.0, (ps2[i] - ps2[i - w]) / w - m1 * m1)
        v2 = max(0.0, (ps2[i + w] - ps2[i]) / w - m2 * m2)
        shift = abs(m2 - m1)
        if shift <= eps:
            return 0.0
        return shift / (math.sqrt((v1 + v2) / 2) + eps)

    # A shift's score fades linearly over w positions, so a coarse pass (stride w/4)
    # cannot miss one; each hit is then refined to the exact position.
    stride = max(1, w // 4)
    candidates: list[tuple[float, int]] = []
    for c in range(w, n - w + 1, stride):
        if score_at(c) > threshold / 2:
            for i in range(max(w, c - stride), min(n - w, c + stride) + 1):
                score = score_at(i)
                if score > threshold:
                    candidates.append((score, i))
    picked: list[int] = []
    for score, i in sorted(candidates, key=lambda t: (-t[0], t[1])):
        if all(abs(i - j) >= w for j in picked):
            picked.append(i)
    return sorted(picked)


_TYPE_NAMES = {type(None): "null", bool: "bool", int: "number", float: "number", str: "string",
               list: "array", dict: "object"}


def _distinct_count(values: list[Any], types: set[type]) -> int:
    # Plain ``set`` is exact unless ints mix with floats or bools (1 == 1.0 == True in
    # Python, not in JSON) or values are unhashable containers.
    if types <= {str, int, type(None)} or types <= {str, float, type(None)}:
        return len(set(values))
    return len({hashable(v) for v in values})


def _columns(items: list[Any]) -> tuple[dict[str, list[Any]], dict[str, list[int]], int]:
    """Values per key (and the item index of each value)."""
    dicts = [i for i, it in enumerate(items) if type(it) is dict]
    if dicts and len(dicts) == len(items):
        keys = list(items[0])
        if all(list(it) == keys for it in items):
            # Records with one shape (the common case): transpose in C.
            cols = list(zip(*(it.values() for it in items))) if keys else []
            pos = list(range(len(items)))
            return {k: list(c) for k, c in zip(keys, cols)}, {k: pos for k in keys}, len(items)
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
    """Numbers sent as strings (Prometheus values, CSV-ish APIs): judge by a sample."""
    step = max(1, len(col) // 32)
    sample = [v for v in col[::step] if isinstance(v, str)]
    return bool(sample) and all(_NUMBER_TEXT.fullmatch(v) for v in sample)


def _parse_numeric_strings(pos: list[int], col: list[Any]) -> list[tuple[int, float]]:
    out = []
    for p, v in zip(pos, col):
        if isinstance(v, str) and _NUMBER_TEXT.fullmatch(v):
            try:
                f = float(v)
            except ValueError:  # regex whitespace is wider than float()'s ("0\x1f")
                continue
            if math.isfinite(f):
                out.append((p, f))
    return out


def field_stats(items: list[Any], threshold: float, outlier_cap: int) -> dict[str, FieldStats]:
    """Statistics for every key of the dict items (non-dict items are ignored).

    Values are gathered column by column first, so the per-column work runs in C
    (``set``, ``Counter(map(type, ...))``, comprehensions) instead of per value.
    """
    columns, positions, n_dicts = _columns(items)
    stats: dict[str, FieldStats] = {}
    for k, col in columns.items():
        fs = stats[k] = FieldStats(k, present=len(col))
        type_counts = Counter(map(type, col))
        for t, c in type_counts.items():
            fs.types[_TYPE_NAMES.get(t, t.__name__)] += c
        fs.distinct = _distinct_count(col, set(type_counts))
        if fs.present == n_dicts and fs.distinct == 1 and n_dicts > 1:
            fs.constant = True
            fs.constant_value = col[0]
        pos = positions[k]
        if int in type_counts or float in type_counts:
            # ``v - v == 0`` is False for inf and NaN; bool is excluded by the exact type test.
            nums = [(p, float(v)) for p, v in zip(pos, col) if (type(v) is int or type(v) is float) and v - v == 0]
        elif type_counts.get(str, 0) >= 0.8 * len(col) and _looks_numeric(col):
            nums = _parse_numeric_strings(pos, col)
        else:
            continue
        fs.numeric_count = len(nums)
        if not nums:
            continue
        values = [v for _, v in nums]
        fs.mean, fs.std = mean_std(values)
        fs.minimum, fs.maximum = min(values), max(values)
        fs.monotonic = is_monotonic(values)
        if fs.is_numeric and fs.distinct > 2 and not fs.monotonic:
            fs.outliers = [nums[p][0] for p in outlier_positions(values, threshold, outlier_cap)]
            fs.change_points = [nums[p][0] for p in change_point_positions(values, threshold)]
    return stats
