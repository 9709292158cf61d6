"""End to end through ``headroom.compress()``: a 1 000-item metrics tool output in an
OpenAI chat conversation; the spike and the id the user asks about survive, and the
marker's hash gives back the exact original through ``headroom.retrieve()``."""

from __future__ import annotations

import json
import random

import headroom
from headroom.api import default_store
from headroom.ccr.markers import MARKER_RE
from headroom.config import HeadroomConfig
from headroom.pipeline import Pipeline
from headroom.compressors.detect import ContentType
from headroom.transforms.router import ContentRouter
from headroom.compressors.smart_crusher import SmartCrusher


def metrics_output() -> str:
    rng = random.Random(11)
    items = [
        {"timestamp": f"2024-06-01T{(i // 60) % 24:02d}:{i % 60:02d}:00Z", "host": f"db-{i % 4}",
         "series_id": f"ser-{7000 + i}", "latency_ms": round(12 + rng.gauss(0, 1.5), 2), "region": "eu-west-1"}
        for i in range(1000)
    ]
    items[612]["latency_ms"] = 987.4  # the planted spike
    return json.dumps(items, indent=2)


def test_compress_keeps_spike_and_asked_id_and_retrieves_original():
    original = metrics_output()
    messages = [
        {"role": "system", "content": "You are an SRE assistant."},
        {"role": "user", "content": "Pull the latency metrics."},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "get_metrics", "arguments": "{\"window\": \"24h\"}"}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": original},
        {"role": "user", "content": "What was the latency of series ser-7333, and was there any spike?"},
    ]
    # Only the JSON compressor is wired in, so this test does not depend on the others.
    # Lossless rendering is switched off to exercise the lossy path + CCR round trip.
    config = HeadroomConfig(smart_crusher={"lossless_min_savings": 1.0})
    crusher = SmartCrusher()
    pipeline = Pipeline(config, store=default_store(),
                        transforms=[ContentRouter({ContentType.JSON_ARRAY: crusher, ContentType.JSON_OBJECT: crusher})])
    result = headroom.compress(messages, model="gpt-4o", config=config, pipeline=pipeline)

    out = result.messages[3]["content"]
    assert out != original
    body, _, marker_line = out.rpartition("\n")
    marker = MARKER_RE.fullmatch(marker_line)
    assert marker is not None, marker_line
    data = json.loads(body)  # the crushed part stays valid JSON
    kept = data["items"] if isinstance(data, dict) else data
    assert any(it["latency_ms"] == 987.4 for it in kept)
    assert any(it["series_id"] == "ser-7333" for it in kept)
    assert int(marker["n"]) == 1000 and int(marker["m"]) == len(kept)
    assert result.tokens_after < 0.3 * result.tokens_before

    got = headroom.retrieve(marker["hash"])
    assert got is not None and got.full and got.content == original
    # Everything else is untouched.
    assert result.messages[4] == messages[4] and result.messages[2] == messages[2]


def test_compress_lossless_table_needs_no_marker():
    original = metrics_output()
    messages = [
        {"role": "user", "content": "metrics please"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c", "type": "function", "function": {"name": "get_metrics", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c", "content": original},
    ]
    crusher = SmartCrusher()
    # A threshold the table reaches on this output (the default asks for 70 %).
    pipeline = Pipeline(HeadroomConfig(smart_crusher={"lossless_min_savings": 0.3}), store=default_store(),
                        transforms=[ContentRouter({ContentType.JSON_ARRAY: crusher})])
    result = headroom.compress(messages, pipeline=pipeline)
    out = result.messages[2]["content"]
    assert out.startswith("@table rows=1000") and MARKER_RE.search(out) is None
    from headroom.compressors.smart_crusher import parse_table
    assert parse_table(out) == json.loads(original)
