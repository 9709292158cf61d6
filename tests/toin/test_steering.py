"""Hints change what stays in view, and say so; without confidence nothing changes."""

from __future__ import annotations

import json

from headroom.ccr.store import CompressionStore
from headroom.compressors.base import CompressInput
from headroom.compressors.logs import LogCompressor
from headroom.compressors.smart_crusher import SmartCrusher
from headroom.config import HeadroomConfig, ToinConfig
from headroom.formats import parse
from headroom.pipeline import Pipeline
from headroom.toin import MemoryToinBackend, Toin, ToinHints
from headroom.toin.signals import unit_signals
from headroom.toin.steer import budget, hinted_items
from headroom.tokens import counter_for
from headroom.transforms.base import TransformContext
from headroom.transforms.context_units import group_units
from headroom.transforms.intelligent_context import IntelligentContext

from .test_wiring import body


def orders(n: int = 200, offset: int = 0) -> list[dict]:
    # Amounts climb gently (no outlier), one order in 50 is "held" (rare), regions cycle.
    return [{"id": f"ORD-{offset + i}", "amount": 100 + ((i * 37) % 97), "state": "held" if i % 50 == 7 else "open",
             "region": ["eu", "us", "ap", "sa"][i % 4], "note": f"order number {offset + i} placed online"}
            for i in range(n)]


def crush(items: list[dict], hints=None):
    cfg = HeadroomConfig()
    text = json.dumps(items, indent=1)
    return SmartCrusher().compress(CompressInput(text=text, config=cfg, counter=counter_for("gpt-4o"), toin=hints))


def test_hinted_items():
    items = orders()
    h = ToinHints("s", preserve={"amount": "metric", "region": "categorical_status", "state": "error_indicator"},
                  anomaly_fields=("state",))
    got = hinted_items(items, h)
    amounts = [it["amount"] for it in items]
    assert amounts.index(max(amounts)) in got and amounts.index(min(amounts)) in got
    assert {items[i]["region"] for i in got} == {"eu", "us", "ap", "sa"}
    assert {i for i, it in enumerate(items) if it["state"] == "held"} <= got
    assert hinted_items(items, None) == set() and hinted_items(items, ToinHints("s", budget=30)) == set()


def test_smart_crusher_keeps_hinted_items_in_view():
    items = orders()
    top = max(items, key=lambda it: it["amount"])
    plain = crush(items)
    assert top["id"] not in plain.text  # the default plan does not keep it
    steered = crush(items, ToinHints("s", preserve={"amount": "metric"}, budget=20))
    assert top["id"] in steered.text and steered.lossy
    assert steered.items_after > plain.items_after


def test_budget_only_grows():
    assert budget(None, 40) == 40
    assert budget(ToinHints("s", budget=90), 40) == 90
    assert budget(ToinHints("s", budget=10), 40) == 40


def test_log_compressor_reads_the_budget():
    # 144 distinct warning templates (word pairs, no digits): the line cap is what binds.
    words = ["alpha", "bravo", "charlie", "delta", "echo", "foxtrot", "golf", "hotel", "india", "juliet", "kilo", "lima"]
    lines = [f"2025-01-01T00:00:{i % 60:02d} WARN {words[i % 12]} {words[(i // 12) % 12]} stage slow"
             for i in range(144)]
    cfg = HeadroomConfig()
    inp = CompressInput(text="\n".join(lines), config=cfg, counter=counter_for("gpt-4o"))
    base = LogCompressor().compress(inp)
    inp.toin = ToinHints("s", budget=base.items_after + 40)
    more = LogCompressor().compress(inp)
    assert base is not None and more is not None and more.items_after > base.items_after


def learned_pipeline(**cfg) -> Pipeline:
    config = HeadroomConfig(toin=ToinConfig(flush_seconds=0, refresh_seconds=0, **cfg))
    return Pipeline(config, store=CompressionStore(), toin=Toin(MemoryToinBackend(), config.toin))


def compressed(result):
    return [d for d in result.decisions if d.transform == "content_router" and d.action in ("compressed", "kept")]


def test_pipeline_learns_a_field_and_then_steers_with_the_reason_shown():
    p = learned_pipeline(min_observations=5)
    for k in range(5):
        r = p.compress_body(body(json.dumps(orders(200, offset=1000 * k), indent=1), "summary"), "openai_chat")
        p.compress_body(body(json.dumps(orders(200, offset=1000 * k), indent=1), "which has the largest amount?"),
                        "openai_chat")
        assert "toin" not in compressed(r)[0].reason  # still learning: nothing changes
    items = orders(200, offset=9000)
    top = max(items, key=lambda it: it["amount"])
    r = p.compress_body(body(json.dumps(items, indent=1), "summary"), "openai_chat")
    (d,) = compressed(r)
    assert d.action == "compressed" and "toin" in d.reason and "preserve amount(metric)" in d.reason
    assert top["id"] in r.body["messages"][2]["content"]


def test_outputs_retrieved_whole_stop_being_compressed_except_probes():
    p = learned_pipeline(min_observations=3, probe_every=1000)
    for k in range(3):
        r = p.compress_body(body(json.dumps(orders(200, offset=1000 * k), indent=1), "summary"), "openai_chat")
        p.store.retrieve(r.ccr_hashes[0])
    r = p.compress_body(body(json.dumps(orders(200, offset=7000), indent=1), "summary"), "openai_chat")
    (d,) = compressed(r)
    assert d.action == "kept" and "skip (retrieved whole 100% of 3)" in d.reason


def test_intelligent_context_reads_learned_signals():
    p = learned_pipeline(min_observations=2)
    for k in range(4):
        r = p.compress_body(body(json.dumps(orders(200, offset=1000 * k), indent=1), f"any held state {k}?"),
                            "openai_chat")
        if k % 2:
            p.store.retrieve(r.ccr_hashes[0], "held")
    text = json.dumps(orders(200, offset=50_000))
    sig = unit_signals(p.toin, text, "json_array", "list_orders")
    assert sig.importance == 0.5
    assert sig.error == 1.0  # "state" learned as an error indicator; this output has a rare "held"
    calm = [{**it, "state": "open"} for it in orders(200, offset=60_000)]
    assert unit_signals(p.toin, json.dumps(calm), "json_array", "list_orders").error == 0.0
    assert unit_signals(None, text, "json_array", "list_orders").importance is None
    # In the transform: the decision says TOIN supplied the factors.
    conv = parse(body(text, "which order is held?"), "openai_chat")
    ctx = TransformContext(config=p.config, counter=counter_for("gpt-4o"), store=p.store, toin=p.toin)
    IntelligentContext().score(conv, ctx, group_units(conv, ctx))
    assert "TOIN importance/error learned for 1 units" in ctx.decisions[-1].reason
