"""FeedbackTracker: retrieval rates per tool become compression hints."""

from __future__ import annotations

import json
import threading
import time

import pytest

from headroom.ccr import CompressionStore, RetrievalEvent
from headroom.ccr.feedback import FeedbackTracker
from headroom.ccr.store import query_digest
from headroom.compressors.base import Compressed
from headroom.compressors.detect import ContentType
from headroom.config import HeadroomConfig
from headroom.pipeline import Pipeline
from headroom.transforms.router import ContentRouter


class Clock:
    def __init__(self, t: float = 1_000_000.0):
        self.t = t

    def __call__(self) -> float:
        return self.t


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def store(clock):
    return CompressionStore(ttl_seconds=3600, clock=clock)


def store_outputs(store, tool: str, n: int, tag: str = "") -> list[str]:
    return [store.store(f"{tool} output {tag}{i} " * 20, tool_name=tool) for i in range(n)]


def test_no_data_is_neutral(store):
    fb = FeedbackTracker(store)
    assert fb.hints() == {}
    assert fb.aggressiveness(0, 0) == pytest.approx(0.5)
    assert fb.tool("grep") is None
    assert fb.summary()["totals"] == {
        "tools": 0,
        "stored": 0,
        "retrieved": 0,
        "retrieval_events": 0,
        "expansions": 0,
    }


def test_often_retrieved_tools_get_gentler_never_retrieved_harder(store, clock):
    fb = FeedbackTracker(store, clock=clock)
    store_outputs(store, "never_asked", 60)
    asked = store_outputs(store, "always_asked", 30)
    sometimes = store_outputs(store, "sometimes", 30)
    for h in asked + sometimes[:3]:
        store.retrieve(h)
    hints = fb.hints()
    assert hints["never_asked"] > 0.7
    assert hints["always_asked"] < 0.3
    assert hints["always_asked"] < hints["sometimes"] < hints["never_asked"]
    assert all(0.0 <= v <= 1.0 for v in hints.values())


def test_one_retrieval_does_not_swing_the_hint(store, clock):
    fb = FeedbackTracker(store, clock=clock)
    (h,) = store_outputs(store, "search", 1)
    store.retrieve(h)
    assert 0.4 <= fb.hints()["search"] < 0.5


def test_repeated_stores_and_retrievals_of_one_output_count_once(store, clock):
    fb = FeedbackTracker(store, clock=clock)
    h = store.store("same output " * 30, tool_name="logs")
    for _ in range(10):  # the router re-stores a memoised output every turn (TTL refresh)
        store.store("same output " * 30, tool_name="logs")
        store.retrieve(h)
    info = fb.tool("logs")
    assert info["stored"] == 1 and info["retrieved"] == 1 and info["retrieval_events"] == 10
    assert info["retrieval_rate"] == 1.0


def test_retrievals_of_outputs_stored_elsewhere_still_count(store, clock):
    fb = FeedbackTracker(store, clock=clock)
    # Another replica stored and retrieved this hash; only the shared log shows it.
    store.backend.log_retrieval(RetrievalEvent("f" * 24, "db", "id 7", clock()))
    info = fb.tool("db")
    assert info["stored"] == 1 and info["retrieved"] == 1 and info["retrieval_rate"] == 1.0
    assert info["recent_queries"] == ["id 7"]
    assert fb.hints()["db"] < 0.5


def test_hints_are_cached_for_the_refresh_interval(store, clock):
    fb = FeedbackTracker(store, refresh_seconds=5, background_refresh=False, clock=clock)
    hashes = store_outputs(store, "api", 20)
    before = fb.hints()["api"]
    for h in hashes:
        store.retrieve(h)
    assert fb.hints()["api"] == before  # still the cached value
    clock.t += 5
    assert fb.hints()["api"] < before


def test_stale_hints_refresh_in_the_background_without_blocking(store, clock):
    fb = FeedbackTracker(store, refresh_seconds=5, clock=clock)
    hashes = store_outputs(store, "api", 20)
    before = fb.hints()["api"]  # first call: computed inline
    for h in hashes:
        store.retrieve(h)
    gate = threading.Event()
    read_log = store.retrievals
    store.retrievals = lambda since=0.0: (gate.wait(5), read_log(since))[1]  # a slow log
    clock.t += 5
    t0 = time.perf_counter()
    assert fb.hints()["api"] == before  # answered from the cache at once
    assert fb.hints()["api"] == before  # one refresh in flight, not two
    assert time.perf_counter() - t0 < 1
    gate.set()
    fb.wait_for_refresh(5)
    assert fb.hints()["api"] < before


def test_summary_and_tool_are_always_fresh(store, clock):
    fb = FeedbackTracker(store, refresh_seconds=60, clock=clock)
    hashes = store_outputs(store, "api", 3)
    assert fb.hints()["api"] > 0.5
    store.retrieve(hashes[0])
    assert fb.tool("api")["retrieved"] == 1
    store.retrieve(hashes[1])
    assert fb.summary()["tools"]["api"]["retrieved"] == 2


def test_old_activity_leaves_the_window(store, clock):
    fb = FeedbackTracker(
        store, window_seconds=100, refresh_seconds=0, background_refresh=False, clock=clock
    )
    for h in store_outputs(store, "old", 10):
        store.retrieve(h)
    assert "old" in fb.hints()
    clock.t += 101
    assert "old" not in fb.hints()
    assert fb.tool("old") is None


def test_summary_shape(store, clock):
    fb = FeedbackTracker(store, clock=clock)
    (h,) = store_outputs(store, "search", 1)
    store_outputs(store, "grep", 2)
    store.retrieve(h, "user_42")
    s = fb.summary()
    json.dumps(s)  # served as JSON by /v1/feedback
    assert s["totals"] == {
        "tools": 2,
        "stored": 3,
        "retrieved": 1,
        "retrieval_events": 1,
        "expansions": 0,
    }
    assert set(s["tools"]) == {"search", "grep"}
    # Queries are logged as digests (issue 12): equal questions stay equal, no words are kept.
    assert s["tools"]["search"]["recent_queries"] == [query_digest("user_42")]
    assert s["tools"]["grep"]["aggressiveness"] > 0.5 > s["tools"]["search"]["aggressiveness"]
    assert s["refreshed_at"] == clock.t


class RecordingCompressor:
    """Records the aggressiveness the router hands it; compresses nothing."""

    name = "recording"

    def __init__(self):
        self.seen: dict[str, float] = {}

    def compress(self, inp) -> Compressed | None:
        self.seen[inp.tool_name] = inp.aggressiveness
        return None


def test_pipeline_feeds_hints_to_compressors(clock):
    store = CompressionStore(clock=clock)
    fb = FeedbackTracker(store, clock=clock)
    for h in store_outputs(store, "fetch_docs", 30):
        store.retrieve(h)
    store_outputs(store, "list_files", 30)
    spy = RecordingCompressor()
    router = ContentRouter({ct: spy for ct in ContentType})
    pipeline = Pipeline(HeadroomConfig(), store=store, transforms=[router], hints=fb.hints)
    body = {
        "model": "gpt-4o",
        "messages": [
            {"role": "user", "content": "go"},
            {
                "role": "assistant",
                "tool_calls": [
                    {
                        "id": "c1",
                        "type": "function",
                        "function": {"name": "fetch_docs", "arguments": "{}"},
                    },
                    {
                        "id": "c2",
                        "type": "function",
                        "function": {"name": "list_files", "arguments": "{}"},
                    },
                    {
                        "id": "c3",
                        "type": "function",
                        "function": {"name": "new_tool", "arguments": "{}"},
                    },
                ],
            },
            {"role": "tool", "tool_call_id": "c1", "content": "documentation paragraph " * 200},
            {"role": "tool", "tool_call_id": "c2", "content": "src/file_%d.py\n" * 300},
            {"role": "tool", "tool_call_id": "c3", "content": "fresh output words " * 200},
        ],
    }
    pipeline.compress_body(body)
    assert (
        spy.seen["fetch_docs"] == pytest.approx(fb.hints()["fetch_docs"])
        and spy.seen["fetch_docs"] < 0.3
    )
    assert spy.seen["list_files"] > 0.7
    assert spy.seen["new_tool"] == 0.5


def test_invalid_parameters_are_rejected(store):
    with pytest.raises(ValueError):
        FeedbackTracker(store, neutral_rate=0)
    with pytest.raises(ValueError):
        FeedbackTracker(store, prior_strength=0)


def test_expansions_are_shown_but_do_not_change_hints(store, clock):
    fb = FeedbackTracker(store, clock=clock)
    hashes = store_outputs(store, "orders", 5)
    before = fb.hints()["orders"]
    fb.record_expansion("orders", hashes[0], 3)
    fb.record_expansion("orders", hashes[1], 1)
    fb.record_expansion(None, "e" * 24, 2)
    info = fb.tool("orders")
    assert info["expansions"] == 2 and info["expanded_items"] == 4
    assert fb.summary()["totals"]["expansions"] == 3
    assert fb.hints()["orders"] == before


def test_an_output_stored_again_stays_in_the_window(store, clock):
    fb = FeedbackTracker(
        store, window_seconds=100, refresh_seconds=0, background_refresh=False, clock=clock
    )
    store.store("memoised output " * 20, tool_name="memo_tool")
    clock.t += 60
    store.store("memoised output " * 20, tool_name="memo_tool")  # the router's TTL refresh
    clock.t += 60
    assert fb.tool("memo_tool")["stored"] == 1
