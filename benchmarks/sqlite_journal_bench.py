"""What headroom/sqlite_files.py's journal choice costs: commits and reads per journal mode.

    python benchmarks/sqlite_journal_bench.py [--rows 2000] [--procs 4]

One process: 2 KB rows inserted one commit each, then read back by key, for WAL
(``synchronous=NORMAL``, what the stores used before), a rollback journal with
``synchronous=NORMAL`` (an fsync per commit) and the rollback journal without fsync that
sqlite_files uses. Then ``--procs`` processes writing and reading one file at once (each
write followed by 4 reads), WAL against sqlite_files' mode. Files live in a temporary
directory (the disk /tmp is on).
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import tempfile
import time
from multiprocessing import get_context

MODES = {"wal": ("WAL", "NORMAL"), "rollback+fsync": ("TRUNCATE", "NORMAL"), "rollback, no fsync": ("TRUNCATE", "OFF")}


def connect(path: str, journal: str, sync: str) -> sqlite3.Connection:
    conn = sqlite3.connect(path, isolation_level=None, timeout=30)
    conn.execute("PRAGMA mmap_size=0")
    conn.execute(f"PRAGMA journal_mode={journal}")
    conn.execute(f"PRAGMA synchronous={sync}")
    return conn


def one_process(path: str, journal: str, sync: str, rows: int) -> tuple[float, float]:
    conn = connect(path, journal, sync)
    conn.execute("CREATE TABLE t (h TEXT PRIMARY KEY, v TEXT)")
    t0 = time.perf_counter()
    for i in range(rows):
        conn.execute("INSERT INTO t VALUES (?, ?)", (str(i), "x" * 2000))
    write = (time.perf_counter() - t0) / rows
    t0 = time.perf_counter()
    for i in range(rows):
        conn.execute("SELECT v FROM t WHERE h = ?", (str(i),)).fetchone()
    return write, (time.perf_counter() - t0) / rows


def _worker(path: str, journal: str, sync: str, k: int, rows: int) -> None:
    conn = connect(path, journal, sync)
    for i in range(rows):
        conn.execute("INSERT OR REPLACE INTO t VALUES (?, ?)", (f"{k}-{i}", "x" * 2000))
        for j in range(4):
            conn.execute("SELECT v FROM t WHERE h = ?", (f"{k}-{j}",)).fetchone()


def shared(path: str, journal: str, sync: str, procs: int, rows: int) -> float:
    connect(path, journal, sync).execute("CREATE TABLE t (h TEXT PRIMARY KEY, v TEXT)")
    ctx = get_context("fork")
    ps = [ctx.Process(target=_worker, args=(path, journal, sync, k, rows)) for k in range(procs)]
    t0 = time.perf_counter()
    for p in ps:
        p.start()
    for p in ps:
        p.join()
    return procs * rows / (time.perf_counter() - t0)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rows", type=int, default=2000)
    ap.add_argument("--procs", type=int, default=4)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        for name, (journal, sync) in MODES.items():
            rows = args.rows if sync == "OFF" or journal == "WAL" else min(args.rows, 200)  # fsyncs are slow
            write, read = one_process(os.path.join(tmp, f"one-{journal}-{sync}.db"), journal, sync, rows)
            print(f"{name:20s} one process: {write * 1e6:8.0f} us per commit, {read * 1e6:6.1f} us per read")
        for name in ("wal", "rollback, no fsync"):
            journal, sync = MODES[name]
            rate = shared(os.path.join(tmp, f"shared-{journal}-{sync}.db"), journal, sync, args.procs, args.rows // 4)
            print(f"{name:20s} {args.procs} processes on one file: {rate:8.0f} writes/s (each with 4 reads)")


if __name__ == "__main__":
    main()
