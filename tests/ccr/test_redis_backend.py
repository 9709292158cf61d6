"""Redis-specific behaviour: native expiry, a store shared between instances, limits."""

from __future__ import annotations

import time

import pytest
import redis

from headroom.ccr import CompressionStore, Entry
from headroom.ccr.redis_backend import RedisBackend, redact_url
from headroom.config import CCRConfig

from .conftest import free_port

pytestmark = pytest.mark.redis


def test_entries_carry_a_native_redis_ttl(redis_url):
    backend = RedisBackend(redis_url, ttl_seconds=60)
    store = CompressionStore(backend, ttl_seconds=900)
    h = store.store("payload " * 50)
    raw = redis.Redis.from_url(redis_url)
    ttl = raw.ttl(f"headroom:ccr:e:{h}")
    assert 890 <= ttl <= 900  # the store's TTL, enforced by Redis itself
    raw.close()


def test_redis_expires_entries_by_itself(redis_url):
    backend = RedisBackend(redis_url, ttl_seconds=60)
    now = time.time()
    backend.put(Entry("a" * 24, "short-lived", now, now + 0.3, now))
    backend.put(Entry("b" * 24, "long-lived", now, now + 60, now))
    assert backend.count() == 2
    time.sleep(0.5)
    # No purge_expired call: Redis dropped the key and count() sweeps the stale index.
    assert backend.get("a" * 24) is None
    assert backend.count() == 1
    raw = redis.Redis.from_url(redis_url)
    assert raw.zscore("headroom:ccr:lru", "a" * 24) is None
    raw.close()


def test_store_ttl_expiry_end_to_end(redis_url):
    store = CompressionStore(RedisBackend(redis_url, ttl_seconds=1), ttl_seconds=1)
    h = store.store("expires soon")
    assert store.retrieve(h).content == "expires soon"
    time.sleep(1.2)
    assert store.retrieve(h) is None
    assert store.backend.get(h) is None


def test_two_stores_on_one_redis_share_entries_and_retrievals(redis_url):
    a = CompressionStore.from_config(CCRConfig(backend="redis", redis_url=redis_url))
    b = CompressionStore.from_config(CCRConfig(backend="redis", redis_url=redis_url))
    original = '[{"id": "ORD-991", "status": "lost"}, {"id": "ORD-992", "status": "ok"}]'
    h = a.store(original, tool_name="orders", compressed="[1 item]")
    got = b.retrieve(h, "ORD-991")
    assert got is not None and got.tool_name == "orders"
    assert got.content == '{"id": "ORD-991", "status": "lost"}'
    assert b.retrieve(h).content == original
    # Retrieval counts are shared too: replica A sees replica B's retrievals.
    assert a.get(h).retrieval_count == 2
    b.backend.delete(h)
    assert a.retrieve(h) is None


def test_key_prefix_isolates_stores(redis_url):
    one = RedisBackend(redis_url, prefix="one:")
    two = RedisBackend(redis_url, prefix="two:")
    one.put(Entry("c" * 24, "x", 1.0, 100.0, 1.0))
    assert two.get("c" * 24) is None and two.count() == 0


def test_the_old_retrieval_log_is_dropped(redis_url):
    import redis

    client = redis.Redis.from_url(redis_url, decode_responses=True)
    client.zadd("old:events", {"{}": 1.0})
    client.set("old:events:seq", 1)
    RedisBackend(redis_url, prefix="old:")
    assert client.exists("old:events", "old:events:seq") == 0


def test_unreachable_redis_fails_fast_without_leaking_the_password():
    url = f"redis://user:s3cret@127.0.0.1:{free_port()}/0"
    with pytest.raises(ConnectionError) as info:
        RedisBackend(url)
    assert "s3cret" not in str(info.value) and "127.0.0.1" in str(info.value)


def test_redact_url():
    assert redact_url("redis://:pw@h:6379/1") == "redis://:***@h:6379/1"
    assert redact_url("redis://u:pw@h/0") == "redis://u:***@h/0"
    assert redact_url("redis://h:6379/0") == "redis://h:6379/0"
