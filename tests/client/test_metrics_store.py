"""MetricsStore: SQLite and JSONL backends behave the same; queries filter; summaries add up."""

from __future__ import annotations

import sqlite3
import threading
from datetime import datetime, timezone

import pytest

from headroom.metrics import MetricsStore, RequestMetrics, summarize, timeline
from headroom.pipeline import PipelineResult
from headroom.transforms.base import Decision


@pytest.fixture(params=["sqlite", "jsonl", "memory"])
def store(request, tmp_path):
    path = {"sqlite": tmp_path / "m.db", "jsonl": tmp_path / "m.jsonl", "memory": ":memory:"}[request.param]
    s = MetricsStore(path)
    yield s
    s.close()


def _row(ts, model="gpt-4o", mode="optimize", before=1000, after=400, **kw):
    return RequestMetrics(timestamp=ts, model=model, mode=mode, tokens_before=before, tokens_after=after,
                          tokens_saved=before - after, **kw)


def test_round_trip_keeps_every_column(store):
    row = _row(100.0, provider="openai", transforms_applied=["router:json", "tool_args"],
               transform_savings={"router:json": 550, "tool_args": 50}, tool_savings={"search": 600},
               tool_names=["search"], cached_tokens=128, output_tokens=33, latency_ms=12.5,
               compression_ms=1.25, stream=True, status_code=200, ccr_hashes=["a" * 24],
               retrievals=1, cost_saved_usd=0.0015, error=None)
    store.record(row)
    (back,) = store.query()
    assert back == row


def test_query_filters_by_time_model_mode_and_limit(store):
    for i in range(10):
        store.record(_row(1000.0 + i, model="gpt-4o" if i % 2 else "claude-sonnet-4", mode="audit" if i == 3 else "optimize"))
    assert [r.timestamp for r in store.query(since=1005)] == [1005, 1006, 1007, 1008, 1009]
    assert [r.timestamp for r in store.query(until=1002)] == [1000, 1001]
    assert {r.model for r in store.query(model="gpt-4o")} == {"gpt-4o"}
    assert len(store.query(model="gpt-4o")) == 5
    assert [r.timestamp for r in store.query(mode="audit")] == [1003]
    # limit keeps the latest rows, still oldest first
    assert [r.timestamp for r in store.query(limit=3)] == [1007, 1008, 1009]
    aware = datetime.fromtimestamp(1008, tz=timezone.utc)
    assert [r.timestamp for r in store.query(since=aware)] == [1008, 1009]
    with pytest.raises(ValueError, match="timezone-aware"):
        store.query(since=datetime(2026, 1, 1))


def test_record_accepts_dicts_and_counts(store):
    store.record({"model": "gpt-4o", "tokens_before": 10, "tokens_after": 10, "tokens_saved": 0})
    store.record(_row(5.0))
    assert store.count() == 2


def test_summary_totals_by_model_mode_transform_and_tool(store):
    store.record(_row(1.0, transform_savings={"router:json": 600}, transforms_applied=["router:json"],
                      tool_savings={"search": 600}, tool_names=["search"], ccr_hashes=["b" * 24], retrievals=1))
    store.record(_row(2.0, model="claude-sonnet-4", before=500, after=500))
    store.record(_row(3.0, mode="audit", before=800, after=200, transform_savings={"router:log": 600}))
    s = store.summary()
    t = s["totals"]
    assert t["requests"] == 3
    assert t["tokens_before"] == 2300
    assert t["tokens_saved"] == 600  # only optimize rows really saved
    assert t["potential_saved"] == 600  # the audit row
    assert t["savings_pct"] == round(100 * 600 / 2300, 2)
    assert t["retrieval_rate"] == 1.0
    assert s["by_model"]["gpt-4o"]["tokens_saved"] == 600
    assert s["by_model"]["claude-sonnet-4"]["tokens_saved"] == 0
    assert set(s["by_mode"]) == {"optimize", "audit"}
    assert s["by_transform"]["router:json"] == {"requests": 1, "tokens_saved": 600, "potential_saved": 0}
    # The audit row's transform saving is potential, never saved (issue 29).
    assert s["by_transform"]["router:log"] == {"requests": 0, "tokens_saved": 0, "potential_saved": 600}
    assert s["by_tool"]["search"]["tokens_saved"] == 600
    assert store.summary(model="claude-sonnet-4")["totals"]["requests"] == 1


def test_concurrent_records_are_all_kept(store):
    def work(k):
        for i in range(50):
            store.record(_row(k * 1000 + i))

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert store.count() == 200


def test_sqlite_database_from_older_version_gains_new_columns(tmp_path):
    path = tmp_path / "old.db"
    con = sqlite3.connect(path)
    con.execute("CREATE TABLE requests (id INTEGER PRIMARY KEY AUTOINCREMENT, timestamp REAL, model TEXT, "
                "mode TEXT, tokens_before INTEGER, tokens_after INTEGER, tokens_saved INTEGER)")
    con.execute("INSERT INTO requests (timestamp, model, mode, tokens_before, tokens_after, tokens_saved) "
                "VALUES (1.0, 'gpt-4o', 'optimize', 100, 40, 60)")
    con.commit()
    con.close()
    with MetricsStore(path) as s:
        (old,) = s.query()
        assert old.tokens_saved == 60 and old.transforms_applied == [] and old.stream is False
        s.record(_row(2.0, tool_names=["grep"]))
        assert s.query()[-1].tool_names == ["grep"]


def test_jsonl_survives_a_torn_last_line(tmp_path):
    path = tmp_path / "m.jsonl"
    s = MetricsStore(path)
    s.record(_row(1.0))
    with open(path, "a") as f:
        f.write('{"timestamp": 2.0, "model": "gp')
    assert [r.timestamp for r in s.query()] == [1.0]


def test_from_pipeline_sums_decisions_per_transform_and_tool():
    decisions = [
        Decision("router", "compressed", "json", tool_name="search", strategy="smart_crusher", tokens_before=900, tokens_after=100, ccr_hash="c" * 24),
        Decision("router", "kept", "too small", tool_name="ls", tokens_before=50, tokens_after=50),
        Decision("tool_args", "shrunk", "old call", tool_name="write", tokens_before=300, tokens_after=120),
    ]
    result = PipelineResult(None, {}, "openai_chat", 1500, 520, decisions, 3.14159)
    row = RequestMetrics.from_pipeline(result, mode="optimize", model="gpt-4o", provider="openai")
    assert row.transform_savings == {"router:smart_crusher": 800, "tool_args": 180}
    assert row.tool_savings == {"search": 800, "write": 180}
    assert row.tool_names == ["search", "ls", "write"]
    assert (row.tokens_before, row.tokens_after, row.tokens_saved) == (1500, 520, 980)
    assert row.model == "gpt-4o" and row.ccr_hashes == ["c" * 24]
    with pytest.raises(TypeError, match="no column"):
        RequestMetrics.from_pipeline(result, bogus=1)


def test_timeline_buckets_by_hour():
    rows = [_row(3600 * 5 + 10), _row(3600 * 5 + 20), _row(3600 * 7, mode="audit")]
    tl = timeline(rows, 3600)
    assert [b["start"] for b in tl] == [18000, 25200]
    assert tl[0]["tokens_saved"] == 1200 and tl[1]["tokens_saved"] == 0
    assert summarize([])["totals"]["requests"] == 0


def test_max_rows_keeps_only_the_newest(tmp_path):
    s = MetricsStore(":memory:", max_rows=100)
    for i in range(350):
        s.record(_row(float(i)))
    assert s.count() == 100
    assert [r.timestamp for r in s.query(limit=2)] == [348.0, 349.0]
    assert s.query()[0].timestamp == 250.0
    with pytest.raises(ValueError):
        MetricsStore(tmp_path / "m.jsonl", max_rows=10)
