"""Map-shaped objects, string-heavy record arrays and the lossy table layout, on real
outputs from the corpus (``npm view`` publish-time maps and metadata, pylint's JSON)."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from headroom.compressors.smart_crusher import SmartCrusher, parse_table
from headroom.config import SmartCrusherConfig
from headroom.compressors.smart_crusher.keep_plan import exemplar_positions, one_off_positions
from headroom.compressors.smart_crusher.maps import RECORDS, SCALAR, extreme_positions, map_rows, map_shape
from headroom.eval.corpus import load_cases
from tests.compressors.test_smart_crusher import LOSSY, make_input


def _content(case_id: str) -> str:
    source = case_id.split("/")[0]
    return next(c.content for c in load_cases(sources=[source]) if c.id == case_id)


def test_map_shape_tells_maps_from_documents() -> None:
    times = {f"1.{i}.0": f"2024-01-{i % 28 + 1:02d}T00:00:00Z" for i in range(30)}
    assert map_shape(times, 20) == SCALAR
    assert map_shape({f"pkg{i}": {"version": f"1.{i}", "size": i} for i in range(25)}, 20) == RECORDS
    assert map_shape(dict(list(times.items())[:5]), 20) is None  # too few entries
    mixed = {**times, "versions": ["1.0.0"], "dist": {"a": 1}, "n": 3, "m": 4}
    assert map_shape(mixed, 20) is None  # a document with a schema, not a map


def test_extremes_compare_times_not_text() -> None:
    # An offset makes the text order lie: 23:30-05:00 is the latest instant.
    rows = map_rows({"a": "2024-01-02T01:00:00+00:00", "b": "2024-01-01T23:30:00-05:00",
                     "c": "2024-01-01T12:00:00.5+00:00"}, SCALAR)
    assert extreme_positions(rows) == {1, 2}


def test_publish_time_map_keeps_the_named_version_and_the_latest() -> None:
    text = _content("npm_view/express_time_json_lookup")
    times = json.loads(text)
    asked = sorted(times)[len(times) // 2]
    result = SmartCrusher().compress(make_input(text, query=f"When was express {asked} published?"))
    assert result is not None and result.lossy and result.strategy == "nested"
    kept = json.loads(result.text)  # still one JSON object
    assert kept[asked] == times[asked]
    assert f'"{asked}":"{times[asked]}"' in result.text  # the pair as it reads in compact JSON
    newest = max((v for k, v in times.items() if k not in ("created", "modified")), key=lambda t: t)
    assert newest in result.text
    assert len(kept) < len(times) / 4
    assert "map entries omitted" in result.summary


def test_metadata_document_crushes_its_inner_map_and_keeps_the_rest() -> None:
    text = _content("npm_view/express_meta_json_integrity")
    doc = json.loads(text)
    result = SmartCrusher().compress(make_input(text, query="What integrity hash should the tarball have?"))
    assert result is not None and result.lossy
    out = json.loads(result.text)
    assert out["dist"] == doc["dist"] and out["dependencies"] == doc["dependencies"]
    assert set(out["time"]) < set(doc["time"])
    assert len(result.text) < len(text) / 3


def test_string_heavy_records_keep_one_exemplar_per_template_as_a_table() -> None:
    text = _content("pylint_report/json_errors")
    items = json.loads(text)
    result = SmartCrusher().compress(make_input(text, query="Which warnings and errors did the linter report?",
                                                sc=LOSSY))
    assert result is not None and result.lossy and result.text.startswith("@table ")
    kept = parse_table(result.text)
    assert all(it in items for it in kept)
    # Every message-id the report holds once is in view (rare kinds are kept whole) …
    counts: dict[str, int] = {}
    for it in items:
        counts[it["message-id"]] = counts.get(it["message-id"], 0) + 1
    kept_ids = {it["message-id"] for it in kept}
    assert {m for m, c in counts.items() if c == 1} <= kept_ids
    # … while the frequent kinds are not kept in full.
    assert len(kept) < len(items) / 2


def test_sawtooth_positions_are_not_change_points() -> None:
    # pylint's line/column numbers restart in every file: no regime change worth an item.
    text = _content("pylint_report/json_worst")
    result = SmartCrusher().compress(make_input(text, sc=LOSSY))
    assert result is not None and "change point" not in result.summary


def test_exemplars_cover_each_repeated_template_once() -> None:
    keys = ["unused #", "unused #", "shadow x", "unused #", "shadow x", "once"]
    assert exemplar_positions(keys, cap=5) == {0, 2}
    assert exemplar_positions(keys, cap=1) == set()  # more repeated keys than the cap: ids, not templates


maps = st.dictionaries(st.text(min_size=1, max_size=8),
                       st.one_of(st.integers(-1000, 1000), st.text(max_size=12)), min_size=20, max_size=80)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=maps, query=st.text(max_size=20))
def test_every_kept_entry_is_an_input_entry(data, query) -> None:
    text = json.dumps(data, indent=2)
    result = SmartCrusher().compress(make_input(text, query=query, sc=SmartCrusherConfig(min_tokens_to_crush=0)))
    if result is None:
        return
    out = json.loads(result.text)
    assert all(k in data and data[k] == v for k, v in out.items())
    if result.lossy:
        assert result.items_after < result.items_before == len(data)


def test_over_the_cap_one_offs_of_a_single_kind_come_first() -> None:
    keys = ["Unused argument 'a'", "Unused argument 'b'", "Unused argument 'c'", "Unused argument 'd'",
            "Cyclic import loop", "Reimport 'os' (imported line #)", "tick #", "tick #"]
    kept = one_off_positions(keys, cap=3)
    assert {4, 5} <= kept and len(kept) == 3
