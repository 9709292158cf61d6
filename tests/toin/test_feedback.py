"""Retrieval feedback (ToolFeedback): a per-tool view over TOIN's shared counts.

Ported from the former ``ccr.feedback.FeedbackTracker`` tests: compressions go through a
real pipeline (the router reports each one to TOIN), retrievals through the store (TOIN
listens), so every test exercises the one learner.
"""

from __future__ import annotations

import json
import threading
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from headroom.ccr import CompressionStore
from headroom.ccr.store import query_digest
from headroom.compressors.base import Compressed
from headroom.compressors.detect import ContentType
from headroom.config import HeadroomConfig, ToinConfig
from headroom.pipeline import Pipeline
from headroom.toin import MemoryToinBackend, SQLiteToinBackend, Toin
from headroom.toin.feedback import ToolFeedback
from headroom.transforms.router import ContentRouter

CFG = HeadroomConfig(toin=ToinConfig(flush_seconds=0, refresh_seconds=0))


class Clock:
    def __init__(self, t: float = 1_000_000.0):
        self.t = t

    def __call__(self) -> float:
        return self.t


class KeepFirstLines:
    """A lossy compressor that keeps the first two lines (the original goes to CCR)."""

    name = "first_lines"

    def compress(self, inp) -> Compressed | None:
        lines = inp.text.splitlines()
        return Compressed("\n".join(lines[:2]), len(lines), 2, "head")


@pytest.fixture
def clock():
    return Clock()


@pytest.fixture
def store(clock):
    return CompressionStore(ttl_seconds=10**7, clock=clock)


def make_toin(clock, backend=None, **kw) -> Toin:
    return Toin(backend or MemoryToinBackend(), CFG.toin, wall_clock=clock, **kw)


def make_pipeline(store, toin) -> Pipeline:
    router = ContentRouter({ct: KeepFirstLines() for ct in ContentType})
    return Pipeline(CFG, store=store, toin=toin, transforms=[router])


def body(tool: str, text: str) -> dict:
    return {"model": "gpt-4o", "messages": [
        {"role": "user", "content": "go"},
        {"role": "assistant", "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": tool, "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": text},
    ]}


def compress_outputs(pipeline: Pipeline, tool: str, n: int, tag: str = "") -> list[str]:
    """Compress ``n`` distinct outputs of ``tool``; their CCR hashes."""
    hashes = []
    for i in range(n):
        text = "\n".join(f"{tool} output {tag}{i} line {j} " * 4 for j in range(40))
        r = pipeline.compress_body(body(tool, text), "openai_chat")
        (h,) = r.ccr_hashes
        hashes.append(h)
    return hashes


@pytest.fixture
def world(store, clock):
    toin = make_toin(clock)
    return make_pipeline(store, toin), ToolFeedback(toin)


def test_no_data_is_neutral(world):
    _, fb = world
    assert fb.hints() == {}
    assert fb.aggressiveness(0, 0) == pytest.approx(0.5)
    assert fb.tool("grep") is None
    assert fb.summary()["totals"] == {"tools": 0, "stored": 0, "retrieved": 0, "retrieval_events": 0, "expansions": 0}


def test_often_retrieved_tools_get_gentler_never_retrieved_harder(world, store):
    p, fb = world
    compress_outputs(p, "never_asked", 60)
    asked = compress_outputs(p, "always_asked", 30)
    sometimes = compress_outputs(p, "sometimes", 30)
    for h in asked + sometimes[:3]:
        store.retrieve(h)
    hints = fb.hints()
    assert hints["never_asked"] > 0.7
    assert hints["always_asked"] < 0.3
    assert hints["always_asked"] < hints["sometimes"] < hints["never_asked"]
    assert all(0.0 <= v <= 1.0 for v in hints.values())


def test_one_retrieval_does_not_swing_the_hint(world, store):
    p, fb = world
    (h,) = compress_outputs(p, "search", 1)
    store.retrieve(h)
    assert 0.4 <= fb.hints()["search"] < 0.5


def test_repeated_compressions_and_retrievals_of_one_output_count_once(world, store):
    p, fb = world
    text = "\n".join(f"same output line {j}" for j in range(60))
    (h,) = p.compress_body(body("logs", text), "openai_chat").ccr_hashes
    for _ in range(10):  # every later turn sends the same output again (a memo hit)
        assert p.compress_body(body("logs", text), "openai_chat").ccr_hashes == [h]
        store.retrieve(h)
    info = fb.tool("logs")
    assert info["stored"] == 1 and info["retrieved"] == 1 and info["retrieval_events"] == 10
    assert info["retrieval_rate"] == 1.0


def test_retrievals_of_outputs_compressed_elsewhere_still_count(world, store):
    _, fb = world
    # Another replica compressed this output (so this process never counted it stored).
    h = store.store("row\n" * 50, tool_name="db")
    store.retrieve(h, "id 7")
    info = fb.tool("db")
    assert info["stored"] == 1 and info["retrieved"] == 1 and info["retrieval_rate"] == 1.0
    assert info["recent_queries"] == [query_digest("id 7")]
    assert fb.hints()["db"] < 0.5


def test_a_retrieval_without_a_tool_name_is_shown_but_gives_no_hint(world, store):
    _, fb = world
    store.retrieve(store.store("x\n" * 50))
    assert fb.tool("(unknown)")["retrieved"] == 1 and "(unknown)" not in fb.hints()


def test_hints_are_cached_for_the_refresh_interval(store, clock):
    toin = make_toin(clock)
    p, fb = make_pipeline(store, toin), ToolFeedback(toin, refresh_seconds=5, background_refresh=False)
    hashes = compress_outputs(p, "api", 20)
    before = fb.hints()["api"]
    for h in hashes:
        store.retrieve(h)
    assert fb.hints()["api"] == before  # still the cached value
    clock.t += 5
    assert fb.hints()["api"] < before


def test_stale_hints_refresh_in_the_background_without_blocking(store, clock):
    toin = make_toin(clock)
    p, fb = make_pipeline(store, toin), ToolFeedback(toin, refresh_seconds=5)
    hashes = compress_outputs(p, "api", 20)
    before = fb.hints()["api"]  # first call: computed inline
    for h in hashes:
        store.retrieve(h)
    gate = threading.Event()
    read = toin.backend.tool_counts
    toin.backend.tool_counts = lambda since: (gate.wait(5), read(since))[1]  # a slow backend
    clock.t += 5
    t0 = time.perf_counter()
    assert fb.hints()["api"] == before  # answered from the cache at once
    assert fb.hints()["api"] == before  # one refresh in flight, not two
    assert time.perf_counter() - t0 < 1
    gate.set()
    fb.wait_for_refresh(5)
    assert fb.hints()["api"] < before


def test_summary_and_tool_are_always_fresh(store, clock):
    toin = make_toin(clock)
    p, fb = make_pipeline(store, toin), ToolFeedback(toin, refresh_seconds=60)
    hashes = compress_outputs(p, "api", 3)
    assert fb.hints()["api"] > 0.5
    store.retrieve(hashes[0])
    assert fb.tool("api")["retrieved"] == 1
    store.retrieve(hashes[1])
    assert fb.summary()["tools"]["api"]["retrieved"] == 2


def test_old_activity_leaves_the_window(store, clock):
    toin = make_toin(clock, feedback_window_seconds=120)
    p, fb = make_pipeline(store, toin), ToolFeedback(toin, refresh_seconds=0, background_refresh=False)
    for h in compress_outputs(p, "old", 10):
        store.retrieve(h, "which one")
    assert "old" in fb.hints()
    clock.t += 100  # counted in twelfths of the window: still inside
    assert fb.tool("old")["retrieved"] == 10
    clock.t += 21
    assert "old" not in fb.hints()
    assert fb.tool("old") is None
    # The buckets that left the window are deleted at the next write.
    compress_outputs(p, "new", 1)
    toin.flush()
    assert set(toin.backend.tool_counts(0)) == {"new"}


def test_summary_shape(world, store, clock):
    p, fb = world
    (h,) = compress_outputs(p, "search", 1)
    compress_outputs(p, "grep", 2)
    store.retrieve(h, "user_42")
    s = fb.summary()
    json.dumps(s)  # served as JSON by /v1/feedback
    assert s["totals"] == {"tools": 2, "stored": 3, "retrieved": 1, "retrieval_events": 1, "expansions": 0}
    assert set(s["tools"]) == {"search", "grep"}
    # Queries are kept as digests (issue 12): equal questions stay equal, no words are kept.
    assert s["tools"]["search"]["recent_queries"] == [query_digest("user_42")]
    assert s["tools"]["search"]["last_retrieved_at"] == clock.t
    assert s["tools"]["grep"]["aggressiveness"] > 0.5 > s["tools"]["search"]["aggressiveness"]
    assert s["refreshed_at"] == clock.t and s["window_seconds"] == 6 * 3600
    assert set(s["tools"]["grep"]) == {"tool", "stored", "retrieved", "retrieval_events", "retrieval_rate",
                                       "aggressiveness", "last_retrieved_at", "recent_queries", "expansions",
                                       "expanded_items"}


def test_recent_queries_are_the_latest_five_distinct_oldest_first(world, store, clock):
    p, fb = world
    (h,) = compress_outputs(p, "api", 1)
    for i in range(8):
        clock.t += 1
        store.retrieve(h, f"q{i % 7}")  # q0 is asked again last
    clock.t += 1
    store.retrieve(h)  # no query: moves last_retrieved_at only
    info = fb.tool("api")
    assert info["recent_queries"] == [query_digest(q) for q in ("q3", "q4", "q5", "q6", "q0")]
    assert info["last_retrieved_at"] == clock.t and info["retrieval_events"] == 9


class RecordingCompressor:
    """Records the aggressiveness the router hands it; compresses nothing."""

    name = "recording"

    def __init__(self):
        self.seen: dict[str, float] = {}

    def compress(self, inp) -> Compressed | None:
        self.seen[inp.tool_name] = inp.aggressiveness
        return None


def test_pipeline_feeds_hints_to_compressors(store, clock):
    toin = make_toin(clock)
    learn, fb = make_pipeline(store, toin), ToolFeedback(toin)
    for h in compress_outputs(learn, "fetch_docs", 30):
        store.retrieve(h)
    compress_outputs(learn, "list_files", 30)
    spy = RecordingCompressor()
    pipeline = Pipeline(CFG, store=store, toin=toin, transforms=[ContentRouter({ct: spy for ct in ContentType})],
                        feedback=fb)
    msgs = body("fetch_docs", "documentation paragraph " * 200)["messages"]
    msgs[1]["tool_calls"] += [{"id": f"c{i}", "type": "function", "function": {"name": name, "arguments": "{}"}}
                              for i, name in ((2, "list_files"), (3, "new_tool"))]
    msgs += [{"role": "tool", "tool_call_id": "c2", "content": "src/file_%d.py\n" * 300},
             {"role": "tool", "tool_call_id": "c3", "content": "fresh output words " * 200}]
    pipeline.compress_body({"model": "gpt-4o", "messages": msgs})
    assert spy.seen["fetch_docs"] == pytest.approx(fb.hints()["fetch_docs"]) and spy.seen["fetch_docs"] < 0.3
    assert spy.seen["list_files"] > 0.7
    assert spy.seen["new_tool"] == 0.5


def test_invalid_parameters_are_rejected(clock):
    toin = make_toin(clock)
    with pytest.raises(ValueError):
        ToolFeedback(toin, neutral_rate=0)
    with pytest.raises(ValueError):
        ToolFeedback(toin, prior_strength=0)
    with pytest.raises(ValueError):
        make_toin(clock, feedback_window_seconds=0)


def test_expansions_are_shown_but_do_not_change_hints(world):
    p, fb = world
    hashes = compress_outputs(p, "orders", 5)
    before = fb.hints()["orders"]
    p.toin.observe_expansion("orders", hashes[0], 3)
    p.toin.observe_expansion("orders", hashes[1], 1)
    p.toin.observe_expansion(None, "e" * 24, 2)
    info = fb.tool("orders")
    assert info["expansions"] == 2 and info["expanded_items"] == 4 and info["retrieved"] == 0
    assert fb.summary()["totals"]["expansions"] == 3
    assert fb.hints()["orders"] == before


def test_two_workers_on_one_sqlite_file_see_each_others_counts(tmp_path, clock):
    """Two processes' learners (here two Toin instances, each with its own buffer and
    connection) on one TOIN file and one CCR file: each one's view shows both."""
    ccr = str(tmp_path / "ccr.sqlite3")
    from headroom.config import CCRConfig

    workers = []
    for _ in range(2):
        store = CompressionStore.from_config(CCRConfig(backend="sqlite", sqlite_path=ccr))
        toin = Toin(SQLiteToinBackend(tmp_path / "toin.sqlite3"), ToinConfig(flush_seconds=1, refresh_seconds=0),
                    wall_clock=clock)
        workers.append((make_pipeline(store, toin), ToolFeedback(toin)))
    (a, fb_a), (b, fb_b) = workers
    mine = compress_outputs(a, "grep", 3, tag="a")
    compress_outputs(b, "grep", 2, tag="b")
    b.store.retrieve(mine[0], "needle")  # B answers a retrieval of what A compressed
    for fb in (fb_a, fb_b):
        # The other worker writes its buffer within flush_seconds, without more traffic.
        info = wait_for(lambda fb=fb: fb.tool("grep"), lambda i: i["stored"] == 5 and i["retrieval_events"] == 1)
        assert (info["stored"], info["retrieved"], info["retrieval_events"]) == (5, 1, 1)
        assert info["recent_queries"] == [query_digest("needle")]
    # Neither compressed five outputs itself; the hint both give is the five outputs'.
    assert fb_a.hints()["grep"] == fb_b.hints()["grep"] == pytest.approx(fb_a.aggressiveness(5, 1))
    for p, _ in workers:
        p.toin.close()
        p.store.close()


def wait_for(read, ok, seconds: float = 10):
    deadline = time.monotonic() + seconds
    while True:
        got = read()
        if got is not None and ok(got):
            return got
        assert time.monotonic() < deadline, f"still {got!r}"
        time.sleep(0.05)


def test_the_last_observations_of_a_burst_are_written_without_more_traffic(tmp_path):
    """An observation buffered within flush_seconds of the previous write still reaches
    the backend (and so the other workers) about flush_seconds later."""
    path = tmp_path / "toin.sqlite3"
    toin = Toin(SQLiteToinBackend(path), ToinConfig(flush_seconds=0.2))
    toin.observe_expansion("grep", "a" * 24, 1)  # due at once: written now
    toin.observe_expansion("grep", "b" * 24, 1)  # buffered
    reader = SQLiteToinBackend(path)
    wait_for(lambda: reader.tool_counts(0).get("grep", {}).get("expansions"), lambda n: n == 2)
    reader.close()
    toin.close()


@pytest.mark.redis
def test_two_replicas_on_one_redis_see_each_others_counts(redis_url, clock):
    """Two replicas (a CCR store and a Toin each) on one real redis-server."""
    from headroom.config import CCRConfig
    from headroom.toin import RedisToinBackend

    prefix = f"headroom:toin:fb{time.time_ns()}:"  # this test's own keys on the shared server
    replicas = []
    for _ in range(2):
        store = CompressionStore.from_config(CCRConfig(backend="redis", redis_url=redis_url))
        toin = Toin(RedisToinBackend(redis_url, prefix=prefix), ToinConfig(flush_seconds=1, refresh_seconds=0),
                    wall_clock=clock)
        replicas.append((make_pipeline(store, toin), ToolFeedback(toin)))
    (a, fb_a), (b, fb_b) = replicas
    asked = compress_outputs(a, "search", 4, tag="a")
    compress_outputs(b, "search", 4, tag="b")
    for h in asked[:2]:
        b.store.retrieve(h, "which host")
    a.toin.observe_expansion("search", asked[3], 2)
    for fb in (fb_a, fb_b):
        info = wait_for(lambda fb=fb: fb.tool("search"), lambda i: i["retrieval_events"] == 2 and i["expansions"] == 1)
        assert (info["stored"], info["retrieved"], info["expanded_items"]) == (8, 2, 2)
        assert info["recent_queries"] == [query_digest("which host")]
    assert fb_a.hints()["search"] == fb_b.hints()["search"] == pytest.approx(fb_a.aggressiveness(8, 2))
    for p, _ in replicas:
        p.toin.close()
        p.store.close()


def test_a_failing_backend_leaves_the_hints_and_never_breaks_compression(store, clock):
    class Broken(MemoryToinBackend):
        fail = True

        def tool_counts(self, since_bucket):
            if self.fail:
                raise ConnectionError("redis down")
            return super().tool_counts(since_bucket)

    toin = make_toin(clock, backend=Broken())
    fb = ToolFeedback(toin, refresh_seconds=5, background_refresh=False)
    p = Pipeline(CFG, store=store, toin=toin, transforms=[ContentRouter({ct: KeepFirstLines() for ct in ContentType})],
                 feedback=fb)
    compress_outputs(p, "api", 3)  # the first hints() failed inside the request: compressed anyway
    assert fb.hints() == {}  # not retried on every request
    toin.backend.fail = False
    clock.t += 5
    assert fb.hints()["api"] > 0.5
    with pytest.raises(ConnectionError):  # the admin routes say what failed
        toin.backend.fail = True
        fb.summary()


@settings(max_examples=60, deadline=None)
@given(stored=st.integers(0, 10_000), retrieved=st.integers(0, 10_000), more=st.integers(1, 100))
def test_aggressiveness_is_a_share_that_falls_with_retrievals_and_rises_with_unretrieved_outputs(
        stored, retrieved, more):
    fb = ToolFeedback(Toin(MemoryToinBackend(), CFG.toin))
    a = fb.aggressiveness(stored, retrieved)
    assert 0 < a <= 1
    assert fb.aggressiveness(stored + more, retrieved + more) < a  # more outputs, all of them retrieved
    assert fb.aggressiveness(max(stored, retrieved) + more, retrieved) > a  # more never retrieved
    assert fb.aggressiveness(0, 0) == pytest.approx(0.5)


@settings(max_examples=40, deadline=None)
@given(adds=st.lists(st.tuples(st.sampled_from(["grep", "db", "a:b"]), st.integers(0, 30),
                               st.sampled_from(["stored", "retrieved", "events"]), st.integers(1, 5)), max_size=30),
       since=st.integers(0, 31), prune=st.integers(0, 31))
def test_backends_sum_the_buckets_of_the_window(tmp_path_factory, adds, since, prune):
    expected: dict[str, dict[str, int]] = {}
    for tool, bucket, name, n in adds:
        if bucket >= max(since, prune):
            expected.setdefault(tool, {}).setdefault(name, 0)
            expected[tool][name] += n
    for backend in (MemoryToinBackend(), SQLiteToinBackend(tmp_path_factory.mktemp("b") / "t.sqlite3")):
        for tool, bucket, name, n in adds:  # one batch per add, as flushes write them
            backend.add({}, {}, tools={(tool, bucket): {name: n}})
        backend.prune_tools(prune)
        assert backend.tool_counts(since) == expected
        backend.close()
