"""TOIN's per-output profiling, sped up (C loops over the sampled columns, cached sample
positions, one min/max for the epoch range checks), gives the same profile as the plain
version it replaced, kept here as the specification."""

from __future__ import annotations

import math
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from headroom.eval.scenarios import FAMILIES
from headroom.toin.signature import (
    _EPOCH_MS,
    _EPOCH_S,
    _HASHABLE,
    _ISO_TIME,
    CATEGORICAL,
    COUNT_ROWS,
    DOMINANT_SHARE,
    FREE_TEXT,
    IDENTIFIER,
    METRIC,
    RARE_SHARE,
    SAMPLE_ROWS,
    TIMESTAMP,
    FieldProfile,
    Profile,
    _sample,
    infer_semantic,
    keyed_hash,
    profile,
    record_rows,
    type_names,
)

KEY = b"k" * 32


def reference_sample(rows: list, k: int = SAMPLE_ROWS) -> list:
    if len(rows) <= k:
        return rows
    step = len(rows) / k
    return [rows[int(i * step)] for i in range(k)]


def reference_infer_semantic(values: list[Any], types: set[str] | None = None) -> str:
    """The semantic as first written: every statistic value by value in Python."""
    if not values:
        return FREE_TEXT
    n = len(values)
    types = type_names(values) if types is None else types
    distinct = len(set(values) if types <= _HASHABLE else {repr(v) for v in values})
    if types == {"bool"}:
        return CATEGORICAL
    if types == {"str"}:
        iso = sum(bool(_ISO_TIME.match(v)) for v in values)
        mean_len = sum(len(v) for v in values) / n
        share_spaced = sum(" " in v for v in values) / n
        small = distinct <= max(3, n // 5)
        if _ISO_TIME.match(values[0]) and iso >= 0.9 * n:
            return TIMESTAMP
        if small and mean_len <= 40:
            return CATEGORICAL
        if mean_len > 40 or share_spaced > 0.5:
            return FREE_TEXT
        return IDENTIFIER if distinct >= 0.9 * n else CATEGORICAL
    if not types <= {"int", "float"}:
        return FREE_TEXT
    finite = [float(v) for v in values if math.isfinite(float(v))]
    in_s = bool(finite) and all(_EPOCH_S[0] <= x <= _EPOCH_S[1] for x in finite)
    in_ms = bool(finite) and all(_EPOCH_MS[0] <= x <= _EPOCH_MS[1] for x in finite)
    if in_s or in_ms:
        return TIMESTAMP
    if types == {"int"} and distinct == n and n >= 5 and (max(finite) - min(finite) <= 4 * n or min(finite) >= 1e6):
        return IDENTIFIER
    return CATEGORICAL if distinct <= max(3, n // 10) else METRIC


def reference_profile(key: bytes, parsed: Any, kind: str, tool_name: str | None) -> Profile:
    """The profile as first written: columns read row by row with ``r.get``."""
    tool = tool_name if tool_name else ""
    rows = None if parsed is None else record_rows(parsed)
    if not rows:
        return Profile(signature=keyed_hash(key, "output", kind + "|" + tool), kind=kind, tool_name=tool)
    sample = [r for r in reference_sample(rows) if isinstance(r, dict)]
    wide = [r for r in reference_sample(rows, COUNT_ROWS) if type(r) is dict]
    fields: dict[str, FieldProfile] = {}
    for name in set().union(*sample):
        present = []
        for r in sample:
            if r.get(name) is not None:
                present.append(r.get(name))
        types = type_names(present)
        sem = reference_infer_semantic(present, types)
        # Counted value by value (the module counts distinct values first).
        counted = wide if sem == CATEGORICAL else present
        if sem == CATEGORICAL:
            seen = [r.get(name) for r in wide]
        elif sem == IDENTIFIER:
            seen = [v for v in present if type(v) in (str, int)]
        else:
            seen = []
        counts: dict[str, int] = {}
        for v in seen:
            if type(v) in (str, int, bool):
                counts[str(v).lower()] = counts.get(str(v).lower(), 0) + 1
        top = max(counts.values()) if counts else 0
        rare: set[str] = set()
        if sem == CATEGORICAL and len(counts) > 1 and top >= DOMINANT_SHARE * len(counted):
            rare = {v for v in counts if counts[v] <= RARE_SHARE * len(counted)}
        short = {v for v in counts if len(v) <= 64} if sem in (CATEGORICAL, IDENTIFIER) else set()
        type_text = "|".join(sorted(types)) or "null"
        fields[name] = FieldProfile(name=name, hash=keyed_hash(key, "field", str(name), 12), type=type_text,
                                    semantic=sem, distinct=len(counts) or len(present), rare_values=frozenset(rare),
                                    values_lower=frozenset(short))
    signature = keyed_hash(key, "records", ";".join(sorted(f.hash + ":" + f.type for f in fields.values())))
    return Profile(signature, "records", tool, fields)


_VALUES = st.one_of(
    st.none(), st.booleans(), st.integers(-5, 5), st.integers(0, 10**13), st.sampled_from([1.5e9, 1.6e12, 3e9, 0.5]),
    st.floats(allow_nan=True, allow_infinity=True), st.sampled_from(["ok", "OK", "error", "2026-01-01T00:00:00Z",
                                                                     "2026-01-02", "a b", "x" * 50, "id-1", "id-2"]),
    st.text(max_size=8), st.lists(st.integers(), max_size=2),
)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.dictionaries(st.sampled_from(["id", "ts", "status", "msg", "v", "Name"]), _VALUES, max_size=6),
                min_size=1, max_size=400))
def test_profile_matches_reference(rows):
    assert profile(KEY, rows, "json", "tool") == reference_profile(KEY, rows, "json", "tool")
    wrapped = {"results": rows, "n": len(rows)}
    assert profile(KEY, wrapped, "json", None) == reference_profile(KEY, wrapped, "json", None)


@settings(max_examples=300, deadline=None)
@given(st.lists(_VALUES.filter(lambda v: v is not None), max_size=80))
def test_infer_semantic_matches_reference(values):
    try:
        expected = reference_infer_semantic(values)
    except OverflowError:  # float() of a huge int: both raise
        try:
            infer_semantic(values)
        except OverflowError:
            return
        raise AssertionError("no OverflowError")
    assert infer_semantic(values) == expected


@given(st.integers(0, 3000), st.integers(1, 300))
def test_sample_matches_reference(n, k):
    rows = list(range(n))
    assert _sample(rows, k) == reference_sample(rows, k)


def test_profile_of_the_synthetic_families_matches_reference():
    for fam in ("metrics", "json_logs", "db_rows", "api_listing"):
        for n in (30, 1000):
            s = FAMILIES[fam](n, 7)
            import json
            data = json.loads([m for m in s.openai_messages(s.probes[0]) if m["role"] == "tool"][-1]["content"])
            assert profile(KEY, data, "json", "t") == reference_profile(KEY, data, "json", "t"), (fam, n)
