"""Speed-ups of the JSON path (issue 11's latency budget against 751833c) agree with the
plain versions they replaced, written here as the specification: the error-field scan
decided once per distinct column value, message templates masked in one regex pass over
the joined messages, and the numeric-records check without a ValueError per text cell.
"""

from __future__ import annotations

import json
import re
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from headroom.compressors.smart_crusher.keep_plan import (
    _VARIABLE_PARTS,
    message_templates,
    rare_messages_first,
)
from headroom.compressors.smart_crusher.signals import error_items, error_keys, is_error_item
from headroom.compressors.tables import records
from headroom.compressors.tables.records import numeric_fields
from headroom.compressors.tables.select import number

# -- error fields ------------------------------------------------------------------------


def reference_error_items(items: list[Any], keys: list) -> set[int]:
    """Item by item, each item's signal fields through :func:`is_error_item`."""
    return {i for i, it in enumerate(items) if isinstance(it, dict) and is_error_item({k: it[k] for k in keys if k in it})}


_SIGNAL_KEYS = ["status", "Status", "level", "LEVEL", "code", "http_status", "error", "exception", "ok", "success",
                "state", "msg", "name"]
_SIGNAL_VALUES = st.sampled_from([
    None, True, False, 0, 0.0, 1, 200, 404, 500, 503, 599, 600, 500.0, "500", " 503 ", "5xx", "50", "", [], {}, [1],
    {"a": 1}, "error", " ERROR ", "Failed", "ok", "warn", "down", "fatal", "x", float("nan"), -0.0,
]) | st.integers(-10, 1000) | st.text(max_size=6)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.one_of(st.dictionaries(st.sampled_from(_SIGNAL_KEYS), _SIGNAL_VALUES, max_size=5),
                          st.sampled_from(["error", 3, None, ["status"]])), max_size=40))
def test_error_items_matches_item_by_item(items):
    keys = error_keys(sorted({k for it in items if isinstance(it, dict) for k in it}))
    assert error_items(items, keys) == reference_error_items(items, keys)


def test_error_items_tells_equal_values_of_other_types_apart():
    # 500 == 500.0 == hash-equal, but only the int is an HTTP 5xx; True == 1, False == 0.
    items = [{"status": 500.0}, {"status": 500}, {"ok": 0}, {"ok": False}, {"error": 0.0}, {"error": True}]
    keys = error_keys(["status", "ok", "error"])
    assert error_items(items, keys) == reference_error_items(items, keys) == {1, 3, 5}


# -- message templates -------------------------------------------------------------------


def reference_rare_messages_first(items: list[Any], field_name: str) -> list[int]:
    first: dict[str, int] = {}
    counts: dict[str, int] = {}
    for i, it in enumerate(items):
        msg = it.get(field_name) if isinstance(it, dict) else None
        if not isinstance(msg, str):
            continue
        t = _VARIABLE_PARTS.sub("#", msg)
        if t not in first:
            first[t] = i
        counts[t] = counts.get(t, 0) + 1
    return [first[t] for t in sorted(first, key=lambda t: (counts[t], first[t]))]


_MESSAGE = st.text(alphabet="ab ef0129\"\n-x:", max_size=20)


@settings(max_examples=300, deadline=None)
@given(st.lists(_MESSAGE, max_size=30))
def test_message_templates_match_one_pass_per_message(msgs):
    assert message_templates(msgs) == [_VARIABLE_PARTS.sub("#", m) for m in msgs]


@settings(max_examples=200, deadline=None)
@given(st.lists(st.one_of(st.fixed_dictionaries({"msg": _MESSAGE}), st.fixed_dictionaries({"msg": st.integers()}),
                          st.just("text"), st.just({})), max_size=30))
def test_rare_messages_first_matches_reference(items):
    assert rare_messages_first(items, "msg") == reference_rare_messages_first(items, "msg")


# -- numeric records ---------------------------------------------------------------------


def reference_numeric_fields(data: list[Any]) -> list[str] | None:
    """The check as first written: ``number()`` (float() and its ValueError) on every cell."""
    if not data or type(data[0]) is not dict:
        return None
    keys = tuple(data[0])
    if not 3 <= len(keys) <= records._MAX_FIELDS:
        return None
    sample = data[:: max(1, len(data) // records._SAMPLE)]
    if not all(type(it) is dict and tuple(it) == keys for it in sample):
        return None
    numeric = 0
    for k in keys:
        vals = [it[k] for it in sample]
        if not all(v is None or isinstance(v, (str, int, float, bool)) for v in vals):
            return None
        if all(isinstance(v, str) and records._TIMESTAMP.match(v) for v in vals):
            return None
        if sum(1 for v in vals if number(v) is not None) >= 0.8 * len(vals):
            numeric += 1
    if numeric <= records._NUMERIC_FIELDS * len(keys):
        return None
    return list(keys) if all(type(it) is dict and tuple(it) == keys for it in data) else None


_CELLS = st.sampled_from([
    "ORD-1", "cust_5", "EUR", "E5", "e5", "inf", "Infinity", "-inf", "nan", "NaN", "n", "i", "1.5", " 2", "+3", "1e5",
    "1_000", ".5", "", " ", "x1", "2026-03-04T08:00:00Z", "2026-03-04 08:00", "١٢", "\u00a07", None, True, False, 0, 7,
    2.5, float("inf"), [1], {"a": 1},
]) | st.integers() | st.floats(allow_nan=False) | st.text(max_size=5)


@settings(max_examples=300, deadline=None)
@given(st.integers(1, 5), st.lists(st.lists(_CELLS, min_size=5, max_size=5), min_size=1, max_size=80))
def test_numeric_fields_matches_reference(width, rows):
    names = ["a", "b", "c", "d", "e"][:max(3, width)]
    data = [dict(zip(names, r)) for r in rows]
    assert numeric_fields(data) == reference_numeric_fields(data)


def test_numeric_fields_on_string_heavy_and_numeric_tables():
    orders = [{"order_id": f"ORD-{i}", "customer": f"cust_{i}", "status": "paid", "total": i * 1.5, "qty": i}
              for i in range(200)]
    table = [{"x": i, "y": str(i * 2), "z": i / 3, "label": "inf" if i % 7 else "p"} for i in range(200)]
    for data in (orders, table, json.loads(json.dumps(table))):
        assert numeric_fields(data) == reference_numeric_fields(data)
    assert numeric_fields(table) == ["x", "y", "z", "label"]


def test_not_number_start_letters_really_fail_float():
    for c in sorted(records._NOT_NUMBER_START):
        for rest in ("", "1", "nf", "an", "e5", "0x1"):
            try:
                float(c + rest)
            except ValueError:
                continue
            raise AssertionError(f"float({c + rest!r}) parses")
    assert re.fullmatch(r"[A-Za-z]+", "".join(sorted(records._NOT_NUMBER_START)))
