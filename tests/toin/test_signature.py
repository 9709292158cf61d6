"""Signatures depend on structure only; semantics come from value statistics."""

from __future__ import annotations

from headroom.toin.signature import (
    CATEGORICAL,
    FREE_TEXT,
    IDENTIFIER,
    METRIC,
    TIMESTAMP,
    infer_semantic,
    profile,
    record_rows,
)

KEY = b"k" * 32


def rows(n: int, offset: int = 0) -> list[dict]:
    return [{"id": f"ORD-{offset + i}", "status": "ok" if i % 25 else "lost", "amount": (offset + i) * 1.25,
             "created_at": f"2025-03-{1 + i % 28:02d}T10:00:00Z", "note": f"customer asked about item {i} twice"}
            for i in range(n)]


def test_signature_is_stable_across_calls_with_different_values():
    a = profile(KEY, rows(80), "json_array", "orders")
    b = profile(KEY, rows(120, offset=5000), "json_array", "orders")
    assert a.signature == b.signature
    # Same structure from another tool shares the signature (structure, not tool name).
    assert profile(KEY, rows(50), "json_array", "other").signature == a.signature


def test_signature_changes_with_fields_types_and_key():
    base = profile(KEY, rows(40), "json_array", "orders").signature
    renamed = [{**{k: v for k, v in r.items() if k != "note"}, "comment": r["note"]} for r in rows(40)]
    retyped = [{**r, "amount": str(r["amount"])} for r in rows(40)]
    assert profile(KEY, renamed, "json_array", "orders").signature != base
    assert profile(KEY, retyped, "json_array", "orders").signature != base
    assert profile(b"x" * 32, rows(40), "json_array", "orders").signature != base


def test_text_outputs_are_signed_by_kind_and_tool():
    a = profile(KEY, None, "log", "run_tests")
    assert a.kind == "log" and not a.fields
    assert a.signature == profile(KEY, None, "log", "run_tests").signature
    assert a.signature != profile(KEY, None, "log", "build").signature
    assert a.signature != profile(KEY, None, "search", "run_tests").signature


def test_field_semantics_and_rare_values():
    p = profile(KEY, rows(100), "json_array", "orders")
    sem = {n: f.semantic for n, f in p.fields.items()}
    assert sem == {"id": IDENTIFIER, "status": CATEGORICAL, "amount": METRIC, "created_at": TIMESTAMP,
                   "note": FREE_TEXT}
    assert p.fields["status"].rare_values == {"lost"}
    assert p.fields["status"].hash != "status" and len(p.fields["status"].hash) == 12


def test_infer_semantic_numbers():
    assert infer_semantic(list(range(1_700_000_000, 1_700_000_050))) == TIMESTAMP
    assert infer_semantic(list(range(50))) == IDENTIFIER
    assert infer_semantic([200] * 45 + [500] * 5) == CATEGORICAL
    assert infer_semantic([1.5, 2.25, 9.0, 3.5, 7.75, 1.0]) == METRIC
    assert infer_semantic([True, False, True]) == CATEGORICAL


def test_record_rows_finds_an_inner_array():
    inner = {"total": 3, "results": rows(30)}
    assert record_rows(inner) is inner["results"]
    assert record_rows([1, 2, 3]) is None
    assert record_rows({"a": 1}) is None
