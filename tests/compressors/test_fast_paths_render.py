"""Speed-ups of SmartCrusher's rendering and keep plan (issue 11's latency budget against
751833c) agree with the plain versions they replaced, written here as the specification:
the lossy output's form chosen from the table's rows (exact lengths of the plain and the
factored JSON, ``json_form_lengths``) instead of rendering every form; table rows and item
texts encoded in one C loop (``dumps_many``, ``index_texts``) instead of one call per
item; a metric's extremes by argmin/argmax instead of a stable sort; the time order
counted in one C loop.
"""

from __future__ import annotations

from itertools import pairwise

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from headroom import HeadroomConfig
from headroom.compressors.smart_crusher.compact import dumps, dumps_many, index_text, index_texts
from headroom.compressors.smart_crusher.crusher import (
    _LOSSY_TABLE_MARGIN,
    _LOSSY_TABLE_MIN_ROWS,
    CrushedArray,
    SmartCrusher,
    item_texts,
    json_form_lengths,
    render_array,
    render_factored,
)
from headroom.compressors.smart_crusher.keep_plan import EXTREMES, KeepPlan, _steer_by_intent
from headroom.compressors.smart_crusher.patterns import Pattern, _mostly_sorted, find_roles
from headroom.compressors.smart_crusher.stats import field_stats
from headroom.compressors.smart_crusher.table import (
    plan_table,
    render_sections,
    render_table,
    section_rows,
)


def reference_render_lossy(crushed: CrushedArray, factor_constants: bool) -> tuple[str, bool]:
    """Every form rendered, the shortest kept (the table only by the margin)."""
    plain = render_array(crushed.items)
    best, factored = plain, False
    constants = {name: fs.constant_value for name, fs in crushed.stats.items() if fs.constant}
    if factor_constants and constants and all(isinstance(it, dict) for it in crushed.items):
        text = render_factored(crushed.items, constants)
        if len(text) < len(best):
            best, factored = text, True
    if len(crushed.items) >= _LOSSY_TABLE_MIN_ROWS:
        table = render_table(crushed.items, factor_constants=factor_constants)
        if table is not None and len(table.text) < _LOSSY_TABLE_MARGIN * len(best):
            best, factored = table.text, bool(constants)
    return best, factored


# Values whose JSON text differs although Python calls them equal (0.0 / -0.0, 1 / 1.0 /
# True), escapes, non-ASCII, nested containers, big ints, NaN.
_VALUES = st.sampled_from([
    0.0, -0.0, 1, 1.0, True, False, None, "", "x", "é", 'q"\\\n', "🙂", [1, {"a": 2}], {}, [], {"k": [0.0]},
    1e-05, 1e300, float("nan"), float("inf"), 10 ** 30,
]) | st.integers(-1000, 1000) | st.text(max_size=4)
_KEYS = st.sampled_from(["a", "b", "c", "ké", 'd"q', "", "\n", "host"])


@st.composite
def _records(draw, min_size: int = 1, max_size: int = 60) -> list[dict]:
    """Runs of items sharing a key order (sections), columns often constant."""
    items: list[dict] = []
    n = draw(st.integers(min_size, max_size))
    while len(items) < n:
        keys = draw(st.lists(_KEYS, unique=True, max_size=4))
        run = draw(st.integers(1, max(1, n - len(items))))
        fixed = {k: draw(_VALUES) for k in keys}
        varying = {k for k in keys if draw(st.booleans())}
        for _ in range(run):
            items.append({k: (draw(_VALUES) if k in varying else fixed[k]) for k in keys})
    return items


@settings(max_examples=400, deadline=None)
@given(_records(), st.dictionaries(_KEYS, _VALUES, max_size=3), st.booleans())
def test_json_form_lengths_are_the_rendered_lengths(items, constants, factor_constants):
    sections = plan_table(items, factor_constants=factor_constants, max_section_ratio=1.0)
    table = render_sections(items, sections)
    assert json_form_lengths(items, sections, table.rows, None) == (len(render_array(items)), None)
    got = json_form_lengths(items, sections, table.rows, constants)
    assert got == (len(render_array(items)), len(render_factored(items, constants)))


def test_json_form_lengths_with_a_constant_equal_but_not_alike():
    # The statistics call a column of 0.0 and -0.0 constant (equal values); the table does
    # not (different JSON text), so the factored length measures those cells one by one.
    items = [{"t": i, "z": 0.0 if i % 2 else -0.0, "h": "web"} for i in range(40)]
    constants = {"z": 0.0, "h": "web"}
    sections = plan_table(items)
    table = render_sections(items, sections)
    assert "z" not in sections[0].const
    assert json_form_lengths(items, sections, table.rows, constants) == (
        len(render_array(items)), len(render_factored(items, constants)))


@settings(max_examples=300, deadline=None)
@given(_records(min_size=1, max_size=90), st.booleans())
def test_render_lossy_matches_rendering_every_form(items, factor_constants):
    cfg = HeadroomConfig().smart_crusher.model_copy(update={"factor_constants": factor_constants})
    stats = field_stats(items, cfg.variance_threshold, outlier_cap=cfg.max_items_after_crush)
    crushed = CrushedArray(items, KeepPlan(list(range(len(items)))), Pattern.GENERIC, stats)
    assert SmartCrusher()._render_lossy(crushed, cfg) == reference_render_lossy(crushed, factor_constants)


def test_render_lossy_picks_each_form_like_the_reference():
    cfg = HeadroomConfig().smart_crusher
    cases = {
        # Many repeated keys, short values: the table.
        "table": [{"timestamp": f"t{i}", "hostname": "web-1", "cpu_percent": i % 7} for i in range(50)],
        # Long varying values: the table saves too little, the constant goes in a header.
        "factored": [{"k": "v" * 200 + str(i), "region": "eu-west-1-long-name"} for i in range(50)],
        # Nothing constant, long values: plain JSON.
        "plain": [{"k": "v" * 200 + str(i)} for i in range(50)],
        # Too irregular for a table (a new key order every item).
        "no table": [{f"k{i}": i, "x": 1} if i % 2 else {"x": 1, f"k{i}": i} for i in range(50)],
        # Too few rows for a table.
        "short": [{"timestamp": f"t{i}", "hostname": "web-1"} for i in range(10)],
        # Not all records.
        "mixed": [{"a": i} for i in range(40)] + [1, "x"],
    }
    seen = set()
    for name, items in cases.items():
        stats = field_stats(items, cfg.variance_threshold, outlier_cap=cfg.max_items_after_crush)
        crushed = CrushedArray(items, KeepPlan(list(range(len(items)))), Pattern.GENERIC, stats)
        got = SmartCrusher()._render_lossy(crushed, cfg)
        assert got == reference_render_lossy(crushed, cfg.factor_constants), name
        seen.add("table" if got[0].startswith("@table") else "factored" if got[1] else "plain")
    assert seen == {"table", "factored", "plain"}


# -- table rows --------------------------------------------------------------------------


def reference_section_rows(items: list[dict], section, encode, indices=None) -> list[str]:
    """One ``encode`` call per item, on a list of the section's varying values."""
    picked = items[section.start:section.end] if indices is None else [items[i] for i in indices]
    if not section.const:
        return [encode(list(it.values())) for it in picked]
    return [encode([it[k] for k in section.varying]) for it in picked]


@settings(max_examples=300, deadline=None)
@given(_records(), st.booleans())
def test_section_rows_match_one_encode_per_item(items, factor_constants):
    sections = plan_table(items, factor_constants=factor_constants, max_section_ratio=1.0)
    for sec in sections:
        for encode in (dumps, index_text, lambda v: repr(v)):
            assert section_rows(items, sec, encode=encode) == reference_section_rows(items, sec, encode)
        inside = list(range(sec.start, sec.end, 2))
        assert section_rows(items, sec, indices=inside) == reference_section_rows(items, sec, dumps, inside)


def test_section_rows_with_one_or_no_varying_key():
    one = [{"a": i, "b": "x"} for i in range(5)]
    none = [{"b": "x"} for _ in range(5)]
    for items in (one, none):
        (sec,) = plan_table(items)
        assert section_rows(items, sec) == reference_section_rows(items, sec, dumps)
        assert section_rows(items, sec, encode=index_text) == reference_section_rows(items, sec, index_text)


def test_index_texts_falls_back_where_orjson_refuses():
    values = [[1, "é"], [10 ** 30], ["\ud800"], (float("nan"), 1e-05), []]
    assert index_texts(values) == [index_text(v) for v in values]
    assert dumps_many(values) == [dumps(v) for v in values]


# -- "largest / smallest" questions ------------------------------------------------------


def reference_extremes(stats: dict, roles, n: int) -> set[int]:
    """Every metric's values sorted (stable): the top and bottom positions."""
    fields = [name for name, fs in stats.items()
              if name != roles.timestamp and fs.is_numeric and not fs.monotonic and fs.distinct >= 3]
    top = 20 if len(fields) == 1 else 1
    out: set[int] = set()
    for name in fields:
        if stats[name].numbers is None:
            continue
        where, values = stats[name].numbers
        order = np.argsort(values, kind="stable")
        out.update(where[order[-top:]].tolist())
        out.update(where[order[:min(3, top)]].tolist())
    return out


_NUMBERS = st.sampled_from([0.0, -0.0, 1, 1.0, 2, 2.5, -3, 7, 7.0, float("nan"), float("inf"), None, "4", "x", True])


@settings(max_examples=300, deadline=None)
@given(st.lists(st.fixed_dictionaries({"t": _NUMBERS, "a": _NUMBERS}, optional={"b": _NUMBERS}), min_size=1,
                max_size=40))
def test_extremes_without_sorting_match_the_stable_sort(items):
    stats = field_stats(items, 2.0, outlier_cap=50)
    roles = find_roles(items, stats)
    must: dict[str, set[int]] = {"edges": set()}
    _steer_by_intent(must, frozenset({"extreme"}), items, stats, roles, len(items))
    assert must[EXTREMES] == reference_extremes(stats, roles, len(items))


# -- time order --------------------------------------------------------------------------


def reference_mostly_sorted(values: list) -> bool:
    """Pair by pair in Python."""
    try:
        up = sum(1 for a, b in pairwise(values) if b >= a)
    except TypeError:
        return False
    steps = len(values) - 1
    return steps > 0 and (up >= 0.95 * steps or steps - up >= 0.95 * steps)


@settings(max_examples=300, deadline=None)
@given(st.one_of(st.lists(st.integers(-5, 5) | st.floats(allow_nan=True), max_size=30),
                 st.lists(st.sampled_from(["2024-01-01", "2024-01-02", "2023-12-31", "b", ""]), max_size=30),
                 st.lists(st.sampled_from([1, "a", None, [1], 2.0, True]), max_size=6)))
def test_mostly_sorted_matches_pairwise(values):
    assert _mostly_sorted(values) == reference_mostly_sorted(values)


def test_item_texts_match_one_index_text_per_item():
    items = [{"a": 1, "b": "é"}, [1, 2], "x", None, 1e-05, {"big": 10 ** 30}, {"nan": float("nan")}, {}]
    assert item_texts(items) == [index_text(list(it.values())) if isinstance(it, dict) else index_text(it)
                                 for it in items]
    assert item_texts(items[:5]) == [index_text(list(it.values())) if isinstance(it, dict) else index_text(it)
                                     for it in items[:5]]
