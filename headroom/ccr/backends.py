"""Storage backends for the CCR store.

A backend stores :class:`Entry` rows by hash (each counts its own retrievals; who
retrieved what, per tool, is TOIN's to learn: headroom.toin). It knows nothing of TTL policy or LRU capacity beyond the primitives the
store asks for; :class:`~headroom.ccr.store.CompressionStore` owns the policy.
"""

from __future__ import annotations

import json
import os
import threading
from collections import OrderedDict
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Protocol

from .. import sqlite_files
from ..tokens import TokenField


@dataclass
class Entry:
    hash: str
    original: str
    created_at: float
    expires_at: float
    last_access: float
    tool_name: str | None = None
    compressed: str | None = None
    # Counts, or LazyTokens the first read counts (a memory store keeps them unread until
    # /stats or an export asks; the SQLite and Redis stores read them when they write).
    original_tokens: int = TokenField()  # type: ignore[assignment]
    compressed_tokens: int = TokenField()  # type: ignore[assignment]
    item_count: int = 0
    retrieval_count: int = 0
    meta: dict[str, Any] = field(default_factory=dict)


class Backend(Protocol):
    def put(self, entry: Entry) -> None: ...
    def get(self, hash: str) -> Entry | None: ...
    def touch(self, hash: str, at: float) -> None: ...
    # Give a stored entry a new expiry and last access without rewriting its original;
    # False when there is no such entry.
    def extend(self, hash: str, expires_at: float, at: float) -> bool: ...
    def delete(self, hash: str) -> None: ...
    def count(self) -> int: ...
    def evict_lru(self, keep: int) -> int: ...
    def purge_expired(self, now: float) -> int: ...
    # Why the backend cannot be trusted to keep what it is given, or None when healthy.
    def problem(self) -> str | None: ...
    def close(self) -> None: ...


class MemoryBackend:
    """Process-local LRU dict. Fast; lost on restart."""

    def __init__(self) -> None:
        self._rows: OrderedDict[str, Entry] = OrderedDict()
        self._lock = threading.RLock()

    def put(self, entry: Entry) -> None:
        with self._lock:
            self._rows[entry.hash] = entry
            self._rows.move_to_end(entry.hash)

    def get(self, hash: str) -> Entry | None:
        with self._lock:
            return self._rows.get(hash)

    def touch(self, hash: str, at: float) -> None:
        with self._lock:
            e = self._rows.get(hash)
            if e is not None:
                e.last_access = at
                e.retrieval_count += 1
                self._rows.move_to_end(hash)

    def extend(self, hash: str, expires_at: float, at: float) -> bool:
        with self._lock:
            e = self._rows.get(hash)
            if e is None:
                return False
            e.expires_at, e.last_access = expires_at, at
            self._rows.move_to_end(hash)
            return True

    def delete(self, hash: str) -> None:
        with self._lock:
            self._rows.pop(hash, None)

    def count(self) -> int:
        with self._lock:
            return len(self._rows)

    def evict_lru(self, keep: int) -> int:
        with self._lock:
            n = 0
            while len(self._rows) > keep:
                self._rows.popitem(last=False)
                n += 1
            return n

    def purge_expired(self, now: float) -> int:
        with self._lock:
            dead = [h for h, e in self._rows.items() if e.expires_at <= now]
            for h in dead:
                del self._rows[h]
            return len(dead)

    def problem(self) -> str | None:
        return None

    def close(self) -> None:
        pass


_SCHEMA = """
CREATE TABLE IF NOT EXISTS ccr_entries (
    hash TEXT PRIMARY KEY,
    original TEXT NOT NULL,
    compressed TEXT,
    tool_name TEXT,
    created_at REAL NOT NULL,
    expires_at REAL NOT NULL,
    last_access REAL NOT NULL,
    original_tokens INTEGER NOT NULL DEFAULT 0,
    compressed_tokens INTEGER NOT NULL DEFAULT 0,
    item_count INTEGER NOT NULL DEFAULT 0,
    retrieval_count INTEGER NOT NULL DEFAULT 0,
    meta TEXT NOT NULL DEFAULT '{}'
);
CREATE INDEX IF NOT EXISTS ccr_entries_last_access ON ccr_entries(last_access);
CREATE INDEX IF NOT EXISTS ccr_entries_expires ON ccr_entries(expires_at);
-- The retrieval log of earlier versions (issue 34: TOIN is the one learner): dropped,
-- not migrated. It held digests and times only, pruned with the TTL.
DROP TABLE IF EXISTS ccr_retrievals;
"""

_COLUMNS = [f for f in Entry.__dataclass_fields__]
_TEXT_COLUMNS = ("original", "compressed")


def _to_db(text: str | None) -> str | bytes | None:
    """SQLite text must be valid UTF-8; an original with a lone surrogate is kept as a BLOB."""
    if text is None:
        return None
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return text.encode("utf-8", "surrogatepass")
    return text


def _from_db(value: str | bytes | None) -> str | None:
    return value.decode("utf-8", "surrogatepass") if isinstance(value, bytes) else value


class SQLiteBackend:
    """Durable store in one SQLite file; survives proxy restarts; processes may share it.

    One connection shared under a lock: SQLite serialises writers anyway, and the
    connection is created with ``check_same_thread=False`` so worker threads can use it.
    """

    def __init__(self, path: str | Path, *, read_only: bool = False):
        """``read_only``: a reader beside the proxy (``headroom inspect``) that creates,
        repairs and writes nothing; the file must exist."""
        self.path = str(path)
        self._inode: int | None = None
        if read_only:
            self._conn = sqlite_files.connect_read_only(self.path)
        else:
            # Owner-only, nothing memory-mapped (no SIGBUS from a file cut under us), a
            # damaged file replaced at open: headroom.sqlite_files.
            self._conn = sqlite_files.connect(self.path)
            self._conn.executescript(_SCHEMA)
        self._lock = threading.Lock()
        if self.path != ":memory:":
            self._inode = os.stat(self.path).st_ino

    def _row(self, row: tuple) -> Entry:
        data = dict(zip(_COLUMNS, row))
        for col in _TEXT_COLUMNS:
            data[col] = _from_db(data[col])
        data["meta"] = json.loads(data["meta"] or "{}")
        return Entry(**data)

    def put(self, entry: Entry) -> None:
        data = asdict(entry)
        data["meta"] = json.dumps(entry.meta, sort_keys=True)
        for col in _TEXT_COLUMNS:
            data[col] = _to_db(data[col])
        cols = ", ".join(_COLUMNS)
        marks = ", ".join("?" for _ in _COLUMNS)
        with self._lock:
            self._conn.execute(
                f"INSERT OR REPLACE INTO ccr_entries ({cols}) VALUES ({marks})",
                [data[c] for c in _COLUMNS],
            )

    def get(self, hash: str) -> Entry | None:
        with self._lock:
            row = self._conn.execute(
                f"SELECT {', '.join(_COLUMNS)} FROM ccr_entries WHERE hash = ?", (hash,)
            ).fetchone()
        return self._row(row) if row else None

    def touch(self, hash: str, at: float) -> None:
        with self._lock:
            self._conn.execute(
                "UPDATE ccr_entries SET last_access = ?, retrieval_count = retrieval_count + 1 WHERE hash = ?",
                (at, hash),
            )

    def extend(self, hash: str, expires_at: float, at: float) -> bool:
        with self._lock:
            cur = self._conn.execute(
                "UPDATE ccr_entries SET expires_at = ?, last_access = ? WHERE hash = ?", (expires_at, at, hash)
            )
            return cur.rowcount > 0

    def delete(self, hash: str) -> None:
        with self._lock:
            self._conn.execute("DELETE FROM ccr_entries WHERE hash = ?", (hash,))

    def count(self) -> int:
        with self._lock:
            return self._conn.execute("SELECT COUNT(*) FROM ccr_entries").fetchone()[0]

    def evict_lru(self, keep: int) -> int:
        with self._lock:
            cur = self._conn.execute(
                "DELETE FROM ccr_entries WHERE hash IN (SELECT hash FROM ccr_entries "
                "ORDER BY last_access DESC LIMIT -1 OFFSET ?)",
                (keep,),
            )
            return cur.rowcount

    def purge_expired(self, now: float) -> int:
        with self._lock:
            return self._conn.execute("DELETE FROM ccr_entries WHERE expires_at <= ?", (now,)).rowcount

    def problem(self) -> str | None:
        """A deleted, replaced or unwritable database file (or -wal/-shm) loses originals silently."""
        if self._inode is None:
            return None
        try:
            st = os.stat(self.path)
        except OSError:
            return f"the CCR database {self.path} was deleted while in use; originals are lost at restart"
        if st.st_ino != self._inode:
            return f"the CCR database {self.path} was replaced while in use"
        for f in (self.path, self.path + "-journal", self.path + "-wal", self.path + "-shm"):
            if os.path.exists(f) and not os.access(f, os.W_OK):
                return f"{f} is not writable"
        return None

    def close(self) -> None:
        with self._lock:
            self._conn.close()
