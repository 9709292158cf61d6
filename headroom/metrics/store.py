"""Where request metrics go: SQLite by default, JSON Lines when the path ends in ``.jsonl``.

Recording is one INSERT (or one appended line) under a lock, so the proxy can call it on
every request. ``headroom report`` and other proxy workers share the SQLite file
(headroom.sqlite_files: a rollback journal, nothing memory-mapped).
"""

from __future__ import annotations

import json
import sqlite3
import threading
from collections.abc import Collection, Iterable
from datetime import datetime
from pathlib import Path
from typing import Any

from .. import sqlite_files
from .row import COLUMNS, JSON_COLUMNS, RequestMetrics
from .summary import summarize

_SQL_TYPES = {
    "timestamp": "REAL", "latency_ms": "REAL", "compression_ms": "REAL", "cost_saved_usd": "REAL",
    "tokens_before": "INTEGER", "tokens_after": "INTEGER", "tokens_saved": "INTEGER",
    "cached_tokens": "INTEGER", "output_tokens": "INTEGER", "stream": "INTEGER",
    "status_code": "INTEGER", "retrievals": "INTEGER", "cache_write_tokens": "INTEGER", "repeat_saved": "INTEGER",
}
TABLE = "requests"


def _epoch(t: float | datetime | None) -> float | None:
    if t is None or isinstance(t, (int, float)):
        return t
    if t.tzinfo is None:
        raise ValueError("since/until datetimes must be timezone-aware (metrics are stored in UTC)")
    return t.timestamp()


def _matches(row: RequestMetrics, since: float | None, until: float | None, model: str | None, mode: str | None) -> bool:
    return (
        (since is None or row.timestamp >= since)
        and (until is None or row.timestamp < until)
        and (model is None or row.model == model)
        and (mode is None or row.mode == mode)
    )


class MetricsStore:
    """Append-only request metrics with time/model/mode queries and summaries.

    ``MetricsStore("headroom.db")`` (SQLite) or ``MetricsStore("metrics.jsonl")``.
    ``":memory:"`` keeps an in-memory SQLite database (tests, simulate runs).
    """

    def __init__(self, path: str | Path = "headroom.db", *, max_rows: int | None = None, read_only: bool = False):
        """``max_rows`` (SQLite only) keeps just the newest rows, so a long-running process
        with an in-memory store does not grow without bound. ``read_only``: a reader in
        another process while a proxy writes the file (``headroom inspect``, ``headroom
        savings``); it creates and migrates nothing (an older file's missing columns read
        as their defaults) and the file must exist."""
        self.path = str(path)
        self.kind = "jsonl" if self.path.endswith(".jsonl") else "sqlite"
        if max_rows is not None and (max_rows < 1 or self.kind == "jsonl"):
            raise ValueError("max_rows must be positive and applies to SQLite stores only")
        self.max_rows = max_rows
        self._inserts = 0
        self._lock = threading.Lock()
        self._conn: sqlite3.Connection | None = None
        self.read_only = read_only
        self._have: tuple[str, ...] = COLUMNS  # the columns the file has (an older one: fewer)
        if read_only:
            if not Path(self.path).exists():
                raise FileNotFoundError(f"no metrics database at {self.path}: pass the proxy's --metrics-db")
            if self.kind == "sqlite":
                self._conn = sqlite_files.connect_read_only(self.path)
                have = {r[1] for r in self._conn.execute(f"PRAGMA table_info({TABLE})")}
                if not have:
                    raise FileNotFoundError(f"{self.path} holds no request metrics (no '{TABLE}' table)")
                self._have = tuple(c for c in COLUMNS if c in have)
            return
        if self.path != ":memory:":
            Path(self.path).parent.mkdir(parents=True, exist_ok=True)
        if self.kind == "sqlite":
            self._conn = sqlite_files.connect(self.path)  # no memory-mapped files (SIGBUS), see there
            self._ensure_schema()

    # -- schema -------------------------------------------------------------------------

    def _ensure_schema(self) -> None:
        assert self._conn is not None
        cols = ", ".join(f"{c} {_SQL_TYPES.get(c, 'TEXT')}" for c in COLUMNS)
        with self._lock:
            self._conn.execute(f"CREATE TABLE IF NOT EXISTS {TABLE} (id INTEGER PRIMARY KEY AUTOINCREMENT, {cols})")
            # A database written by an older version gains the new columns (NULL = default).
            have = {r[1] for r in self._conn.execute(f"PRAGMA table_info({TABLE})")}
            for c in COLUMNS:
                if c not in have:
                    self._conn.execute(f"ALTER TABLE {TABLE} ADD COLUMN {c} {_SQL_TYPES.get(c, 'TEXT')}")
            for c in ("timestamp", "model", "mode"):
                self._conn.execute(f"CREATE INDEX IF NOT EXISTS idx_{TABLE}_{c} ON {TABLE}({c})")

    # -- writing ------------------------------------------------------------------------

    def record(self, row: RequestMetrics | dict[str, Any]) -> RequestMetrics:
        """Append one row. Accepts a :class:`RequestMetrics` or a dict of its columns."""
        if self.read_only:
            raise PermissionError(f"{self.path} is open read-only")
        if isinstance(row, dict):
            row = RequestMetrics.from_dict(row)
        data = row.to_dict()
        if self.kind == "jsonl":
            line = json.dumps(data, ensure_ascii=False, separators=(",", ":")) + "\n"
            with self._lock, open(self.path, "a", encoding="utf-8") as f:
                f.write(line)
            return row
        values = [json.dumps(data[c], ensure_ascii=False) if c in JSON_COLUMNS else data[c] for c in COLUMNS]
        values[COLUMNS.index("stream")] = int(bool(data["stream"]))
        placeholders = ", ".join("?" for _ in COLUMNS)
        with self._lock:
            assert self._conn is not None
            cur = self._conn.execute(f"INSERT INTO {TABLE} ({', '.join(COLUMNS)}) VALUES ({placeholders})", values)
            self._inserts += 1
            # Trim in batches (every ~1 % of the cap) so the DELETE cost is amortised.
            if self.max_rows is not None and self._inserts >= max(1, self.max_rows // 100):
                self._inserts = 0
                self._conn.execute(f"DELETE FROM {TABLE} WHERE id <= ?", (cur.lastrowid - self.max_rows,))
        return row

    def record_many(self, rows: Iterable[RequestMetrics | dict[str, Any]]) -> int:
        n = 0
        for r in rows:
            self.record(r)
            n += 1
        return n

    # -- reading ------------------------------------------------------------------------

    def query(
        self,
        since: float | datetime | None = None,
        until: float | datetime | None = None,
        model: str | None = None,
        mode: str | None = None,
        limit: int | None = None,
        tenants: Collection[str] | None = None,
    ) -> list[RequestMetrics]:
        """Rows in time order, oldest first; ``since`` inclusive, ``until`` exclusive.

        With ``limit``, the *latest* ``limit`` matching rows (still oldest first). With
        ``tenants``, only rows of those tenant tags and untagged rows (as retrieval reads
        the CCR store, headroom.ccr.scope); None reads every row.
        """
        lo, hi = _epoch(since), _epoch(until)
        if self.kind == "jsonl":
            rows = [r for r in self._read_jsonl() if _matches(r, lo, hi, model, mode)
                    and (tenants is None or r.tenant is None or r.tenant in tenants)]
            rows.sort(key=lambda r: r.timestamp)
            return rows[-limit:] if limit else rows
        where, args = [], []
        for clause, value in (("timestamp >= ?", lo), ("timestamp < ?", hi), ("model = ?", model), ("mode = ?", mode)):
            if value is not None:
                where.append(clause)
                args.append(value)
        if tenants is not None and "tenant" in self._have:
            tags = sorted(tenants)
            where.append("(tenant IS NULL" + "".join(" OR tenant = ?" for _ in tags) + ")")
            args.extend(tags)
        sql = f"SELECT {', '.join(self._have)} FROM {TABLE}"
        if where:
            sql += " WHERE " + " AND ".join(where)
        sql += " ORDER BY timestamp DESC, id DESC"
        if limit:
            sql += f" LIMIT {int(limit)}"
        with self._lock:
            assert self._conn is not None
            fetched = self._conn.execute(sql, args).fetchall()
        return [self._from_sql(r, self._have) for r in reversed(fetched)]

    def summary(self, since: float | datetime | None = None, until: float | datetime | None = None,
                model: str | None = None, mode: str | None = None) -> dict[str, Any]:
        """Totals, and breakdowns by model, mode, transform and tool (see :func:`summarize`)."""
        return summarize(self.query(since=since, until=until, model=model, mode=mode))

    def count(self) -> int:
        if self.kind == "jsonl":
            return len(self._read_jsonl())
        with self._lock:
            assert self._conn is not None
            return int(self._conn.execute(f"SELECT COUNT(*) FROM {TABLE}").fetchone()[0])

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    def __enter__(self) -> MetricsStore:  # noqa: PYI034
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- decoding -----------------------------------------------------------------------

    @staticmethod
    def _from_sql(values: tuple[Any, ...], columns: tuple[str, ...] = COLUMNS) -> RequestMetrics:
        data = dict(zip(columns, values))
        for c in JSON_COLUMNS:
            if data.get(c) is not None:
                data[c] = json.loads(data[c])
        data["stream"] = bool(data["stream"])
        return RequestMetrics.from_dict(data)

    def _read_jsonl(self) -> list[RequestMetrics]:
        path = Path(self.path)
        if not path.exists():
            return []
        rows = []
        with self._lock, open(path, encoding="utf-8") as f:
            for line in f:
                line = line.strip()
                if not line:
                    continue
                try:
                    rows.append(RequestMetrics.from_dict(json.loads(line)))
                except (ValueError, TypeError):
                    continue  # a torn last line from a crash must not hide every other row
        return rows
