"""Is this item an error? Items that say so are never dropped.

An item is an error when a level/status-like field says error/fatal/failed, an HTTP
status field holds a 5xx, an ``error``/``exception``-like key carries a value, a
success flag is false, or its text contains exception-looking words (a traceback, a
``SomethingError``, ``panic:``).
"""

from __future__ import annotations

import re
from typing import Any

from .rows import RowIndex

_STATE_KEYS = {
    "level", "lvl", "severity", "log_level", "loglevel", "status", "state", "outcome", "result",
    "conclusion", "health", "phase",
}
_ERROR_WORDS = {
    "error", "err", "errored", "fatal", "critical", "crit", "failed", "failure", "fail", "panic",
    "emergency", "emerg", "alert", "exception", "crashed", "crash", "aborted", "unhealthy", "down",
}
_HTTP_KEYS = {"status", "status_code", "statuscode", "http_status", "httpstatus", "response_code", "code", "http_code"}
_ERROR_KEYS = {"error", "errors", "err", "exception", "exc", "traceback", "stacktrace", "stack_trace", "stack", "fault"}
_SUCCESS_KEYS = {"success", "ok", "passed", "succeeded", "healthy"}
# Exception text inside any value: Python/Java/JS/Go style.
# The last alternative catches a non-empty "error"/"exception" key nested inside a value
# (rows are compact JSON, so nested objects keep their keys).
ERROR_TEXT = re.compile(
    r"Traceback \(most recent call last\)|\b[A-Z][A-Za-z]*(?:Error|Exception)\b|\bpanic:|"
    r"\bFATAL\b|\bSegmentation fault\b|\bstack overflow\b|\bOOMKilled\b|\bout of memory\b|"
    r'"(?:error|errors|exception)":(?!null|false|""|\[\]|\{\}|0[,}])',
)
# Every ERROR_TEXT match contains one of these, ignoring case. ``str.find`` scans the
# index's lowercased text for a literal several times faster than a regex alternation
# scans the rows; lowercase also merges "Error" with '"error' (one scan, not two).
_ERROR_TEXT_LITERALS = (
    "traceback (", "error", "exception", "panic:", "fatal", "segmentation fault", "stack overflow",
    "oomkilled", "out of memory",
)
_ALL_SIGNAL_KEYS = _STATE_KEYS | _HTTP_KEYS | _ERROR_KEYS | _SUCCESS_KEYS


def _is_5xx(v: Any) -> bool:
    if isinstance(v, bool):
        return False
    if isinstance(v, int):
        return 500 <= v <= 599
    if isinstance(v, str):
        s = v.strip()
        return len(s) == 3 and s[0] == "5" and s.isdigit()
    return False


def is_error_item(item: Any) -> bool:
    """Structural error signals (fields and keys); exception text is found separately."""
    if isinstance(item, dict):
        return any(_pair_is_error(k.lower() if isinstance(k, str) else k, v) for k, v in item.items())
    return isinstance(item, str) and item.strip().lower() in _ERROR_WORDS


def rows_with_error_text(index: RowIndex) -> set[int]:
    """Rows containing exception-looking text.

    Literal search finds candidate rows fast over the joined rows; each candidate
    row is then confirmed with the full pattern.
    """
    candidates = {r for lit in _ERROR_TEXT_LITERALS for r in index.containing(lit)}
    return {r for r in candidates if ERROR_TEXT.search(index.rows[r])}


def error_keys(keys) -> list:
    """The keys, among ``keys``, that can mark an item as an error."""
    return [k for k in keys if isinstance(k, str) and k.lower() in _ALL_SIGNAL_KEYS]


# Values that say "error" in a category column whatever it is called (issue 33: a level
# or state is found by its values, not its name). Narrower than _ERROR_WORDS: "down" or
# "alert" in a column of a few values may be a direction or a kind, not a failure.
_STATE_ERROR_VALUES = frozenset({"error", "err", "errored", "fatal", "critical", "crit", "failed", "failure",
                                 "panic", "emergency", "emerg", "crashed", "aborted", "exception"})
_STATE_MAX_VALUES = 16


def state_error_keys(stats) -> list:
    """Category columns (a handful of string values) holding an error word among their
    values: a level or state column, whatever its name."""
    return [k for k, fs in stats.items()
            if fs.categories is not None and fs.distinct <= _STATE_MAX_VALUES
            and any(v.strip().lower() in _STATE_ERROR_VALUES for v in fs.categories if isinstance(v, str))]


def state_error_items(items: list[Any], keys: list) -> set[int]:
    """Items whose value in one of the ``keys`` columns is an error word."""
    out: set[int] = set()
    for k in keys:
        for i, it in enumerate(items):
            if isinstance(it, dict):
                v = it.get(k)
                if isinstance(v, str) and v.strip().lower() in _STATE_ERROR_VALUES:
                    out.add(i)
    return out


def _pair_is_error(key: Any, v: Any) -> bool:
    """One field of :func:`is_error_item`: does ``key`` (lowercased) with value ``v`` say error?"""
    if key in _STATE_KEYS and isinstance(v, str) and v.strip().lower() in _ERROR_WORDS:
        return True
    if key in _HTTP_KEYS and _is_5xx(v):
        return True
    if key in _ERROR_KEYS and v not in (None, False, "", [], {}, 0):
        return True
    return key in _SUCCESS_KEYS and v is False


_CACHEABLE = (str, int, float, bool, type(None))


def error_items(items: list[Any], keys: list) -> set[int]:
    """Indices of dict items whose signal ``keys`` say error (see :func:`is_error_item`).

    Column by column: an item is an error when any one of its signal fields says so, and
    a field's verdict depends on its key and value alone, so it is decided once per
    distinct (type, value) of a column (a status column holds a handful) instead of once
    per item."""
    if not keys:
        return set()
    out: set[int] = set()
    for k in keys:
        key = k.lower() if isinstance(k, str) else k
        verdicts: dict[tuple[type, Any], bool] = {}
        for i, it in enumerate(items):
            if type(it) is not dict and not isinstance(it, dict):
                continue
            if k not in it:
                continue
            v = it[k]
            t = type(v)
            if t in _CACHEABLE:
                hit = verdicts.get((t, v))
                if hit is None:
                    hit = verdicts[(t, v)] = _pair_is_error(key, v)
            else:
                hit = _pair_is_error(key, v)
            if hit:
                out.add(i)
    return out
