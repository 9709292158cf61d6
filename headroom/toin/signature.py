"""Tool-output signatures: what an output *looks like*, never what it says.

A record array's signature is a keyed hash of its field names and value types (so every
call of a tool that returns the same kind of rows shares one signature, whatever the
rows hold); any other output's is a keyed hash of its content kind and tool name. Field
names leave this process only as keyed hashes (HMAC-SHA256 with the backend's key).

``profile()`` also infers what each field *is* (identifier, timestamp, categorical
status, metric, free text) from value statistics of a sample of rows. Values stay in
memory, in the returned profile, for matching later questions; they are never stored.
"""

from __future__ import annotations

import functools
import hashlib
import hmac
import math
import operator
import re
from collections import Counter
from dataclasses import dataclass, field
from itertools import repeat
from typing import Any

IDENTIFIER, TIMESTAMP, CATEGORICAL, ERROR_INDICATOR, METRIC, FREE_TEXT = (
    "identifier", "timestamp", "categorical_status", "error_indicator", "metric", "free_text")
SEMANTICS = (IDENTIFIER, TIMESTAMP, CATEGORICAL, ERROR_INDICATOR, METRIC, FREE_TEXT)

# Rows looked at per output: enough for stable types and semantics, cheap at any size.
SAMPLE_ROWS = 64
COUNT_ROWS = 256
# A categorical value held by at most this share of the rows is rare (a candidate anomaly).
RARE_SHARE = 0.1
DOMINANT_SHARE = 0.5
_ISO_TIME = re.compile(r"^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2})?)?")
# Epoch seconds (2001-2033) or milliseconds in the same range.
_EPOCH_S, _EPOCH_MS = (1e9, 2e9), (1e12, 2e12)


_HASHABLE = {"bool", "int", "float", "str"}


@functools.lru_cache(maxsize=8192)  # field names repeat on every call of a tool
def keyed_hash(key: bytes, kind: str, text: str, n: int = 16) -> str:
    return hmac.new(key, f"{kind}\x00{text}".encode(), hashlib.sha256).hexdigest()[:n]


@dataclass
class FieldProfile:
    name: str  # in memory only
    hash: str
    type: str  # JSON type(s) of the non-null values, e.g. "str", "int|float"
    semantic: str
    distinct: int
    # Lowercased rare values of a categorical field (in memory only, for matching questions).
    rare_values: frozenset[str] = frozenset()
    values_lower: frozenset[str] = frozenset()  # sampled short values (in memory only)


@dataclass
class Profile:
    signature: str
    kind: str  # "records", or a content type ("log", "search", "text", ...)
    tool_name: str
    fields: dict[str, FieldProfile] = field(default_factory=dict)

    def field_by_hash(self, h: str) -> FieldProfile | None:
        return next((f for f in self.fields.values() if f.hash == h), None)


def record_rows(parsed: Any) -> list[dict] | None:
    """The rows of a record array: the value itself, or the longest list of objects one
    level inside an object (``{"results": [...]}``)."""
    if isinstance(parsed, list):
        return parsed if parsed and sum(isinstance(x, dict) for x in parsed[:8]) >= min(len(parsed), 8) * 0.75 else None
    if isinstance(parsed, dict):
        best = None
        for v in parsed.values():
            rows = record_rows(v) if isinstance(v, list) else None
            if rows is not None and (best is None or len(rows) > len(best)):
                best = rows
        return best
    return None


def _sample(rows: list, k: int = SAMPLE_ROWS) -> list:
    if len(rows) <= k:
        return rows
    return list(map(rows.__getitem__, _sample_positions(len(rows), k)))


@functools.lru_cache(maxsize=256)  # outputs of one tool tend to have the same length
def _sample_positions(n: int, k: int) -> tuple[int, ...]:
    step = n / k
    return tuple(int(i * step) for i in range(k))


_TYPE_NAMES = {bool: "bool", int: "int", float: "float", str: "str", list: "list", dict: "object"}


def type_names(values: list[Any]) -> set[str]:
    """JSON type names of ``values`` (set(map(type)) first: one C loop per field)."""
    return {_TYPE_NAMES.get(t, "null") for t in set(map(type, values))}


def infer_semantic(values: list[Any], types: set[str] | None = None) -> str:
    """What a field is, from the statistics of its sampled non-null values."""
    if not values:
        return FREE_TEXT
    n = len(values)
    types = types if types is not None else type_names(values)
    distinct = len(set(values)) if types <= _HASHABLE else len({repr(v) for v in values})
    if types == {"bool"}:
        return CATEGORICAL
    if types <= {"int", "float"}:
        nums = [x for x in map(float, values) if math.isfinite(x)]
        # (all values within a range: the smallest and the largest are)
        lo, hi = (min(nums), max(nums)) if nums else (0.0, 0.0)
        if nums and (_EPOCH_S[0] <= lo and hi <= _EPOCH_S[1] or _EPOCH_MS[0] <= lo and hi <= _EPOCH_MS[1]):
            return TIMESTAMP
        # Distinct integers are ids when they run nearly in sequence or are id-sized;
        # distinct integers spread over a modest range are measurements.
        if types == {"int"} and distinct == n and n >= 5 and (hi - lo <= 4 * n or lo >= 1e6):
            return IDENTIFIER
        if distinct <= max(3, n // 10):
            return CATEGORICAL
        return METRIC
    if types == {"str"}:
        # (map over C functions: no Python frame per value)
        if _ISO_TIME.match(values[0]) and sum(map(bool, map(_ISO_TIME.match, values))) >= 0.9 * n:
            return TIMESTAMP
        avg_len = sum(map(len, values)) / n
        spaced = sum(map(operator.contains, values, repeat(" "))) / n
        if distinct <= max(3, n // 5) and avg_len <= 40:
            return CATEGORICAL
        if avg_len > 40 or spaced > 0.5:
            return FREE_TEXT
        if distinct >= 0.9 * n:
            return IDENTIFIER
        return CATEGORICAL
    return FREE_TEXT


def profile(key: bytes, parsed: Any, kind: str, tool_name: str | None) -> Profile:
    """Signature and field profiles of one output (``parsed`` is its JSON value or None)."""
    tool = tool_name or ""
    rows = record_rows(parsed) if parsed is not None else None
    if not rows:
        return Profile(keyed_hash(key, "output", f"{kind}|{tool}"), kind, tool)
    sample = [r for r in _sample(rows) if isinstance(r, dict)]
    # Columns are read with dict.get mapped over the rows (one C loop per column).
    get = dict.get
    names = set().union(*sample)
    wide: list[dict] | None = None  # the rows categorical fields are counted over, made once
    fields: dict[str, FieldProfile] = {}
    for name in names:
        present = [v for v in map(get, sample, repeat(name)) if v is not None]
        types = type_names(present)
        sem = infer_semantic(present, types)
        # Rare values are what the sample misses, so categorical fields are counted over
        # more rows; values are kept (in memory) only where a question may name them.
        if sem == CATEGORICAL and wide is None:
            wide = [r for r in _sample(rows, COUNT_ROWS) if type(r) is dict]
        counted = wide if sem == CATEGORICAL and wide is not None else present
        if sem == CATEGORICAL:
            raw = Counter(map(get, counted, repeat(name)))
        elif sem == IDENTIFIER:
            raw = Counter(v for v in present if type(v) in (str, int))
        else:
            raw = Counter()
        counts: dict[str, int] = {}
        for v, c in raw.items():
            if type(v) in (str, int, bool):
                low = str(v).lower()
                counts[low] = counts.get(low, 0) + c
        # Rare means rare next to a dominant value (status: mostly "ok"); twelve names
        # of about equal share are each small but none of them is an exception.
        dominant = max(counts.values(), default=0) >= DOMINANT_SHARE * len(counted)
        rare = frozenset(s for s, c in counts.items() if c <= RARE_SHARE * len(counted)) \
            if sem == CATEGORICAL and len(counts) > 1 and dominant else frozenset()
        short = frozenset(s for s in counts if len(s) <= 64) if sem in (CATEGORICAL, IDENTIFIER) else frozenset()
        fields[name] = FieldProfile(name, keyed_hash(key, "field", str(name), 12), "|".join(sorted(types)) or "null", sem,
                                    len(counts) or len(present), rare, short)
    shape = ";".join(sorted(f"{f.hash}:{f.type}" for f in fields.values()))
    return Profile(keyed_hash(key, "records", shape), "records", tool, fields)
