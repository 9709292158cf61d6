"""Where learned patterns live: integer counters per signature, plus a little text per
signature (output kind, tool name, field hashes and types) and one shared hashing key;
and, for retrieval feedback (``toin/feedback.py``), counters per tool name and time
bucket plus each tool's latest retrieval times (by query digest, never query text).

Every update is an atomic increment (SQLite ``UPSERT ... n = n + excluded.n`` inside one
transaction; Redis ``HINCRBY`` in one pipeline), so processes sharing a file or a Redis
database add up their observations instead of overwriting each other's. Nothing here
ever sees a tool output's values: callers hand over counts and keyed hashes.
"""

from __future__ import annotations

import secrets
import sqlite3
import threading
from pathlib import Path
from typing import Any, Protocol

from .. import sqlite_files

Deltas = dict[str, dict[str, int]]  # signature -> counter name -> increment
ToolDeltas = dict[tuple[str, int], dict[str, int]]  # (tool name, time bucket) -> counter -> increment
Recent = dict[str, dict[str, float]]  # tool name -> query digest ("" = any retrieval) -> last time
# Latest retrieval times kept per tool: five queries and the no-query row always fit.
RECENT_KEPT = 6


class ToinBackend(Protocol):
    def add(self, deltas: Deltas, meta: dict[str, dict[str, str]], tools: ToolDeltas | None = None,
            recent: Recent | None = None) -> None: ...
    def counts(self, signature: str) -> dict[str, int]: ...
    def meta(self, signature: str) -> dict[str, str]: ...
    def signatures(self) -> list[str]: ...
    # Per tool: counters summed over the buckets from ``since_bucket`` on, and latest times.
    def tool_counts(self, since_bucket: int) -> dict[str, dict[str, int]]: ...
    def tool_recent(self) -> Recent: ...
    def prune_tools(self, before_bucket: int) -> None: ...
    # The keyed-hash secret: created once, shared by everyone using this backend.
    def key(self) -> bytes: ...
    def adopt_key(self, key: bytes) -> None: ...
    def close(self) -> None: ...


class MemoryToinBackend:
    """Process-local; for the library's memory CCR store and for tests."""

    def __init__(self) -> None:
        self._counts: dict[str, dict[str, int]] = {}
        self._meta: dict[str, dict[str, str]] = {}
        self._tools: ToolDeltas = {}
        self._recent: Recent = {}
        self._key = secrets.token_bytes(32)
        self._lock = threading.Lock()

    def add(self, deltas: Deltas, meta: dict[str, dict[str, str]], tools: ToolDeltas | None = None,
            recent: Recent | None = None) -> None:
        with self._lock:
            for sig, d in deltas.items():
                row = self._counts.setdefault(sig, {})
                for k, n in d.items():
                    row[k] = row.get(k, 0) + n
            for sig, m in meta.items():
                self._meta.setdefault(sig, {}).update(m)
                self._counts.setdefault(sig, {})
            for tb, d in (tools or {}).items():
                row = self._tools.setdefault(tb, {})
                for k, n in d.items():
                    row[k] = row.get(k, 0) + n
            for tool, times in (recent or {}).items():
                mine = self._recent.setdefault(tool, {})
                for value, at in times.items():
                    mine[value] = max(at, mine.get(value, at))
                self._recent[tool] = dict(sorted(mine.items(), key=lambda va: va[1])[-RECENT_KEPT:])

    def tool_counts(self, since_bucket: int) -> dict[str, dict[str, int]]:
        with self._lock:
            return _sum_buckets(((t, b, k, n) for (t, b), d in self._tools.items() for k, n in d.items()),
                                since_bucket)

    def tool_recent(self) -> Recent:
        with self._lock:
            return {t: dict(v) for t, v in self._recent.items()}

    def prune_tools(self, before_bucket: int) -> None:
        with self._lock:
            for tb in [tb for tb in self._tools if tb[1] < before_bucket]:
                del self._tools[tb]

    def counts(self, signature: str) -> dict[str, int]:
        with self._lock:
            return dict(self._counts.get(signature, {}))

    def meta(self, signature: str) -> dict[str, str]:
        with self._lock:
            return dict(self._meta.get(signature, {}))

    def signatures(self) -> list[str]:
        with self._lock:
            return sorted(self._counts)

    def key(self) -> bytes:
        return self._key

    def adopt_key(self, key: bytes) -> None:
        self._key = key

    def close(self) -> None:
        pass


_SCHEMA = """
CREATE TABLE IF NOT EXISTS toin_counts (
    signature TEXT NOT NULL, name TEXT NOT NULL, n INTEGER NOT NULL,
    PRIMARY KEY (signature, name)
);
CREATE TABLE IF NOT EXISTS toin_meta (
    signature TEXT NOT NULL, name TEXT NOT NULL, value TEXT NOT NULL,
    PRIMARY KEY (signature, name)
);
CREATE TABLE IF NOT EXISTS toin_settings (name TEXT PRIMARY KEY, value BLOB NOT NULL);
CREATE TABLE IF NOT EXISTS toin_tool_counts (
    tool TEXT NOT NULL, bucket INTEGER NOT NULL, name TEXT NOT NULL, n INTEGER NOT NULL,
    PRIMARY KEY (tool, bucket, name)
);
CREATE INDEX IF NOT EXISTS toin_tool_counts_bucket ON toin_tool_counts (bucket);
CREATE TABLE IF NOT EXISTS toin_tool_recent (
    tool TEXT NOT NULL, value TEXT NOT NULL, at REAL NOT NULL, PRIMARY KEY (tool, value)
);
"""


class SQLiteToinBackend:
    """One SQLite file; survives restarts; several processes may share it."""

    def __init__(self, path: str | Path, *, read_only: bool = False):
        """``read_only``: open an existing file without creating, migrating or writing it
        (``headroom toin stats``/``show``/``export``); a missing file is FileNotFoundError."""
        self.path = str(path)
        self.read_only = read_only
        self._lock = threading.Lock()
        if read_only:
            if not Path(self.path).is_file():
                raise FileNotFoundError(2, "no TOIN store here yet (the proxy creates it when it first compresses "
                                           "a tool output; pass --ccr-path or --toin-path to read another)", self.path)
            # A rollback-journal database (sqlite_files) is read with mode=ro, which creates no
            # side file (only writers make a -journal). A store an older version left in WAL
            # mode needs its -shm to be read: through it while a writer is live (its -wal
            # exists), else as an immutable snapshot, so no -wal/-shm appears.
            with open(self.path, "rb") as fh:
                wal_mode = fh.read(20)[18:20] == b"\x02\x02"  # file format versions 2 = WAL
            snapshot = wal_mode and not Path(self.path + "-wal").exists()
            uri = Path(self.path).resolve().as_uri() + ("?mode=ro&immutable=1" if snapshot else "?mode=ro")
            self._conn = sqlite3.connect(uri, uri=True, check_same_thread=False, isolation_level=None, timeout=10)
            return
        self._conn = sqlite_files.connect(self.path)  # no memory-mapped files (SIGBUS), see there
        self._conn.executescript(_SCHEMA)

    def add(self, deltas: Deltas, meta: dict[str, dict[str, str]], tools: ToolDeltas | None = None,
            recent: Recent | None = None) -> None:
        rows = [(sig, k, n) for sig, d in deltas.items() for k, n in d.items() if n]
        mrows = [(sig, k, v) for sig, m in meta.items() for k, v in m.items()]
        trows = [(t, b, k, n) for (t, b), d in (tools or {}).items() for k, n in d.items() if n]
        rrows = [(t, v, at) for t, times in (recent or {}).items() for v, at in times.items()]
        if not (rows or mrows or trows or rrows):
            return
        with self._lock:
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                self._conn.executemany(
                    "INSERT INTO toin_counts (signature, name, n) VALUES (?, ?, ?) "
                    "ON CONFLICT(signature, name) DO UPDATE SET n = n + excluded.n", rows)
                self._conn.executemany(
                    "INSERT INTO toin_meta (signature, name, value) VALUES (?, ?, ?) "
                    "ON CONFLICT(signature, name) DO UPDATE SET value = excluded.value", mrows)
                self._conn.executemany(
                    "INSERT INTO toin_tool_counts (tool, bucket, name, n) VALUES (?, ?, ?, ?) "
                    "ON CONFLICT(tool, bucket, name) DO UPDATE SET n = n + excluded.n", trows)
                self._conn.executemany(
                    "INSERT INTO toin_tool_recent (tool, value, at) VALUES (?, ?, ?) "
                    "ON CONFLICT(tool, value) DO UPDATE SET at = MAX(at, excluded.at)", rrows)
                self._conn.executemany(
                    "DELETE FROM toin_tool_recent WHERE tool = ?1 AND value NOT IN "
                    "(SELECT value FROM toin_tool_recent WHERE tool = ?1 ORDER BY at DESC LIMIT ?2)",
                    [(t, RECENT_KEPT) for t in (recent or {})])
                self._conn.execute("COMMIT")
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise

    def counts(self, signature: str) -> dict[str, int]:
        with self._lock:
            rows = self._conn.execute("SELECT name, n FROM toin_counts WHERE signature = ?", (signature,)).fetchall()
        return dict(rows)

    def meta(self, signature: str) -> dict[str, str]:
        with self._lock:
            rows = self._conn.execute("SELECT name, value FROM toin_meta WHERE signature = ?", (signature,)).fetchall()
        return dict(rows)

    def signatures(self) -> list[str]:
        with self._lock:
            rows = self._conn.execute("SELECT DISTINCT signature FROM toin_counts UNION "
                                      "SELECT DISTINCT signature FROM toin_meta ORDER BY 1").fetchall()
        return [r[0] for r in rows]

    def tool_counts(self, since_bucket: int) -> dict[str, dict[str, int]]:
        with self._lock:
            rows = self._conn.execute("SELECT tool, name, SUM(n) FROM toin_tool_counts WHERE bucket >= ? "
                                      "GROUP BY tool, name", (since_bucket,)).fetchall()
        out: dict[str, dict[str, int]] = {}
        for tool, name, n in rows:
            out.setdefault(tool, {})[name] = n
        return out

    def tool_recent(self) -> Recent:
        with self._lock:
            rows = self._conn.execute("SELECT tool, value, at FROM toin_tool_recent").fetchall()
        out: Recent = {}
        for tool, value, at in rows:
            out.setdefault(tool, {})[value] = at
        return out

    def prune_tools(self, before_bucket: int) -> None:
        with self._lock:
            self._conn.execute("DELETE FROM toin_tool_counts WHERE bucket < ?", (before_bucket,))

    def key(self) -> bytes:
        with self._lock:
            if self.read_only:
                row = self._conn.execute("SELECT value FROM toin_settings WHERE name = 'key'").fetchone()
                if row is None:
                    raise ValueError(f"{self.path} holds no TOIN key yet: nothing learned to export")
                return bytes(row[0])
            # INSERT OR IGNORE then read: two processes opening a new file agree on one key.
            self._conn.execute("INSERT OR IGNORE INTO toin_settings (name, value) VALUES ('key', ?)",
                               (secrets.token_bytes(32),))
            return bytes(self._conn.execute("SELECT value FROM toin_settings WHERE name = 'key'").fetchone()[0])

    def adopt_key(self, key: bytes) -> None:
        with self._lock:
            self._conn.execute("INSERT OR REPLACE INTO toin_settings (name, value) VALUES ('key', ?)", (key,))

    def close(self) -> None:
        with self._lock:
            self._conn.close()


class RedisToinBackend:
    """Counters in Redis hashes, shared by proxy replicas (no TTL: patterns are long-lived).

    Keys: ``{prefix}c:{sig}`` counters (HINCRBY), ``{prefix}m:{sig}`` text fields,
    ``{prefix}sigs`` the set of signatures, ``{prefix}key`` the hashing key (SET NX);
    per tool: ``{prefix}t:{tool}`` counters by ``{bucket}:{name}`` (HINCRBY),
    ``{prefix}tr:{tool}`` latest retrieval times (a sorted set, ``ZADD GT``, trimmed),
    ``{prefix}tools`` the set of tool names.
    """

    def __init__(self, url: str = "redis://127.0.0.1:6379/0", *, prefix: str = "headroom:toin:", client: Any = None):
        import redis

        self.prefix = prefix
        self._r = client if client is not None else redis.Redis.from_url(url)

    def add(self, deltas: Deltas, meta: dict[str, dict[str, str]], tools: ToolDeltas | None = None,
            recent: Recent | None = None) -> None:
        p = self._r.pipeline(transaction=True)
        for sig, d in deltas.items():
            for k, n in d.items():
                if n:
                    p.hincrby(f"{self.prefix}c:{sig}", k, n)
            p.sadd(f"{self.prefix}sigs", sig)
        for sig, m in meta.items():
            if m:
                p.hset(f"{self.prefix}m:{sig}", mapping=m)
            p.sadd(f"{self.prefix}sigs", sig)
        for (tool, bucket), d in (tools or {}).items():
            for k, n in d.items():
                if n:
                    p.hincrby(f"{self.prefix}t:{tool}", f"{bucket}:{k}", n)
            p.sadd(f"{self.prefix}tools", tool)
        for tool, times in (recent or {}).items():
            if times:
                p.zadd(f"{self.prefix}tr:{tool}", times, gt=True)
                p.zremrangebyrank(f"{self.prefix}tr:{tool}", 0, -RECENT_KEPT - 1)
                p.sadd(f"{self.prefix}tools", tool)
        p.execute()

    def counts(self, signature: str) -> dict[str, int]:
        raw = self._r.hgetall(f"{self.prefix}c:{signature}")
        return {_text(k): int(v) for k, v in raw.items()}

    def meta(self, signature: str) -> dict[str, str]:
        raw = self._r.hgetall(f"{self.prefix}m:{signature}")
        return {_text(k): _text(v) for k, v in raw.items()}

    def signatures(self) -> list[str]:
        return sorted(_text(s) for s in self._r.smembers(f"{self.prefix}sigs"))

    def _tools(self) -> list[str]:
        return sorted(_text(t) for t in self._r.smembers(f"{self.prefix}tools"))

    def _tool_rows(self) -> list[tuple[str, dict[str, int]]]:
        tools = self._tools()
        p = self._r.pipeline(transaction=False)
        for t in tools:
            p.hgetall(f"{self.prefix}t:{t}")
        return [(t, {_text(k): int(v) for k, v in raw.items()}) for t, raw in zip(tools, p.execute())]

    def tool_counts(self, since_bucket: int) -> dict[str, dict[str, int]]:
        return _sum_buckets(((t, int(b), k, n) for t, row in self._tool_rows() for bk, n in row.items()
                             for b, _, k in [bk.partition(":")]), since_bucket)

    def tool_recent(self) -> Recent:
        tools = self._tools()
        p = self._r.pipeline(transaction=False)
        for t in tools:
            p.zrange(f"{self.prefix}tr:{t}", 0, -1, withscores=True)
        return {t: {_text(v): float(at) for v, at in rows} for t, rows in zip(tools, p.execute()) if rows}

    def prune_tools(self, before_bucket: int) -> None:
        p = self._r.pipeline(transaction=False)
        for t, row in self._tool_rows():
            old = [bk for bk in row if int(bk.partition(":")[0]) < before_bucket]
            if old:
                p.hdel(f"{self.prefix}t:{t}", *old)
        p.execute()

    def key(self) -> bytes:
        k = f"{self.prefix}key"
        self._r.set(k, secrets.token_bytes(32), nx=True)
        value = self._r.get(k)
        return value if isinstance(value, bytes) else str(value).encode("latin-1")

    def adopt_key(self, key: bytes) -> None:
        self._r.set(f"{self.prefix}key", key)

    def close(self) -> None:
        self._r.close()


def _sum_buckets(rows: Any, since_bucket: int) -> dict[str, dict[str, int]]:
    """(tool, bucket, name, n) rows -> tool -> name -> total over buckets >= since_bucket."""
    out: dict[str, dict[str, int]] = {}
    for tool, bucket, name, n in rows:
        if bucket >= since_bucket:
            row = out.setdefault(tool, {})
            row[name] = row.get(name, 0) + n
    return out


def _text(v: Any) -> str:
    return v.decode() if isinstance(v, bytes) else str(v)


def sibling_sqlite_path(ccr_path: str) -> str:
    """``headroom_ccr.sqlite3`` -> ``headroom_ccr.toin.sqlite3`` (same folder)."""
    if ccr_path == ":memory:":
        return ":memory:"
    p = Path(ccr_path)
    return str(p.with_name(f"{p.stem}.toin{p.suffix or '.sqlite3'}"))


def backend_from_config(config: Any) -> ToinBackend:
    """The backend a :class:`~headroom.config.HeadroomConfig` asks for (``toin.backend``)."""
    t, ccr = config.toin, config.ccr
    kind = t.backend if t.backend != "auto" else (ccr.backend if ccr.enabled else "memory")
    if kind == "sqlite":
        return SQLiteToinBackend(t.sqlite_path or sibling_sqlite_path(ccr.sqlite_path))
    if kind == "redis":
        return RedisToinBackend(t.redis_url or ccr.redis_url)
    return MemoryToinBackend()
