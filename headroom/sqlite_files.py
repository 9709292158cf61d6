"""Opening headroom's SQLite files (CCR store, TOIN, metrics) so that no file fault can
kill the process.

Why not WAL: WAL keeps its index in a ``-shm`` file that every connection memory-maps.
Anything that truncates that file while a proxy has it mapped (a cleanup script, a
backup tool, a second program recreating it) makes the next access a SIGBUS: the
process dies without a Python exception (reproduced in tests/ccr/test_store_faults.py).
A rollback journal has no shared-memory file, and ``mmap_size=0`` keeps SQLite from
mapping the database itself, so every file fault is an I/O error, which SQLite reports
as an exception the store already turns into ``StoreError``.

Why ``synchronous=OFF``: with a rollback journal, ``NORMAL`` fsyncs on every commit
(12 ms a write on this project's disks, against 0.1 ms without). A process that crashes
loses nothing (its writes are in the OS's cache); only an OS crash or power loss can
leave a damaged file, and these files are caches and counters, not records: a file that
is not a readable database at open is moved aside (``<name>.corrupt-<time>``) and a
fresh one is created, with a warning.

Several processes (proxy workers, ``headroom mcp serve``, ``headroom report``) share
one file: SQLite's file locks serialise writers, and ``timeout`` is how long one waits.
"""

from __future__ import annotations

import logging
import os
import sqlite3
import time
import urllib.parse
from pathlib import Path

log = logging.getLogger("headroom.sqlite")

_FILE_MODE = 0o600  # originals and metrics are user data: owner only (the journal inherits it)


def _tune(conn: sqlite3.Connection) -> None:
    conn.execute("PRAGMA mmap_size=0")
    # Leaving WAL needs the only connection; if another process still holds the file in
    # WAL, SQLite keeps WAL (and says so) and this process converts it on a later open.
    try:
        mode = conn.execute("PRAGMA journal_mode=TRUNCATE").fetchone()[0]
    except sqlite3.OperationalError as exc:  # "database is locked": a WAL holder elsewhere
        mode = f"its current ({exc})"
    if str(mode).lower() != "truncate":
        log.warning("%s stays in %s journal mode while another process has it open in WAL mode",
                    _name(conn), mode)
    conn.execute("PRAGMA synchronous=OFF")


def _name(conn: sqlite3.Connection) -> str:
    row = conn.execute("PRAGMA database_list").fetchone()
    return row[2] if row else "?"


def _readable(conn: sqlite3.Connection) -> None:
    """Raise sqlite3.DatabaseError unless the file is a database whose schema reads."""
    conn.execute("SELECT name FROM sqlite_master LIMIT 1").fetchall()


def connect(path: str | Path, *, timeout: float = 10.0) -> sqlite3.Connection:
    """A connection to ``path`` (``:memory:`` too), tuned as above; a damaged file is
    replaced by an empty one (its data was a cache: see the module docstring)."""
    path = str(path)
    if path == ":memory:":
        return sqlite3.connect(path, check_same_thread=False, isolation_level=None)
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    os.close(os.open(path, os.O_CREAT | os.O_RDWR, _FILE_MODE))
    conn = sqlite3.connect(path, check_same_thread=False, isolation_level=None, timeout=timeout)
    try:
        _readable(conn)
        _tune(conn)
        return conn
    except sqlite3.DatabaseError as exc:
        if isinstance(exc, sqlite3.OperationalError) and "locked" in str(exc):
            raise  # busy, not damaged
        conn.close()
        aside = f"{path}.corrupt-{int(time.time())}"
        log.warning("%s is not a readable SQLite database (%s); moved aside to %s, starting an empty one",
                    path, exc, aside)
        os.replace(path, aside)
        for suffix in ("-journal", "-wal", "-shm"):
            if os.path.exists(path + suffix):
                os.replace(path + suffix, aside + suffix)
        os.close(os.open(path, os.O_CREAT | os.O_RDWR, _FILE_MODE))
        conn = sqlite3.connect(path, check_same_thread=False, isolation_level=None, timeout=timeout)
        _tune(conn)
        return conn


def connect_read_only(path: str | Path, *, timeout: float = 10.0) -> sqlite3.Connection:
    """A read-only connection to an existing file, for readers in another process while a
    proxy writes it (``headroom inspect``, ``headroom savings``): it creates nothing,
    changes no journal mode, never repairs, and cannot write. FileNotFoundError when the
    file is not there."""
    path = str(path)
    if not os.path.exists(path):
        raise FileNotFoundError(f"no SQLite file at {path}")
    uri = "file:" + urllib.parse.quote(os.path.abspath(path)) + "?mode=ro"
    conn = sqlite3.connect(uri, uri=True, check_same_thread=False, isolation_level=None, timeout=timeout)
    conn.execute("PRAGMA mmap_size=0")
    conn.execute("PRAGMA query_only=ON")
    return conn
