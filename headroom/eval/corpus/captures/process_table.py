"""Process tables: ``ps auxww``, ``ps -eo … --forest`` and ``top -b -n 1 -c`` of a fresh
PID namespace (``unshare --pid --fork --mount-proc``) holding ~45 processes: Python
workers of several roles holding different amounts of memory, one burning CPU, one
stopped (SIGSTOP), one at a raised nice level, shell trees of ``sleep`` children, and
processes run as ``nobody`` and ``postgres`` (``setpriv``).

Facts come from ``/proc`` read through psutil inside the same namespace (its own parser
of ``/proc/<pid>/stat``, ``status`` and ``cmdline``), never from the tables: the command
line of the process with the most resident memory, with the most CPU time, the stopped
one, the ones run by another user (``setpriv``); a named worker's resident size. A fact is kept only
where its text occurs once in the output. Held out (issue 33): no dev source holds a
process listing.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from ..cases import fact, make_case
from ..questions import choose
from ._run import run

SOURCE = "process_table"

# Runs inside the namespace as its pid 1's child: starts the processes, waits until they
# settle, writes the three tables and psutil's reading of /proc as one JSON document.
DRIVER = r'''
import json, os, signal, subprocess, sys, time
import psutil

work, worker = sys.argv[1], sys.argv[2]
py = sys.executable
procs = []
def start(args, **kw):
    procs.append(subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, **kw))
    return procs[-1]

roles = [("ingest", 320), ("resize", 64), ("indexer", 96), ("mailer", 12), ("scheduler", 24),
         ("exporter", 40), ("cache-warm", 150), ("thumbnail", 48), ("billing", 8), ("audit", 30)]
for k, (role, mem) in enumerate(roles):
    start([py, worker, "--role", role, "--mem", str(mem), "--shard", str(k)])
start([py, worker, "--role", "reindex", "--mem", "20", "--burn", "4"])
stopped = start([py, worker, "--role", "backfill", "--mem", "16"])
start(["nice", "-n", "10", py, worker, "--role", "compactor", "--mem", "32"])
for n in range(6):
    start(["sh", "-c", " & ".join(f"sleep {900 + 10 * n + j}" for j in range(n + 2)) + " & wait"])
# setpriv execs the program itself (runuser would stay as its parent, repeating the command line)
start(["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups", "sleep", "1800"])
start(["setpriv", "--reuid=postgres", "--regid=postgres", "--clear-groups", py, worker, "--role", "pg-archiver",
       "--mem", "10"])
start(["tail", "-f", "/dev/null"])
start(["cat"], stdin=subprocess.PIPE)
time.sleep(5)
stopped.send_signal(signal.SIGSTOP)
time.sleep(0.5)

tables = {
    "ps_aux": subprocess.run(["ps", "auxww"], capture_output=True, text=True).stdout,
    "ps_forest": subprocess.run(["ps", "-eo", "pid,ppid,user,stat,ni,rss,vsz,time,args", "--forest"],
                                capture_output=True, text=True).stdout,
    "top": subprocess.run(["top", "-b", "-n", "1", "-c", "-w", "512"], capture_output=True, text=True,
                          env={**os.environ, "LC_ALL": "C"}).stdout,
}
seen = []
for p in psutil.process_iter():
    try:
        with p.oneshot():
            t = p.cpu_times()
            seen.append({"pid": p.pid, "cmdline": p.cmdline(), "status": p.status(), "user": p.username(),
                         "rss_kib": p.memory_info().rss // 1024, "cpu": t.user + t.system, "nice": p.nice(),
                         "name": p.name()})
    except psutil.Error:
        pass
json.dump({"tables": tables, "procs": seen, "stopped": stopped.pid}, open(os.path.join(work, "out.json"), "w"))
stopped.send_signal(signal.SIGCONT)
for p in procs:
    p.kill()
'''

WORKER = r'''
import argparse, time
ap = argparse.ArgumentParser()
ap.add_argument("--role"); ap.add_argument("--mem", type=int); ap.add_argument("--shard", default="0")
ap.add_argument("--burn", type=float, default=0)
a = ap.parse_args()
with open("/proc/self/comm", "w") as fh:
    fh.write(a.role[:15])
block = bytearray(a.mem * 1024 * 1024)
for i in range(0, len(block), 4096):
    block[i] = 1
end = time.monotonic() + a.burn
while time.monotonic() < end:
    pass
time.sleep(600)
'''

TABLES = {"ps_aux": "ps auxww", "ps_forest": "ps -eo pid,ppid,user,stat,ni,rss,vsz,time,args --forest",
          "top": "top -b -n 1 -c -w 512"}


def _unique_max(procs: list[dict[str, Any]], key: str) -> dict[str, Any] | None:
    ranked = sorted(procs, key=lambda p: p[key], reverse=True)
    return ranked[0] if len(ranked) > 1 and ranked[0][key] > 1.5 * ranked[1][key] else None


def build(work: Path) -> list[dict[str, Any]]:
    (work / "driver.py").write_text(DRIVER)
    (work / "worker.py").write_text(WORKER)
    work.chmod(0o755)  # runuser's workers read worker.py
    for f in ("driver.py", "worker.py"):
        (work / f).chmod(0o644)
    run(["unshare", "--pid", "--fork", "--mount-proc", sys.executable, str(work / "driver.py"), str(work),
         str(work / "worker.py")], timeout=120)
    doc = json.loads((work / "out.json").read_text())
    procs = [p for p in doc["procs"] if p["cmdline"]]
    asked: list[tuple[str, str, tuple[str, ...], str, str, str]] = []  # sid, intent, wordings, fact, kind, note
    if (p := _unique_max(procs, "rss_kib")):
        asked.append(("most_memory", "extreme", ("Which process holds the most resident memory?",
                                                  "What is using the most RAM here?"),
                      " ".join(p["cmdline"]), "extreme", f"psutil: the largest RSS ({p['rss_kib']} KiB)"))
    if (p := _unique_max(procs, "cpu")):
        asked.append(("most_cpu", "extreme", ("Which process has used the most CPU time?",
                                               "What has been keeping the CPU busy?"),
                      " ".join(p["cmdline"]), "extreme", f"psutil: the largest user+system time ({p['cpu']:.2f} s)"))
    stopped = next(p for p in procs if p["pid"] == doc["stopped"])
    asked.append(("stopped", "named", ("Is any process stopped or suspended? Which one?",
                                       "Which process is not running because it was stopped?"),
                  " ".join(stopped["cmdline"]), "named_item", "psutil status 'stopped'"))
    for user in ("nobody", "postgres"):
        mine = [p for p in procs if p["user"] == user]
        if len(mine) == 1:
            asked.append((f"user_{user}", "named", (f"What is running as the {user} user?",
                                                    f"Which process belongs to {user}?"),
                          " ".join(mine[0]["cmdline"]), "named_item", f"psutil username {user!r}"))
    for role in ("indexer", "thumbnail"):
        p = next(p for p in procs if p["name"] == role)
        asked.append((f"rss_{role}", "named", (f"How much resident memory does the {role} worker use?",
                                               f"What is the RSS of the {role} process?"),
                      f" {p['rss_kib']} ", "named_item", f"psutil memory_info().rss of {role}, KiB"))
    out = []
    for table, command in TABLES.items():
        text = doc["tables"][table]
        for sid, intent, wordings, t, kind, note in asked:
            t = t if not t.startswith(" ") else t.strip()
            if text.count(t) != 1 or (sid.startswith("rss_") and text.count(f" {t} ") != 1):
                continue
            scen = f"{table}_{sid}"
            out.append(make_case(SOURCE, scen, "text", "bash", {"command": command}, intent,
                                 choose(f"{SOURCE}/{scen}", wordings), text,
                                 [fact(t, kind, note, basis="independent")]))
    assert len(out) >= 10, f"too few process table cases: {len(out)}"
    return out

