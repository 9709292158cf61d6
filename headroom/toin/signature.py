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

import hashlib
import hmac
import math
import re
from dataclasses import dataclass, field
from typing import Any

IDENTIFIER, TIMESTAMP, CATEGORICAL, ERROR_INDICATOR, METRIC, FREE_TEXT = (
    "identifier", "timestamp", "categorical_status", "error_indicator", "metric", "free_text")
SEMANTICS = (IDENTIFIER, TIMESTAMP, CATEGORICAL, ERROR_INDICATOR, METRIC, FREE_TEXT)

# Rows looked at per output: enough for stable types and semantics, cheap at any size.
SAMPLE_ROWS = 64
COUNT_ROWS = 512
# A categorical value held by at most this share of the rows is rare (a candidate anomaly).
RARE_SHARE = 0.1
_ISO_TIME = re.compile(r"^\d{4}-\d{2}-\d{2}([T ]\d{2}:\d{2}(:\d{2})?)?")
# Epoch seconds (2001-2033) or milliseconds in the same range.
_EPOCH_S, _EPOCH_MS = (1e9, 2e9), (1e12, 2e12)


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
    step = len(rows) / k
    return [rows[int(i * step)] for i in range(k)]


def _type_name(v: Any) -> str:
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, int):
        return "int"
    if isinstance(v, float):
        return "float"
    if isinstance(v, str):
        return "str"
    if isinstance(v, list):
        return "list"
    if isinstance(v, dict):
        return "object"
    return "null"


def infer_semantic(values: list[Any], n_rows: int) -> str:
    """What a field is, from the statistics of its sampled non-null values."""
    if not values:
        return FREE_TEXT
    n = len(values)
    types = {_type_name(v) for v in values}
    distinct = len({repr(v) for v in values})
    if types == {"bool"}:
        return CATEGORICAL
    if types <= {"int", "float"}:
        nums = [float(v) for v in values if math.isfinite(float(v))]
        if nums and all(_EPOCH_S[0] <= x <= _EPOCH_S[1] for x in nums) or nums and all(
                _EPOCH_MS[0] <= x <= _EPOCH_MS[1] for x in nums):
            return TIMESTAMP
        if types == {"int"} and distinct == n and n >= 5:
            return IDENTIFIER
        if distinct <= max(3, n // 10):
            return CATEGORICAL
        return METRIC
    if types == {"str"}:
        if sum(bool(_ISO_TIME.match(v)) for v in values) >= 0.9 * n:
            return TIMESTAMP
        avg_len = sum(len(v) for v in values) / n
        spaced = sum(" " in v for v in values) / n
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
    by_field: dict[str, list[Any]] = {}
    for r in sample:
        for k, v in r.items():
            by_field.setdefault(str(k), []).append(v)
    fields: dict[str, FieldProfile] = {}
    for name, vals in by_field.items():
        present = [v for v in vals if v is not None]
        tname = "|".join(sorted({_type_name(v) for v in present})) or "null"
        sem = infer_semantic(present, len(sample))
        # Rare values are what the sample misses, so categorical fields are counted over
        # more rows (a few fields, a dict update per row).
        counted = _sample(rows, COUNT_ROWS) if sem == CATEGORICAL else sample
        counts: dict[str, int] = {}
        for r in counted:
            v = r.get(name) if isinstance(r, dict) else None
            if isinstance(v, (str, int, bool)):
                s = str(v).lower()
                counts[s] = counts.get(s, 0) + 1
        rare = frozenset(s for s, c in counts.items() if c <= RARE_SHARE * len(counted)) \
            if sem == CATEGORICAL and len(counts) > 1 else frozenset()
        short = frozenset(s for s in counts if len(s) <= 64)
        fields[name] = FieldProfile(name, keyed_hash(key, "field", name, 12), tname, sem, len(counts) or len(present),
                                    rare, short)
    shape = ";".join(sorted(f"{f.hash}:{f.type}" for f in fields.values()))
    return Profile(keyed_hash(key, "records", shape), "records", tool, fields)
