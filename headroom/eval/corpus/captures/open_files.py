"""Open-file listings: ``lsof -n -P`` (one line per descriptor and memory-mapped file:
command, pid, user, fd and mode, type, device, size or offset, node, name) and its field
output ``lsof -n -P -F pcftsn`` of a fresh PID namespace where a dozen named workers
each append to their own spool file, read shared data, hold pipes and loopback sockets,
one keeps a deleted temporary file open and one a large sparse file.

Facts come from ``/proc/<pid>/fd`` and ``fdinfo`` read directly (``readlink``, the open
flags, ``os.stat`` of the descriptor), never from lsof: the file a named worker writes
to, the deleted file still held open, the largest open file and its size. A fact is kept
only where its text occurs once in the output. Held out (issue 33): no dev source holds
an open-file listing.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from ..cases import fact, make_case
from ..facts import spread
from ..questions import choose
from ._run import run

SOURCE = "open_files"
ROLES = ("ingest", "billing", "mailer", "indexer", "exporter", "audit", "scheduler", "thumbnail", "resize",
         "notifier", "compactor", "archiver")

DRIVER = r'''
import json, os, random, socket, subprocess, sys, time

work, worker = sys.argv[1], sys.argv[2]
roles = sys.argv[3].split(",")
rng = random.Random(33)
spool = os.path.join(work, "spool")
os.makedirs(spool)
shared = os.path.join(work, "shared.dat")
with open(shared, "wb") as fh:
    fh.write(os.urandom(1 << 20))
srv = socket.socket()
srv.bind(("127.0.0.1", 0))
srv.listen(64)
port = srv.getsockname()[1]
procs = []
for k, role in enumerate(roles):
    target = os.path.join(spool, "%012x.wal" % rng.getrandbits(48))
    mode = "deleted" if k == 3 else "sparse" if k == 7 else "plain"
    procs.append(subprocess.Popen([sys.executable, worker, role, target, shared, str(port), mode,
                                   str(rng.randint(1, 400))], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL))
conns = []
for _ in roles:
    srv.settimeout(20)
    conns.append(srv.accept()[0])
time.sleep(1.0)
env = {**os.environ, "LC_ALL": "C"}
tables = {"lsof": subprocess.run(["lsof", "-n", "-P"], capture_output=True, text=True, env=env).stdout,
          "lsof_fields": subprocess.run(["lsof", "-n", "-P", "-F", "pcftsn"], capture_output=True, text=True,
                                        env=env).stdout}
fds = []
for p in procs:
    base = "/proc/%d" % p.pid
    comm = open(base + "/comm").read().strip()
    for fd in os.listdir(base + "/fd"):
        try:
            target = os.readlink("%s/fd/%s" % (base, fd))
            flags = int(open("%s/fdinfo/%s" % (base, fd)).read().split("flags:")[1].split()[0], 8)
            st = os.stat("%s/fd/%s" % (base, fd))
        except OSError:
            continue
        fds.append({"pid": p.pid, "comm": comm, "fd": int(fd), "target": target, "flags": flags,
                    "size": st.st_size, "regular": (st.st_mode & 0o170000) == 0o100000})
json.dump({"tables": tables, "fds": fds}, open(os.path.join(work, "out.json"), "w"))
for p in procs:
    p.kill()
'''

WORKER = r'''
import os, socket, sys, time
role, target, shared, port, mode, lines = sys.argv[1:7]
with open("/proc/self/comm", "w") as fh:
    fh.write(role[:15])
out = open(target, "a")
for i in range(int(lines)):
    out.write("%s record %d\n" % (role, i))
out.flush()
data = open(shared, "rb")
data.seek(4096 * len(role))
r, w = os.pipe()
sock = socket.create_connection(("127.0.0.1", int(port)))
stem = os.path.splitext(target)[0]
if mode == "deleted":
    tmp = open(stem + ".tmp", "w+b")
    tmp.write(b"x" * 65536)
    tmp.flush()
    os.unlink(stem + ".tmp")
if mode == "sparse":
    big = open(stem + ".img", "w+b")
    big.truncate(3 * 1024 ** 3)
time.sleep(600)
'''

WRITE = 0o1 | 0o2  # O_WRONLY | O_RDWR


def build(work: Path) -> list[dict[str, Any]]:
    (work / "driver.py").write_text(DRIVER)
    (work / "worker.py").write_text(WORKER)
    run(["unshare", "--pid", "--fork", "--mount-proc", sys.executable, str(work / "driver.py"), str(work),
         str(work / "worker.py"), ",".join(ROLES)], timeout=120, cwd=work)  # lsof lists each cwd
    doc = json.loads((work / "out.json").read_text())
    files = [f for f in doc["fds"] if f["regular"]]
    asked = []  # (sid, intent, wordings, fact text, kind, note)
    spool = [f for f in files if f["target"].endswith(".wal") and f["flags"] & WRITE]
    for f in spread(sorted(spool, key=lambda f: f["comm"]), 5):
        asked.append((f"writes_{f['comm']}", "named", (f"Which file is the {f['comm']} process writing to?",
                                                       f"Where does the {f['comm']} worker append its records?"),
                      f["target"], "named_item", "/proc/<pid>/fd readlink of the descriptor opened for writing"))
    deleted = [f for f in files if f["target"].endswith(" (deleted)")]
    if len(deleted) == 1:
        asked.append(("deleted", "named", ("Is any process keeping a deleted file open? Which file?",
                                           "Which removed file is still held open, using disk space?"),
                      deleted[0]["target"].removesuffix(" (deleted)"), "named_item",
                      "/proc/<pid>/fd readlink ending in (deleted)"))
    ranked = sorted(files, key=lambda f: -f["size"])
    if len(ranked) > 1 and ranked[0]["size"] > 2 * ranked[1]["size"]:
        asked.append(("largest", "extreme", ("Which open file is the largest?",
                                             "What is the biggest file any of these processes has open?"),
                      ranked[0]["target"], "extreme", f"os.stat through /proc/<pid>/fd: {ranked[0]['size']} bytes"))
        asked.append(("largest_size", "extreme", ("How large is the biggest open file, in bytes?",
                                                  "What size does the largest file held open have?"),
                      str(ranked[0]["size"]), "extreme", "os.stat through /proc/<pid>/fd: the largest size"))
    out = []
    for table, command in (("lsof", "lsof -n -P"), ("lsof_fields", "lsof -n -P -F pcftsn")):
        text = doc["tables"][table]
        for sid, intent, wordings, t, kind, note in asked:
            if text.count(t) != 1:
                continue
            scen = f"{table}_{sid}"
            out.append(make_case(SOURCE, scen, "text", "bash", {"command": command}, intent,
                                 choose(f"{SOURCE}/{scen}", wordings), text, [fact(t, kind, note, basis="independent")]))
    assert len(out) >= 8, f"too few open-file cases: {len(out)}"
    return out
