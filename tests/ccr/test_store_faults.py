"""SQLite files cut or damaged under a running process never kill it (no SIGBUS).

Each fault runs in a child process: a SIGBUS there would kill only the child, and the
test reads its exit status. Before headroom.sqlite_files, truncating the WAL index
(``-shm``) under a live store killed the process with SIGBUS (exit -7).
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from headroom.ccr import CompressionStore, SQLiteBackend
from headroom.ccr.store import StoreError

ROOT = Path(__file__).resolve().parents[2]

CHILD = textwrap.dedent("""
    import os, sys
    from headroom.ccr import CompressionStore, SQLiteBackend
    from headroom.ccr.store import StoreError
    from headroom.toin.backends import SQLiteToinBackend
    from headroom.metrics import MetricsStore
    db, fault = sys.argv[1], sys.argv[2]
    store = CompressionStore(SQLiteBackend(db))
    toin = SQLiteToinBackend(db + ".toin")
    metrics = MetricsStore(db + ".metrics")
    hashes = [store.store(f"line {i}\\n" * 200) for i in range(50)]
    toin.add({"sig": {"seen": 1}}, {})

    def cut(path):
        if fault == "truncate-side-files":
            for suffix in ("-shm", "-wal", "-journal"):
                with open(path + suffix, "wb"):
                    pass  # created empty, or cut to nothing
        elif fault == "truncate-main":
            os.truncate(path, 1024)
        elif fault == "garbage-main":
            with open(path, "r+b") as f:
                f.seek(0)
                f.write(os.urandom(8192))

    for path in (db, db + ".toin", db + ".metrics"):
        cut(path)
    errors = 0
    for i in range(50, 100):
        try:
            store.retrieve(store.store(f"line {i}\\n" * 200))
            store.retrieve(hashes[i - 50])
        except StoreError:
            errors += 1
    for call in (lambda: toin.add({"sig": {"seen": 1}}, {}), lambda: toin.counts("sig"), metrics.count):
        try:
            call()
        except Exception as exc:
            errors += 1
            print("error:", type(exc).__name__, exc)
    print("survived", errors)
""")


@pytest.mark.parametrize("fault", ["truncate-side-files", "truncate-main", "garbage-main"])
def test_a_file_cut_or_damaged_under_a_live_store_never_kills_the_process(tmp_path, fault):
    proc = subprocess.run([sys.executable, "-c", CHILD, str(tmp_path / "ccr.sqlite3"), fault], check=False,
                          capture_output=True, text=True, timeout=120, cwd=ROOT,
                          env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.returncode != -signal.SIGBUS, "killed by SIGBUS"
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "survived" in proc.stdout


def test_no_store_file_is_memory_mapped(tmp_path):
    store = CompressionStore(SQLiteBackend(tmp_path / "ccr.sqlite3"))
    store.retrieve(store.store("a\n" * 100))
    conn = store.backend._conn
    assert conn.execute("PRAGMA mmap_size").fetchone()[0] == 0
    assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "truncate"  # no -shm at all
    assert not (tmp_path / "ccr.sqlite3-shm").exists()
    maps = Path(f"/proc/{os.getpid()}/maps")
    if maps.exists():
        assert str(tmp_path) not in maps.read_text()
    store.close()


def test_a_store_file_from_a_wal_era_is_converted(tmp_path):
    db = tmp_path / "old.sqlite3"
    old = sqlite3.connect(db)
    old.execute("PRAGMA journal_mode=WAL")
    old.execute("CREATE TABLE x (a)")
    old.close()
    store = CompressionStore(SQLiteBackend(db))
    h = store.store("kept\n" * 40)
    assert store.backend._conn.execute("PRAGMA journal_mode").fetchone()[0] == "truncate"
    assert store.retrieve(h) is not None
    store.close()


def test_a_damaged_file_at_open_is_moved_aside_and_replaced(tmp_path, caplog):
    db = tmp_path / "ccr.sqlite3"
    db.write_bytes(os.urandom(16384))
    with caplog.at_level("WARNING", logger="headroom.sqlite"):
        store = CompressionStore(SQLiteBackend(db))
    h = store.store("fresh\n" * 40)
    assert store.retrieve(h).content == "fresh\n" * 40
    aside = [p for p in tmp_path.iterdir() if ".corrupt-" in p.name]
    assert aside and "moved aside" in caplog.text
    store.close()


def test_a_store_damaged_while_open_answers_or_raises_store_errors(tmp_path):
    db = tmp_path / "ccr.sqlite3"
    store = CompressionStore(SQLiteBackend(db))
    hashes = [store.store(f"row {i}\n" * 300) for i in range(30)]
    with open(db, "r+b") as f:  # the header and schema page too: SQLite's cache is invalidated
        f.write(os.urandom(db.stat().st_size))
    outcomes = set()
    for h in hashes:
        try:
            outcomes.add("found" if store.retrieve(h) is not None else "missing")
        except StoreError:
            outcomes.add("store error")
    assert "store error" in outcomes and store.fault is not None
    store.close()
