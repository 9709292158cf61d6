"""Every backend adds counters atomically, keeps text per signature and one hashing key."""

from __future__ import annotations

import threading

import pytest

from headroom.config import CCRConfig, HeadroomConfig, ToinConfig
from headroom.toin.backends import (
    MemoryToinBackend,
    RedisToinBackend,
    SQLiteToinBackend,
    backend_from_config,
    sibling_sqlite_path,
)


@pytest.fixture(params=["memory", "sqlite", "redis"])
def backend(request, tmp_path):
    if request.param == "memory":
        b = MemoryToinBackend()
    elif request.param == "sqlite":
        b = SQLiteToinBackend(tmp_path / "toin.sqlite3")
    else:
        pytest.importorskip("redis")
        b = RedisToinBackend(request.getfixturevalue("redis_url"))
    yield b
    b.close()


def test_add_accumulates_and_meta_overwrites(backend):
    backend.add({"s1": {"a": 2, "b": 1}}, {"s1": {"kind": "records"}})
    backend.add({"s1": {"a": 3}, "s2": {"a": 1}}, {"s1": {"kind": "log", "tool": "t"}})
    assert backend.counts("s1") == {"a": 5, "b": 1}
    assert backend.meta("s1") == {"kind": "log", "tool": "t"}
    assert backend.signatures() == ["s1", "s2"]
    assert backend.counts("nope") == {}


def test_tool_counts_add_up_per_window_and_old_buckets_are_pruned(backend):
    backend.add({}, {}, tools={("grep", 10): {"stored": 2, "events": 1}, ("grep", 12): {"stored": 1},
                               ("db:query", 12): {"retrieved": 1}})
    backend.add({}, {}, tools={("grep", 12): {"stored": 4}})
    assert backend.tool_counts(10) == {"grep": {"stored": 7, "events": 1}, "db:query": {"retrieved": 1}}
    assert backend.tool_counts(11) == {"grep": {"stored": 5}, "db:query": {"retrieved": 1}}
    assert backend.signatures() == []  # per-tool rows are not patterns
    backend.prune_tools(12)
    assert backend.tool_counts(0) == {"grep": {"stored": 5}, "db:query": {"retrieved": 1}}


def test_recent_retrievals_keep_the_latest_time_and_the_newest_rows(backend):
    from headroom.toin.backends import RECENT_KEPT

    backend.add({}, {}, recent={"grep": {f"q{i}": 100.0 + i for i in range(RECENT_KEPT + 3)}})
    backend.add({}, {}, recent={"grep": {"q0": 50.0, "q8": 99.0, "": 120.0}, "db": {"x": 1.0}})
    recent = backend.tool_recent()
    assert recent["db"] == {"x": 1.0}
    # q0 at 50 is older than what it had (100); the newest RECENT_KEPT rows stay.
    assert recent["grep"] == {"": 120.0, "q8": 108.0, "q7": 107.0, "q6": 106.0, "q5": 105.0, "q4": 104.0}


def test_key_is_created_once(backend):
    k = backend.key()
    assert len(k) == 32 and backend.key() == k
    backend.adopt_key(b"z" * 32)
    assert backend.key() == b"z" * 32


def test_concurrent_increments_are_not_lost(backend):
    def work():
        for _ in range(50):
            backend.add({"s": {"n": 1}}, {})

    threads = [threading.Thread(target=work) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert backend.counts("s") == {"n": 200}


def test_sqlite_survives_reopen_and_two_connections_add_up(tmp_path):
    path = tmp_path / "t.sqlite3"
    a, b = SQLiteToinBackend(path), SQLiteToinBackend(path)
    assert a.key() == b.key()
    a.add({"s": {"n": 1}}, {"s": {"kind": "records"}})
    b.add({"s": {"n": 2}}, {})
    a.close()
    b.close()
    c = SQLiteToinBackend(path)
    assert c.counts("s") == {"n": 3} and c.meta("s") == {"kind": "records"}
    c.close()


def test_backend_from_config_follows_the_ccr_store(tmp_path):
    ccr = str(tmp_path / "ccr.sqlite3")
    b = backend_from_config(HeadroomConfig(ccr=CCRConfig(backend="sqlite", sqlite_path=ccr)))
    assert isinstance(b, SQLiteToinBackend) and b.path == str(tmp_path / "ccr.toin.sqlite3")
    b.close()
    assert isinstance(backend_from_config(HeadroomConfig()), MemoryToinBackend)
    explicit = backend_from_config(HeadroomConfig(toin=ToinConfig(backend="sqlite", sqlite_path=str(tmp_path / "x.db"))))
    assert explicit.path.endswith("x.db")
    explicit.close()
    assert sibling_sqlite_path("/a/b/store.db") == "/a/b/store.toin.db"
