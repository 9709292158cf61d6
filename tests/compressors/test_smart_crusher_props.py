"""Property tests: SmartCrusher never raises on arbitrary JSON, its lossy output is valid
JSON or a marked table (``@table`` header), its lossless table parses back to the original
items, and it is deterministic."""

from __future__ import annotations

import json

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from headroom.config import HeadroomConfig, SmartCrusherConfig
from headroom.tokens import counter_for
from headroom.compressors.base import CompressInput
from headroom.compressors.smart_crusher import SmartCrusher, parse_table, render_table

scalars = st.none() | st.booleans() | st.integers(-10**6, 10**6) | st.floats(allow_nan=False) | st.text(max_size=30)
json_values = st.recursive(
    scalars,
    lambda inner: st.lists(inner, max_size=8) | st.dictionaries(st.text(max_size=6), inner, max_size=5),
    max_leaves=40,
)
records = st.lists(st.dictionaries(st.sampled_from(["id", "ts", "v", "level", "msg", "error"]), scalars, max_size=6),
                   min_size=1, max_size=60)
CONFIG = HeadroomConfig(smart_crusher=SmartCrusherConfig(min_tokens_to_crush=0, min_items_to_analyze=2, max_items_after_crush=3),
                        ccr={"min_items_to_cache": 2})
COUNTER = counter_for("gpt-4o")


def lossy_records(text: str) -> list:
    """Kept items of a lossy result: a table, the constants-factored object, or an array."""
    if text.startswith("@table "):
        return parse_table(text)
    out = json.loads(text)
    return [{**out["_constant"], **it} for it in out["items"]] if isinstance(out, dict) and "_constant" in out else out


def run(data, query: str, lossless_min_savings: float):
    cfg = CONFIG.model_copy(update={"smart_crusher": CONFIG.smart_crusher.model_copy(
        update={"lossless_min_savings": lossless_min_savings})})
    inp = CompressInput(text=json.dumps(data), config=cfg, counter=COUNTER, query=query)
    return SmartCrusher().compress(inp)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.lists(json_values, max_size=30) | st.dictionaries(st.text(max_size=5), json_values, max_size=6),
       query=st.text(max_size=20), lossless=st.sampled_from([0.0, 0.3, 1.0]))
def test_any_json_never_raises_and_output_parses(data, query, lossless):
    result = run(data, query, lossless)
    if result is None:
        return
    if result.lossy:
        lossy_records(result.text)
        assert result.items_after < result.items_before
    elif result.strategy == "table":
        assert parse_table(result.text) == data
    else:
        assert json.loads(result.text) == json.loads(json.dumps(data))
    assert run(data, query, lossless).text == result.text  # deterministic


@settings(max_examples=150, deadline=None)
@given(items=records)
def test_table_round_trip(items):
    table = render_table(items)
    if table is not None:
        assert json.dumps(parse_table(table.text)) == json.dumps(items)


@settings(max_examples=60, deadline=None)
@given(n=st.integers(30, 400), seed=st.integers(0, 10**6), data=st.data())
def test_planted_facts_always_survive(n, seed, data):
    import random

    rng = random.Random(seed)
    spike, error, asked = (data.draw(st.integers(0, n - 1), label=name) for name in ("spike", "error", "asked"))
    items = [{"ts": 1_700_000_000 + 60 * i, "host": f"h{i % 5}", "id": f"evt-{seed}-{i}",
              "value": round(rng.gauss(100, 5), 3), "level": "info"} for i in range(n)]
    items[spike]["value"] = 100 + 60 * 5.0  # 60 standard deviations out
    items[error]["level"] = "error"
    query = f"what about evt-{seed}-{asked}?"
    from headroom.query.anchors import extract_anchors

    cfg = HeadroomConfig(smart_crusher=SmartCrusherConfig(lossless_min_savings=1.0))
    inp = CompressInput(text=json.dumps(items), config=cfg, counter=COUNTER, query=query, anchors=extract_anchors(query))
    result = SmartCrusher().compress(inp)
    assert result is not None and result.lossy
    kept = lossy_records(result.text)
    kept_ids = {it["id"] for it in kept}
    for i in (spike, error, asked, 0, n - 1):
        assert items[i]["id"] in kept_ids
