"""JSON arrays of mostly numeric records, seen as a table: the same row selection as CSV
text (extremes of every numeric column, rows the question names, first/last), instead of
SmartCrusher's generic keep plan, which keeps a fixed count and misses most extremes.

SmartCrusher calls :func:`select_records` once lossless rendering cannot save enough, and
renders the kept items itself (the output stays a valid JSON array).
"""

from __future__ import annotations

import json
import re
import string
from typing import Any

from ..base import CompressInput
from ..bm25_fast import relevance_scores
from .csv_compressor import target_ratio
from .select import Selection, Table, number, select_rows

_NUMERIC_FIELDS = 0.5  # more than this share of the fields must be numeric
_SAMPLE = 64  # items whose fields decide the column set and whether it is numeric
_MAX_FIELDS = 200
_TIMESTAMP = re.compile(r"\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}")


_SCALAR_TYPES = frozenset({type(None), str, int, float, bool})
# float() rejects a string that starts with an ASCII letter, except "inf"/"infinity"/"nan":
# such cells are known not to be numbers without the ValueError (a microsecond each).
_NOT_NUMBER_START = frozenset(string.ascii_letters) - set("iInN")


def _scalar(v: Any) -> bool:
    return v is None or isinstance(v, (str, int, float, bool))


def _numeric_count(vals: list[Any]) -> int:
    """How many of ``vals`` :func:`number` reads as a number."""
    return sum(1 for v in vals
               if not (type(v) is str and v and v[0] in _NOT_NUMBER_START) and number(v) is not None)


def numeric_fields(data: list[Any]) -> list[str] | None:
    """The field names when ``data`` is a table of records (every item a flat object
    with the same keys) whose fields are mostly numeric; else None. Sparse keys, nested
    values, id-plus-one-number lists and time series (a timestamp field) stay with
    SmartCrusher's own plans."""
    if not data or type(data[0]) is not dict:
        return None
    keys = tuple(data[0])
    if not 3 <= len(keys) <= _MAX_FIELDS:
        return None
    # Decided on a sample first (most arrays fail here, cheaply); the key check over every
    # item comes last. Same keys in the same order, so an item's values are its row.
    sample = data[:: max(1, len(data) // _SAMPLE)]
    if not all(type(it) is dict and tuple(it) == keys for it in sample):
        return None
    numeric = 0
    for k in keys:
        vals = [it[k] for it in sample]
        types = set(map(type, vals))  # exact JSON types decide both checks without a loop in Python
        if not types <= _SCALAR_TYPES and not all(_scalar(v) for v in vals):
            return None  # nested values: not a table
        if (all(map(_TIMESTAMP.match, vals)) if types == {str}
                else all(isinstance(v, str) and _TIMESTAMP.match(v) for v in vals)):
            return None  # a time series: SmartCrusher's plan knows spikes, change points and asked times
        if _numeric_count(vals) >= 0.8 * len(vals):
            numeric += 1
    if numeric <= _NUMERIC_FIELDS * len(keys):
        return None
    return list(keys) if all(type(it) is dict and tuple(it) == keys for it in data) else None


def _cell_text(v: Any) -> str:
    return v if isinstance(v, str) else json.dumps(v)


def select_records(data: list[Any], texts: list[str], tokens: int, inp: CompressInput) -> Selection | None:
    """Which items of a numeric record array to keep, or None when it is not one."""
    names = numeric_fields(data)
    if names is None:
        return None
    rows = [list(it.values()) for it in data]
    cost = tokens / len(data)  # numeric records are near-uniform: no per-item count
    table = Table(names=names, rows=rows, costs=[cost] * len(data), texts=texts)
    sel = select_rows(table, query=inp.query, anchors=inp.anchors,
                      budget=tokens * target_ratio(inp.aggressiveness), fmt=_cell_text,
                      score=lambda items: relevance_scores(inp, items))
    return sel if len(sel.kept) < len(data) else None
