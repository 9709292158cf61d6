"""CCR store: exact retrieval, TTL, LRU, search, stats, on memory and SQLite."""

from __future__ import annotations

import json
import threading

import pytest

from headroom.ccr import (
    CompressionStore,
    MemoryBackend,
    SQLiteBackend,
    find_hashes,
    format_marker,
    has_marker,
)
from headroom.config import CCRConfig
from headroom.formats import content_hash


class Clock:
    def __init__(self):
        self.t = 1000.0

    def __call__(self):
        return self.t


@pytest.fixture(params=["memory", "sqlite"])
def backend(request, tmp_path):
    return MemoryBackend() if request.param == "memory" else SQLiteBackend(tmp_path / "ccr.sqlite3")


def test_hash_is_sha256_prefix():
    import hashlib

    assert content_hash("abc") == hashlib.sha256(b"abc").hexdigest()[:24]


def test_store_and_retrieve_exact(backend):
    s = CompressionStore(backend)
    original = json.dumps([{"id": i, "note": "ünïcødé \u2028 \x00"} for i in range(50)])
    h = s.store(original, tool_name="db")
    got = s.retrieve(h)
    assert got.content == original and got.full and got.tool_name == "db"
    assert s.retrieve("0" * 24) is None


def test_ttl_expiry_and_refresh(backend):
    clock = Clock()
    s = CompressionStore(backend, ttl_seconds=60, clock=clock)
    h = s.store("payload")
    clock.t += 59
    assert s.retrieve(h) is not None
    s.store("payload")  # storing again refreshes the TTL
    clock.t += 59
    assert s.retrieve(h) is not None
    clock.t += 2
    assert s.retrieve(h) is None


def test_lru_capacity(backend):
    clock = Clock()
    s = CompressionStore(backend, max_entries=3, clock=clock)
    hs = []
    for i in range(3):
        clock.t += 1
        hs.append(s.store(f"item {i}"))
    clock.t += 1
    s.retrieve(hs[0])  # touch the oldest so it survives
    clock.t += 1
    s.store("item 3")
    assert s.retrieve(hs[0]) is not None
    assert s.retrieve(hs[1]) is None
    assert backend.count() == 3


def test_search_within_original(backend):
    s = CompressionStore(backend)
    items = [{"id": f"user_{i}", "status": "active"} for i in range(100)]
    items[42]["status"] = "suspended"
    h = s.store(json.dumps(items))
    hits = s.search(h, "user_42 suspended")
    assert hits and json.loads(hits[0])["id"] == "user_42"
    partial = s.retrieve(h, query="user_42")
    assert not partial.full and "user_42" in partial.content


def test_retrieval_counts_and_stats(backend):
    s = CompressionStore(backend)
    h = s.store("x" * 100, tool_name="logs")
    s.retrieve(h, query="x")
    s.retrieve("f" * 24)
    assert s.get(h).retrieval_count == 1
    st = s.stats()
    assert st["entries"] == 1 and st["retrieve_hits"] == 1 and st["retrieve_misses"] == 1


def test_sqlite_survives_restart(tmp_path):
    path = tmp_path / "ccr.sqlite3"
    s1 = CompressionStore(SQLiteBackend(path))
    h = s1.store("durable original")
    s1.close()
    s2 = CompressionStore(SQLiteBackend(path))
    assert s2.retrieve(h).content == "durable original"


def test_thread_safety(backend):
    s = CompressionStore(backend, max_entries=10_000)
    errors = []

    def work(k):
        try:
            for i in range(50):
                h = s.store(f"{k}-{i}")
                assert s.retrieve(h).content == f"{k}-{i}"
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=work, args=(k,)) for k in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors and backend.count() == 400


def test_marker_format_and_parsing():
    h = content_hash("x")
    m = format_marker(1000, 15, h, 1800, "2 errors [kept]")
    assert m == f"[1000 items compressed to 15. 2 errors (kept). Retrieve more: hash={h}. Expires in 30m.]"
    assert find_hashes(f"a {m} b {m}") == [h] and has_marker(m)
    assert find_hashes(f"…[9 chars elided; headroom_retrieve hash={h}]…") == [h]
    assert not has_marker("no marker here hash=abc")


def test_ttl_from_env(monkeypatch):
    monkeypatch.setenv("HEADROOM_CCR_TTL_SECONDS", "7200")
    assert CCRConfig().store_ttl_seconds == 7200
    monkeypatch.setenv("HEADROOM_CCR_TTL_SECONDS", "soon")
    with pytest.raises(ValueError, match="HEADROOM_CCR_TTL_SECONDS"):
        CCRConfig()


def test_invalid_store_settings():
    with pytest.raises(ValueError):
        CompressionStore(max_entries=0)
    with pytest.raises(ValueError):
        CompressionStore(ttl_seconds=0)
