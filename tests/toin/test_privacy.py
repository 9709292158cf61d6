"""No value of a tool output ever reaches the TOIN store: known secrets are planted in
tool outputs, questions and retrieval queries, then the store's bytes are scanned."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from headroom.ccr.store import CompressionStore
from headroom.config import HeadroomConfig, ToinConfig
from headroom.pipeline import Pipeline
from headroom.toin import RedisToinBackend, SQLiteToinBackend, Toin

from .test_wiring import body

SECRETS = ["sk-live-9f8e7d6c5b4a3f2e1d0c", "alice.hidden@example-corp.test", "hunter2-passphrase-xyzzy",
           "AKIAQ3EXAMPLESECRETKEY", "10.77.33.121"]
# Field names are hashed too: a secret used as a key (maps keyed by token) must not leak.
SECRET_KEY_NAME = "tok_51SecretFieldName"


def outputs(k: int) -> list[dict]:
    rows = []
    for i in range(120):
        rows.append({"id": f"USR-{k * 1000 + i}", "email": SECRETS[1] if i == 7 else f"user{i}@example.test",
                     "api_key": SECRETS[0] if i % 40 == 3 else f"sk-test-{i:06d}",
                     "status": SECRETS[2] if i == 11 else "active", "last_ip": SECRETS[4] if i == 50 else "10.0.0.1",
                     "aws": SECRETS[3], SECRET_KEY_NAME: i})
    return rows


def exercise(toin: Toin) -> None:
    cfg = HeadroomConfig(toin=ToinConfig(flush_seconds=0, refresh_seconds=0))
    p = Pipeline(cfg, store=CompressionStore(), toin=toin)
    for k in range(7):
        text = json.dumps(outputs(k), indent=1)
        r = p.compress_body(body(text, f"is {SECRETS[2]} a status? what about api_key {SECRETS[0]}"), "openai_chat")
        p.compress_body(body(text, f"who has email {SECRETS[1]}"), "openai_chat")  # a later question
        h = r.ccr_hashes[0]
        p.store.retrieve(h, SECRETS[0])
        p.store.retrieve(h, f"last_ip {SECRETS[4]}")
        if k % 3 == 0:  # some whole retrievals (all of them would make TOIN stop compressing)
            p.store.retrieve(h)
    assert toin.stats()["compressed"] == 7  # it did learn
    # ... and counted per tool for retrieval feedback (query digests only, never words).
    counts, recent = toin.tool_activity()
    assert counts["list_orders"]["stored"] == 7 and len(recent["list_orders"]) > 1
    toin.flush()


def assert_clean(blob: bytes) -> None:
    assert blob, "nothing to scan"
    for s in [*SECRETS, SECRET_KEY_NAME]:
        for needle in {s, s[:12]}:
            assert needle.encode() not in blob, f"{needle!r} found in the TOIN store"
            assert needle.encode("utf-16-le") not in blob


def test_sqlite_store_holds_no_values(tmp_path):
    path = tmp_path / "toin.sqlite3"
    toin = Toin(SQLiteToinBackend(path), ToinConfig(flush_seconds=0, refresh_seconds=0))
    exercise(toin)
    toin.close()
    blob = b"".join(f.read_bytes() for f in tmp_path.iterdir())  # the file, its WAL and shm if any
    assert b"toin_counts" in blob
    assert_clean(blob)


def test_redis_dump_holds_no_values(redis_url):
    redis = pytest.importorskip("redis")
    toin = Toin(RedisToinBackend(redis_url), ToinConfig(flush_seconds=0, refresh_seconds=0))
    exercise(toin)
    r = redis.Redis.from_url(redis_url)
    r.save()  # an RDB snapshot in the test server's own folder
    rdb = (Path(r.config_get("dir")["dir"]) / r.config_get("dbfilename")["dbfilename"]).read_bytes()
    # RDB compresses long strings (LZF): scan every key's plain contents as well.
    readers = {b"hash": lambda k: b"".join(f + v for f, v in r.hgetall(k).items()), b"string": r.get,
               b"set": lambda k: b"".join(r.smembers(k)), b"zset": lambda k: b"".join(r.zrange(k, 0, -1))}
    plain = b"".join(k + readers[r.type(k)](k) for k in r.keys("*"))
    assert all(k.startswith(b"headroom:toin:") for k in r.keys("*"))
    r.close()
    toin.close()
    assert_clean(rdb)
    assert_clean(plain)
