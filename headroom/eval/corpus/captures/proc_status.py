"""Linux per-process status files as ``cat /proc/<pid>/status`` and ``head -n 80
/proc/<pid>/status ...`` (with ``==> file <==`` headers) print them: ~57 ``Key:\\tvalue``
lines each (names, ids, memory counters, signal masks, capabilities, CPU lists) for four
worker processes the capture starts, one after another.

The four are Python processes, each told by the capture to name itself (``/proc/self/comm``)
and to be unlike the others in one way: one runs many threads, one holds a large buffer,
one ignores SIGHUP, one sets a restrictive umask. Facts come from the capture's own record
of what it told each process to do (the process doing the most of something, the one that
ignores a signal), never from the status text: the answer is the process's name. A fact is
kept only where its text stands once in the output. Held out (issue 33, fifth round): no
dev source holds /proc status files.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from ..cases import fact, make_case
from ..questions import choose
from ._run import run

SOURCE = "proc_status"
# name -> (threads, megabytes held, ignores SIGHUP, umask)
WORKERS = {
    "ingest-main": (2, 4, False, 0o077),
    "tally-pool": (14, 4, False, 0o022),
    "blob-cache": (1, 160, False, 0o022),
    "log-shipper": (1, 4, True, 0o022),
}
CHILD = """\
import os, signal, sys, threading
name, threads, mb, ign, mask = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4] == "1", int(sys.argv[5], 8)
with open("/proc/self/comm", "w") as f:
    f.write(name)
if ign:
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
os.umask(mask)
held = bytearray(mb << 20)
for i in range(0, len(held), 4096):
    held[i] = 1
stop = threading.Event()
for _ in range(threads - 1):
    threading.Thread(target=stop.wait, daemon=True).start()
print("ready", flush=True)
sys.stdin.read()
"""
ASKED = (  # scenario, intent, kind, the worker, note, wordings
    ("most_threads", "extreme", "extreme", max(WORKERS, key=lambda n: WORKERS[n][0]), "started the most threads",
     ("Which of these processes runs the most threads?", "Which process has the highest thread count?")),
    ("largest_memory", "extreme", "extreme", max(WORKERS, key=lambda n: WORKERS[n][1]), "holds the largest buffer",
     ("Which process uses the most resident memory?", "Which of the processes is the biggest in RAM?")),
    ("ignores_hup", "named", "named_item", next(n for n, w in WORKERS.items() if w[2]), "ignores SIGHUP",
     ("Which process ignores the hangup signal?", "Which of these would survive a SIGHUP because it ignores it?")),
    ("umask", "named", "named_item", next(n for n, w in WORKERS.items() if w[3] != 0o022), "sets umask 077",
     ("Which process creates files readable only by its owner (a restrictive umask)?",
      "Which process has a different file-creation mask from the rest?")),
)


def build(work: Path) -> list[dict[str, Any]]:
    procs = []
    try:
        for name, (threads, mb, ign, mask) in WORKERS.items():
            p = subprocess.Popen([sys.executable, "-S", "-c", CHILD, name, str(threads), str(mb), "1" if ign else "0",
                                  f"{mask:o}"], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
            procs.append(p)
            assert p.stdout.readline().strip() == "ready", name
        time.sleep(0.2)
        pids = [str(p.pid) for p in procs]
        outputs = {
            "cat": (["cat", *(f"/proc/{pid}/status" for pid in pids)], f"cat /proc/{{{','.join(pids)}}}/status"),
            "head": (["head", "-n", "80", *(f"/proc/{pid}/status" for pid in pids)],
                     f"head -n 80 /proc/{{{','.join(pids)}}}/status"),
        }
        contents = {k: run(cmd).stdout for k, (cmd, _) in outputs.items()}
    finally:
        for p in procs:
            p.stdin.close()
            p.wait(timeout=10)
    out = []
    for form, content in contents.items():
        args = {"command": outputs[form][1]}
        for scen, intent, kind, name, note, wordings in ASKED:
            if content.count(name) != 1:
                continue
            sid = f"{form}_{scen}"
            out.append(make_case(SOURCE, sid, "text", "bash", args, intent, choose(f"{SOURCE}/{sid}", wordings),
                                 content, [fact(name, kind, f"capture's record: the worker that {note}",
                                                basis="independent")]))
    assert len(out) >= 6, f"too few proc_status cases: {len(out)}"
    return out
