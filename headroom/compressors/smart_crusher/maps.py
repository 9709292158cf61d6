"""Objects used as maps: many keys whose values share one shape.

``npm view pkg time --json`` (version → publish time), dependency maps, per-file stats,
environment dumps: the keys are data, not a schema, so such an object is an array in
disguise. Its entries become rows (the key as one more column) so the array keep plan
can pick them — anchors, errors, rare values, first/last, relevance — and the entries
holding each column's extremes (latest timestamp, largest number) are added, since
"the newest / biggest one" is the usual question about a map and nothing else keeps it.
"""

from __future__ import annotations

import math
from collections import Counter
from datetime import datetime
from typing import Any

from .compact import dumps, index_text
from .patterns import _ISO_TIME

# The key's column in the rows; a NUL-led name no JSON document of real data uses.
KEY_COLUMN = "\x00key"
SCALAR, RECORDS = "scalar", "records"
# Shares of entries that must agree for an object to count as a map.
_SAME_TYPE_SHARE = 0.9
# The marker names the range of omitted string values only when they are this short.
_MAX_RANGE_CHARS = 40


def _json_type(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "bool"
    if isinstance(v, (int, float)):
        return "number"
    if isinstance(v, str):
        return "string"
    return "object" if isinstance(v, dict) else "array"


def map_shape(value: dict, min_entries: int) -> str | None:
    """SCALAR when (nearly) every value is a string or every value a number; RECORDS
    when every value is an object; None for anything else (a document with a schema:
    mixed types, arrays, or too few entries to be worth a plan)."""
    if len(value) < min_entries:
        return None
    types = Counter(_json_type(v) for v in value.values())
    kind, n = types.most_common(1)[0]
    if kind == "object" and n == len(value):
        return RECORDS
    if kind in ("string", "number") and n >= _SAME_TYPE_SHARE * len(value) and n + types["null"] == len(value):
        return SCALAR
    return None


def map_rows(value: dict, shape: str) -> list[dict]:
    """One row per entry: ``{KEY_COLUMN: key, "value": v}`` or the record with the key added."""
    if shape == SCALAR:
        return [{KEY_COLUMN: k, "value": v} for k, v in value.items()]
    return [{KEY_COLUMN: k, **v} for k, v in value.items()]


def row_texts(value: dict) -> list[str]:
    """Searchable text per entry: its key and its value."""
    return [index_text([k, v]) for k, v in value.items()]


def _time_key(v: str) -> datetime | None:
    try:
        t = datetime.fromisoformat(v.replace("Z", "+00:00") if v.endswith("Z") else v)
    except ValueError:
        return None
    return t if t.tzinfo is not None else None


def extreme_positions(rows: list[dict]) -> set[int]:
    """Rows holding the smallest and largest value of each scalar column: numbers, and
    ISO timestamps (compared as times, so offsets and fractions order correctly)."""
    out: set[int] = set()
    columns = {name for r in rows for name in r if name != KEY_COLUMN}
    for name in sorted(columns):
        nums: list[tuple[float, int]] = []
        times: list[tuple[Any, int]] = []
        for i, r in enumerate(rows):
            v = r.get(name)
            if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v):
                nums.append((v, i))
            elif isinstance(v, str) and _ISO_TIME.match(v):
                t = _time_key(v)
                times.append(((t.timestamp(), v) if t is not None else (math.nan, v), i))
        for ordered in (nums, [(k, i) for k, i in times if not math.isnan(k[0])]):
            if len(ordered) >= 2:
                out.add(min(ordered)[1])
                out.add(max(ordered)[1])
    return out


def omitted_note(name: str | None, value: dict, kept: list[int], shape: str) -> str:
    """``"time": 230 of 252 entries omitted, values 2010-… to 2026-…`` for the marker."""
    n, k = len(value), len(kept)
    where = f"{dumps(name)}: " if name is not None else ""
    note = f"{where}{n - k} of {n} map entries omitted"
    if shape != SCALAR:
        return note
    keep = set(kept)
    dropped = [v for i, v in enumerate(value.values()) if i not in keep and v is not None]
    if dropped and all(isinstance(v, str) and len(v) <= _MAX_RANGE_CHARS for v in dropped):
        lo, hi = min(dropped), max(dropped)
    elif dropped and all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in dropped):
        lo, hi = min(dropped), max(dropped)
    else:
        return note
    return f"{note} (values {dumps(lo)} to {dumps(hi)})"
