"""One behavioural contract, every CCR backend: memory, SQLite and Redis."""

from __future__ import annotations

import pytest

from headroom.ccr import CompressionStore, Entry, MemoryBackend, SQLiteBackend


def make_entry(hash: str, at: float, *, ttl: float = 100.0, **kw) -> Entry:
    return Entry(
        hash=hash,
        original=kw.pop("original", f"original of {hash}"),
        created_at=at,
        expires_at=at + ttl,
        last_access=at,
        **kw,
    )


@pytest.fixture(params=["memory", "sqlite", pytest.param("redis", marks=pytest.mark.redis)])
def backend(request, tmp_path):
    if request.param == "memory":
        b = MemoryBackend()
    elif request.param == "sqlite":
        b = SQLiteBackend(tmp_path / "ccr.sqlite3")
    else:
        from headroom.ccr.redis_backend import RedisBackend

        b = RedisBackend(request.getfixturevalue("redis_url"), ttl_seconds=60)
    yield b
    b.close()


def test_round_trip_keeps_every_field(backend):
    e = make_entry(
        "a" * 24,
        10.0,
        original='[{"id": 1, "name": "Zoë ✓"}]\nline two',
        tool_name="search",
        compressed="short",
        original_tokens=120,
        compressed_tokens=12,
        item_count=7,
        retrieval_count=2,
        meta={"kind": "json", "n": [1, 2]},
    )
    backend.put(e)
    assert backend.get(e.hash) == e


def test_lone_surrogates_round_trip(backend):
    # Valid in JSON (a cut emoji), invalid in UTF-8: the store must keep it, not raise (issue 12, F2).
    e = make_entry("c" * 24, 10.0, original="cut \ud83d here", compressed="also \udc00")
    backend.put(e)
    assert backend.get(e.hash) == e


def test_optional_fields_stay_none(backend):
    e = make_entry("b" * 24, 10.0)
    backend.put(e)
    got = backend.get(e.hash)
    assert got is not None and got.tool_name is None and got.compressed is None and got.meta == {}


def test_unknown_hash_is_none(backend):
    assert backend.get("0" * 24) is None


def test_put_replaces_the_whole_entry(backend):
    backend.put(make_entry("c" * 24, 10.0, tool_name="grep", compressed="x"))
    backend.put(make_entry("c" * 24, 20.0, original="new"))
    got = backend.get("c" * 24)
    assert got.original == "new" and got.tool_name is None and got.compressed is None
    assert got.last_access == 20.0
    assert backend.count() == 1


def test_touch_updates_access_and_counts_retrievals(backend):
    backend.put(make_entry("d" * 24, 10.0))
    backend.touch("d" * 24, 15.5)
    backend.touch("d" * 24, 16.5)
    got = backend.get("d" * 24)
    assert got.last_access == 16.5 and got.retrieval_count == 2


def test_touch_of_unknown_hash_creates_nothing(backend):
    backend.touch("e" * 24, 5.0)
    assert backend.get("e" * 24) is None
    assert backend.count() == 0


def test_extend_moves_expiry_and_access_but_keeps_the_rest(backend):
    e = make_entry("e" * 24, 10.0, ttl=5.0, compressed="c", retrieval_count=1, meta={"memo": {"key": ["t"]}})
    backend.put(e)
    assert backend.extend(e.hash, 500.0, 400.0) is True
    got = backend.get(e.hash)
    assert (got.expires_at, got.last_access) == (500.0, 400.0)
    assert (got.original, got.compressed, got.retrieval_count, got.meta, got.created_at) == (
        e.original, "c", 1, {"memo": {"key": ["t"]}}, 10.0)
    assert backend.purge_expired(450.0) == 0 and backend.get(e.hash) is not None


def test_extend_of_unknown_hash_creates_nothing(backend):
    assert backend.extend("f" * 24, 500.0, 400.0) is False
    assert backend.get("f" * 24) is None and backend.count() == 0


def test_store_refresh_extends_or_stores(backend):
    now = [1000.0]
    store = CompressionStore(backend, ttl_seconds=60, clock=lambda: now[0])
    h = store.refresh("the original", compressed="c")  # nothing there yet: stored
    assert store.retrieve(h, record=False).content == "the original"
    now[0] += 50
    assert store.refresh("the original", known_hash=h) == h  # extended, not rewritten
    now[0] += 50  # 100 s after the first write, 50 s after the refresh
    assert store.get(h) is not None and store.get(h).compressed == "c"
    assert store.stats()["stored"] == 1


def test_delete(backend):
    backend.put(make_entry("f" * 24, 1.0))
    backend.delete("f" * 24)
    backend.delete("f" * 24)  # deleting twice is fine
    assert backend.get("f" * 24) is None and backend.count() == 0


def test_evict_lru_drops_least_recently_accessed(backend):
    for i, h in enumerate(["1" * 24, "2" * 24, "3" * 24, "4" * 24]):
        backend.put(make_entry(h, 10.0 + i))
    backend.touch("1" * 24, 20.0)  # the oldest becomes the most recent
    assert backend.evict_lru(2) == 2
    assert backend.count() == 2
    assert backend.get("2" * 24) is None and backend.get("3" * 24) is None
    assert backend.get("1" * 24) is not None and backend.get("4" * 24) is not None
    assert backend.evict_lru(5) == 0


def test_purge_expired_uses_the_given_clock(backend):
    backend.put(make_entry("5" * 24, 0.0, ttl=10))
    backend.put(make_entry("6" * 24, 0.0, ttl=50))
    assert backend.purge_expired(10.0) == 1
    assert backend.get("5" * 24) is None and backend.get("6" * 24) is not None
    assert backend.count() == 1


def test_compression_store_round_trip_and_search(backend):
    now = [1000.0]
    store = CompressionStore(backend, max_entries=3, ttl_seconds=60, clock=lambda: now[0])
    original = "\n".join(f"row {i} user_{i}" for i in range(30))
    h = store.store(original, tool_name="db_query", compressed="…")
    assert store.retrieve(h).content == original
    assert store.search(h, "user_17") == ["row 17 user_17"]
    assert store.get(h).retrieval_count == 1  # search() reads, it does not count
    for i in range(4):
        now[0] += 1
        store.store(f"other {i}")
    assert backend.count() == 3  # capacity enforced through the backend's LRU
    now[0] += 61
    assert store.retrieve(store.store("fresh")) is not None
    assert store.get(content_hash_of("other 3")) is None  # expired by the store clock


def content_hash_of(text: str) -> str:
    from headroom.formats import content_hash

    return content_hash(text)
