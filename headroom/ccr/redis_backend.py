"""Redis backend for the CCR store: one store shared by several proxy replicas.

Layout (all keys under one prefix, default ``headroom:ccr:``):

- ``{prefix}e:{hash}``  a hash holding one :class:`Entry`; it carries a native Redis
  TTL (``PEXPIRE``), so Redis itself forgets originals that nobody refreshes.
- ``{prefix}lru``       sorted set hash -> last access (store clock): LRU order.
- ``{prefix}exp``       sorted set hash -> ``expires_at`` (store clock): ``purge_expired``.
- ``{prefix}deadline``  sorted set hash -> wall-clock ms of the native expiry, so index
  members whose key Redis already expired can be dropped without scanning everything.
- ``{prefix}events``, ``{prefix}events:seq``  the retrieval log of earlier versions:
  no longer written (TOIN learns retrievals); deleted when a backend opens.

Multi-key changes run as Lua scripts or MULTI pipelines so that replicas sharing the
database never see an entry without its index rows (or the reverse). Single Redis node
only: the scripts touch keys they compute, which Redis Cluster does not allow.
"""

from __future__ import annotations

import json
import time
from typing import Any
from urllib.parse import urlsplit, urlunsplit

from .backends import Entry

_INT_FIELDS = ("original_tokens", "compressed_tokens", "item_count", "retrieval_count")
_FLOAT_FIELDS = ("created_at", "expires_at", "last_access")
_OPTIONAL_STR_FIELDS = ("tool_name", "compressed")

# KEYS: entry key, lru. ARGV: at, hash. Touch only a live entry: HINCRBY on a
# missing key would create a TTL-less stub that never goes away.
_TOUCH = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'last_access', ARGV[1])
redis.call('HINCRBY', KEYS[1], 'retrieval_count', 1)
redis.call('ZADD', KEYS[2], 'XX', ARGV[1], ARGV[2])
return 1
"""

# KEYS: entry key, lru, exp, deadline. ARGV: hash, expires_at, at, lifetime ms, deadline ms.
# Extends only a live entry (as _TOUCH), leaving its original where it is.
_EXTEND = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
redis.call('HSET', KEYS[1], 'expires_at', ARGV[2], 'last_access', ARGV[3])
redis.call('PEXPIRE', KEYS[1], ARGV[4])
redis.call('ZADD', KEYS[2], ARGV[3], ARGV[1])
redis.call('ZADD', KEYS[3], ARGV[2], ARGV[1])
redis.call('ZADD', KEYS[4], ARGV[5], ARGV[1])
return 1
"""

# Drops index members whose entry key Redis has already expired natively.
# KEYS: lru, exp, deadline. ARGV: entry key prefix, wall-clock now in ms.
_SWEEP_BODY = """
local function sweep(prefix, now_ms)
  local dead = redis.call('ZRANGEBYSCORE', KEYS[3], '-inf', now_ms)
  for _, h in ipairs(dead) do
    if redis.call('EXISTS', prefix .. h) == 0 then
      redis.call('ZREM', KEYS[1], h)
      redis.call('ZREM', KEYS[2], h)
      redis.call('ZREM', KEYS[3], h)
    end
  end
end
local function drop(prefix, hashes)
  local n = 0
  for _, h in ipairs(hashes) do
    n = n + redis.call('DEL', prefix .. h)
    redis.call('ZREM', KEYS[1], h)
    redis.call('ZREM', KEYS[2], h)
    redis.call('ZREM', KEYS[3], h)
  end
  return n
end
"""

_COUNT = (
    _SWEEP_BODY
    + """
sweep(ARGV[1], ARGV[2])
return redis.call('ZCARD', KEYS[1])
"""
)

# ARGV: prefix, now_ms, keep.
_EVICT_LRU = (
    _SWEEP_BODY
    + """
sweep(ARGV[1], ARGV[2])
local extra = redis.call('ZCARD', KEYS[1]) - tonumber(ARGV[3])
if extra <= 0 then return 0 end
return drop(ARGV[1], redis.call('ZRANGE', KEYS[1], 0, extra - 1))
"""
)

# ARGV: prefix, now_ms, store-clock now.
_PURGE_EXPIRED = (
    _SWEEP_BODY
    + """
sweep(ARGV[1], ARGV[2])
return drop(ARGV[1], redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', ARGV[3]))
"""
)


def redact_url(url: str) -> str:
    """``url`` without its password, for messages and logs."""
    parts = urlsplit(url)
    if parts.password is None:
        return url
    host = parts.hostname or ""
    if parts.port:
        host = f"{host}:{parts.port}"
    user = f"{parts.username}:***@" if parts.username else ":***@"
    return urlunsplit((parts.scheme, user + host, parts.path, parts.query, parts.fragment))


class RedisBackend:
    """CCR entries in Redis, with native key expiry and a sorted-set LRU index.

    ``ttl_seconds`` is the native lifetime used when an entry does not carry a usable
    one itself; normally an entry lives ``expires_at - last_access`` seconds from its
    last write, which is what the store asked for, independent of the store's clock.
    ``client`` takes a ready ``redis.Redis`` (created with ``decode_responses=True``), for
    custom connection pools or TLS settings; otherwise one is made from ``url``.
    """

    def __init__(
        self,
        url: str = "redis://127.0.0.1:6379/0",
        ttl_seconds: int = 1800,
        *,
        prefix: str = "headroom:ccr:",
        client: Any = None,
    ):
        if ttl_seconds < 1:
            raise ValueError("ttl_seconds must be at least 1")
        self.display_url = redact_url(url)  # never keep the password where it could be logged
        self.ttl_seconds = ttl_seconds
        self.prefix = prefix
        if client is None:
            client = _connect(url)
        self._redis = client
        self._entry_prefix = f"{prefix}e:"
        self._lru = f"{prefix}lru"
        self._exp = f"{prefix}exp"
        self._deadline = f"{prefix}deadline"
        self._touch = client.register_script(_TOUCH)
        self._extend = client.register_script(_EXTEND)
        self._count = client.register_script(_COUNT)
        self._evict = client.register_script(_EVICT_LRU)
        self._purge = client.register_script(_PURGE_EXPIRED)
        client.delete(f"{prefix}events", f"{prefix}events:seq")  # the old retrieval log (see above)

    def _key(self, hash: str) -> str:
        return self._entry_prefix + hash

    def _index_keys(self) -> list[str]:
        return [self._lru, self._exp, self._deadline]

    def put(self, entry: Entry) -> None:
        lifetime = entry.expires_at - entry.last_access
        lifetime_ms = int(lifetime * 1000) if lifetime > 0 else self.ttl_seconds * 1000
        key = self._key(entry.hash)
        pipe = self._redis.pipeline(transaction=True)
        pipe.delete(key)  # a replaced entry must not keep fields the new one lacks
        pipe.hset(key, mapping=_encode(entry))
        pipe.pexpire(key, lifetime_ms)
        pipe.zadd(self._lru, {entry.hash: entry.last_access})
        pipe.zadd(self._exp, {entry.hash: entry.expires_at})
        pipe.zadd(self._deadline, {entry.hash: _now_ms() + lifetime_ms})
        pipe.execute()

    def get(self, hash: str) -> Entry | None:
        data = self._redis.hgetall(self._key(hash))
        return _decode(hash, data) if data else None

    def touch(self, hash: str, at: float) -> None:
        self._touch(keys=[self._key(hash), self._lru], args=[repr(at), hash])

    def extend(self, hash: str, expires_at: float, at: float) -> bool:
        lifetime = expires_at - at
        lifetime_ms = int(lifetime * 1000) if lifetime > 0 else self.ttl_seconds * 1000
        keys = [self._key(hash), self._lru, self._exp, self._deadline]
        args = [hash, repr(float(expires_at)), repr(float(at)), lifetime_ms, _now_ms() + lifetime_ms]
        return bool(self._extend(keys=keys, args=args))

    def delete(self, hash: str) -> None:
        pipe = self._redis.pipeline(transaction=True)
        pipe.delete(self._key(hash))
        for index in self._index_keys():
            pipe.zrem(index, hash)
        pipe.execute()

    def count(self) -> int:
        return int(self._count(keys=self._index_keys(), args=[self._entry_prefix, _now_ms()]))

    def evict_lru(self, keep: int) -> int:
        return int(
            self._evict(keys=self._index_keys(), args=[self._entry_prefix, _now_ms(), max(0, keep)])
        )

    def purge_expired(self, now: float) -> int:
        return int(
            self._purge(keys=self._index_keys(), args=[self._entry_prefix, _now_ms(), repr(now)])
        )

    def problem(self) -> str | None:
        return None  # connection faults raise on use, and the store reports them

    def close(self) -> None:
        self._redis.close()


def _connect(url: str) -> Any:
    try:
        import redis  # lazy: only Redis deployments need the package
    except ImportError as exc:
        raise ImportError(
            "the Redis CCR backend needs the 'redis' package: pip install 'headroom[redis]'"
        ) from exc
    client = redis.Redis.from_url(
        url, decode_responses=True, socket_connect_timeout=5, health_check_interval=30
    )
    try:
        client.ping()
    except redis.RedisError as exc:
        client.close()
        raise ConnectionError(f"cannot reach Redis at {redact_url(url)}: {exc}") from exc
    return client


def _now_ms() -> int:
    return int(time.time() * 1000)


def _escaped(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _encode(entry: Entry) -> dict[str, str]:
    data: dict[str, str] = {
        "original": entry.original,
        "meta": json.dumps(entry.meta, sort_keys=True),
    }
    for name in _FLOAT_FIELDS:
        data[name] = repr(float(getattr(entry, name)))
    for name in _INT_FIELDS:
        data[name] = str(int(getattr(entry, name)))
    for name in _OPTIONAL_STR_FIELDS:
        value = getattr(entry, name)
        if value is not None:  # absent field = None
            data[name] = value
    # Redis strings are UTF-8: text with a lone surrogate travels as an ASCII JSON string.
    escaped = [k for k in ("original", "compressed") if k in data and _escaped(data[k])]
    for k in escaped:
        data[k] = json.dumps(data[k])
    if escaped:
        data["json_escaped"] = ",".join(escaped)
    return data


def _decode(hash: str, data: dict[str, str]) -> Entry:
    for k in filter(None, data.get("json_escaped", "").split(",")):
        data[k] = json.loads(data[k])
    return Entry(
        hash=hash,
        original=data["original"],
        created_at=float(data["created_at"]),
        expires_at=float(data["expires_at"]),
        last_access=float(data["last_access"]),
        tool_name=data.get("tool_name"),
        compressed=data.get("compressed"),
        original_tokens=int(data.get("original_tokens", 0)),
        compressed_tokens=int(data.get("compressed_tokens", 0)),
        item_count=int(data.get("item_count", 0)),
        retrieval_count=int(data.get("retrieval_count", 0)),
        meta=json.loads(data.get("meta") or "{}"),
    )
