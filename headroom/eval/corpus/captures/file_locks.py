"""File locks as util-linux ``lslocks`` lists them: the default table (command, pid, type,
size, mode, byte range, path), ``lslocks --output-all`` (inode, device and the blocking
pid too) and ``lslocks --json``, in a fresh PID namespace (``unshare --pid --fork
--mount-proc``) where the capture's workers take locks.

Thirty-eight workers, each holding or waiting for one lock: 24 application-server workers
(all ``uwsgi``) share a read ``flock`` on a sessions file; the other fourteen, each under a
name of its own (``/proc/self/comm``): eight share a read ``flock`` on a catalogue, one holds a write
``flock`` on a maintenance file, one a POSIX write lock on a byte range of a ledger while
another waits for an overlapping range (a blocked request), one a POSIX read lock on a
schedule, one a read lease on an export, one an open-file-description lock on a segment,
one a write lock on a queue file. Facts come from the kernel's ``/proc/locks`` in the
namespace (lock type, mode, holder pid, inode, range; a blocked request's ``->`` line),
with each pid's ``/proc/<pid>/comm`` and each inode's file by ``os.stat``, never from
``lslocks``' text: the answer is a worker's name or a file's path. Held out (issue 33,
seventh round): no dev source holds lock tables.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from ._asked import Ask, Output, asked_cases
from ._run import run

SOURCE = "file_locks"
DRIVER = r'''
import fcntl, json, os, struct, subprocess, sys, time
here = sys.argv[1]
files = {"sessions.db": 120000, "catalog.db": 20000, "maintenance.lock": 0, "ledger.db": 40000, "cron.tab": 900, "export.csv": 7000,
         "wal.seg": 65536, "outbox.q": 3000}
for name, size in files.items():
    with open(f"{here}/{name}", "wb") as f:
        f.write(b"\0" * size)
readers = ["ingestd", "mailer", "thumbnailer", "exporter", "notifier", "gatekeeper", "billingd", "searchd"]
def worker(comm, take):
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.close(r)
        with open("/proc/self/comm", "w") as c:
            c.write(comm)
        os.write(w, b".")  # before take(): a blocked request still counts as started
        take()
        time.sleep(600)
        os._exit(0)
    os.close(w)
    assert os.read(r, 1) == b"."
    time.sleep(0.02)
    return pid
keep = []
def hold(f):
    keep.append(f)
    return f
pids = {}
for n in range(24):  # an application server's workers: the common rows
    pids[f"uwsgi.{n}"] = worker("uwsgi", lambda: fcntl.flock(hold(open(f"{here}/sessions.db", "rb")), fcntl.LOCK_SH))
for comm in readers:
    pids[comm] = worker(comm, lambda: fcntl.flock(hold(open(f"{here}/catalog.db", "rb")), fcntl.LOCK_SH))
pids["janitor"] = worker("janitor", lambda: fcntl.flock(hold(open(f"{here}/maintenance.lock", "rb")), fcntl.LOCK_EX))
pids["compactor"] = worker("compactor", lambda: fcntl.lockf(hold(open(f"{here}/ledger.db", "r+b")), fcntl.LOCK_EX,
                                                            4096, 8192))
time.sleep(0.2)
pids["reindexer"] = worker("reindexer", lambda: fcntl.lockf(hold(open(f"{here}/ledger.db", "r+b")), fcntl.LOCK_EX,
                                                            4096, 10240))
pids["scheduler"] = worker("scheduler", lambda: fcntl.lockf(hold(open(f"{here}/cron.tab", "rb")), fcntl.LOCK_SH))
pids["archiver"] = worker("archiver", lambda: fcntl.fcntl(hold(os.open(f"{here}/export.csv", os.O_RDONLY)),
                                                          fcntl.F_SETLEASE, fcntl.F_RDLCK))
pids["replicator"] = worker("replicator", lambda: fcntl.fcntl(hold(open(f"{here}/wal.seg", "r+b")), fcntl.F_OFD_SETLK,
                                                              struct.pack("hhqqi", fcntl.F_WRLCK, 0, 0, 16384, 0)))
pids["dispatcher"] = worker("dispatcher", lambda: fcntl.lockf(hold(open(f"{here}/outbox.q", "r+b")), fcntl.LOCK_EX))
time.sleep(0.5)
out = {"pids": pids, "locks": open("/proc/locks").read(), "outputs": {},
       "comm": {str(p): open(f"/proc/{p}/comm").read().strip() for p in pids.values()},
       "inodes": {name: os.stat(f"{here}/{name}").st_ino for name in files}}
env = {"PATH": "/usr/bin:/bin", "LC_ALL": "C", "COLUMNS": "200"}
for name, cmd in (("lslocks", ["lslocks"]), ("output_all", ["lslocks", "--output-all"]),
                  ("json", ["lslocks", "--json"])):
    out["outputs"][name] = subprocess.run(cmd, capture_output=True, text=True, check=True, env=env).stdout
json.dump(out, open(sys.argv[2], "w"))
for p in pids.values():
    os.kill(p, 9)
'''
OUTPUTS = {"lslocks": ("lslocks", "text"), "output_all": ("lslocks --output-all", "text"),
           "json": ("lslocks --json", "json")}


def proc_locks(text: str) -> list[dict[str, Any]]:
    """``/proc/locks`` rows: type, mode, pid, inode, range and whether it is a blocked request."""
    rows = []
    for line in text.splitlines():
        f = line.split()[1:]
        blocked = f[0] == "->"
        f = f[1:] if blocked else f
        rows.append({"type": f[0], "mode": f[2], "pid": int(f[3]), "inode": int(f[4].rsplit(":", 1)[1]),
                     "start": f[5], "end": f[6], "blocked": blocked})
    return rows


def build(work: Path) -> list[dict[str, Any]]:
    (work / "driver.py").write_text(DRIVER)
    data = work / "shop"
    data.mkdir()
    run(["unshare", "--pid", "--fork", "--mount-proc", sys.executable, str(work / "driver.py"), str(data),
         str(work / "out.json")], timeout=120)
    got = json.loads((work / "out.json").read_text())
    locks = proc_locks(got["locks"])
    comm = {int(p): c for p, c in got["comm"].items()}
    path = {ino: f"/var/lib/shop/{name}" for name, ino in got["inodes"].items()}

    def holders(test) -> tuple[str, ...]:
        hits = [comm.get(r["pid"], "") for r in locks if test(r)]
        return tuple(hits) if len(hits) == 1 and hits[0] else ()

    def files(test) -> tuple[str, ...]:
        hits = [path.get(r["inode"], "") for r in locks if test(r)]
        return tuple(hits) if len(hits) == 1 and hits[0] else ()

    ino = got["inodes"]
    waiting = holders(lambda r: r["blocked"])
    blocker = holders(lambda r: not r["blocked"] and r["inode"] == ino["ledger.db"] and r["type"] == "POSIX")
    assert waiting == ("reindexer",) and blocker == ("compactor",), (waiting, blocker)
    asks = [
        Ask("waiting", "named", "named_item", waiting, "/proc/locks: the blocked request (->), its pid's comm",
            ("Which process is waiting for a lock?", "Is any process blocked on a lock? Which one?")),
        Ask("blocking", "named", "named_item", blocker,
            "/proc/locks: the granted lock on the inode the blocked request waits for, its pid's comm",
            ("Which process holds the lock another one is waiting for?", "Who is blocking the stuck lock request?")),
        Ask("exclusive_flock", "named", "named_item",
            holders(lambda r: r["type"] == "FLOCK" and r["mode"] == "WRITE"),
            "/proc/locks: the only FLOCK in WRITE mode, its pid's comm",
            ("Which process holds an exclusive flock?", "Who has the write flock?")),
        Ask("read_posix", "named", "named_item", holders(lambda r: r["type"] == "POSIX" and r["mode"] == "READ"),
            "/proc/locks: the only POSIX lock in READ mode, its pid's comm",
            ("Which process holds a POSIX read lock?", "Who holds a shared record lock, and on which file?")),
        Ask("lease", "named", "named_item", files(lambda r: r["type"] == "LEASE"),
            "/proc/locks: the LEASE row's inode, the file by os.stat",
            ("Which file has a lease on it?", "Is any file under a lease? Which?")),
        Ask("queue_writer", "named", "named_item",
            holders(lambda r: r["inode"] == ino["outbox.q"] and r["mode"] == "WRITE"),
            "/proc/locks: the write lock on the queue file's inode, its pid's comm",
            ("Which process has the outbox queue locked for writing?", "Who holds the lock on outbox.q?")),
    ]
    outputs = {name: Output({"command": cmd}, form, got["outputs"][name].replace(str(data), "/var/lib/shop"))
               for name, (cmd, form) in OUTPUTS.items()}
    out = asked_cases(SOURCE, outputs, asks)
    assert len(out) >= 12, f"too few {SOURCE} cases: {len(out)}"
    return out
