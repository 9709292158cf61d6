"""System V IPC tables as util-linux prints them: ``ipcs -a`` (three aligned tables: message
queues, shared memory segments, semaphore arrays), ``lsipc -m`` and ``lsipc -s`` (one
aligned row per segment or semaphore array) and ``lsipc -m --json`` / ``lsipc -q --json``
(JSON arrays of the same rows), in a fresh IPC namespace (``unshare --ipc``) the capture
fills.

A driver makes, through the C library's own ``shmget``/``msgget``/``semget``: 24 shared
memory segments (most of a few hundred KiB, mode 0644; one far larger, one 0600, one the
driver keeps attached), 10 message queues (most holding a few small messages, one holding
many) and 8 semaphore arrays (one with many semaphores), each under a key of its own.
Facts come from the kernel's own tables read by another reader, ``/proc/sysvipc/shm``,
``msg`` and ``sem`` in the namespace, and from the driver's record of what it made, never
from the tools' text: the answer is the object's key, written as both tools write it
(``0x`` and eight hex digits). A fact is kept only where its text stands once in the
output. Held out (issue 33, sixth round): no dev source holds IPC tables.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from ..cases import fact, make_case
from ..questions import choose
from ._run import run

SOURCE = "sysv_ipc"
DRIVER = r'''
import ctypes, json, os, random, struct, subprocess, sys
libc = ctypes.CDLL(None, use_errno=True)
libc.shmat.restype = ctypes.c_void_p
IPC_CREAT = 0o1000
rng = random.Random(336)
keys = rng.sample(range(0x10000000, 0x7fffffff), 60)
made = {"shm": [], "msg": [], "sem": []}
for i in range(24):
    size = rng.choice([64, 128, 256, 512]) * 1024 + rng.randint(0, 7) * 4096
    mode = 0o644
    if i == 9:
        size = 96 * 1024 * 1024
    if i == 16:
        mode = 0o600
    k = keys.pop()
    sid = libc.shmget(k, size, IPC_CREAT | mode)
    assert sid >= 0, ctypes.get_errno()
    made["shm"].append({"key": k, "id": sid, "size": size, "mode": mode})
attached = made["shm"][4]
assert libc.shmat(attached["id"], None, 0) not in (None, ctypes.c_void_p(-1).value)
for i in range(10):
    k = keys.pop()
    qid = libc.msgget(k, IPC_CREAT | 0o660)
    assert qid >= 0
    count = 60 if i == 6 else rng.randint(0, 3)
    for n in range(count):
        body = os.urandom(rng.randint(40, 120) if i != 6 else 200)
        buf = struct.pack("l", 1) + body
        assert libc.msgsnd(qid, buf, len(body), 0) == 0, ctypes.get_errno()
    made["msg"].append({"key": k, "id": qid, "messages": count})
for i in range(8):
    k = keys.pop()
    nsems = 128 if i == 2 else rng.randint(1, 8)
    assert libc.semget(k, nsems, IPC_CREAT | 0o600) >= 0
    made["sem"].append({"key": k, "nsems": nsems})
out = {"made": made, "proc": {}, "outputs": {}}
for table in ("shm", "msg", "sem"):
    out["proc"][table] = open(f"/proc/sysvipc/{table}").read()
env = {"PATH": "/usr/bin:/bin", "LC_ALL": "C", "COLUMNS": "200"}
for name, cmd in (("ipcs", ["ipcs", "-a"]), ("lsipc_m", ["lsipc", "-m"]),
                  ("lsipc_m_json", ["lsipc", "-m", "--json"]), ("lsipc_q_json", ["lsipc", "-q", "--json"]),
                  ("lsipc_s", ["lsipc", "-s"])):
    out["outputs"][name] = subprocess.run(cmd, capture_output=True, text=True, check=True, env=env).stdout
json.dump(out, open(sys.argv[1], "w"))
'''
OUTPUTS = {  # name: (command shown, form, tables it holds)
    "ipcs": ("ipcs -a", "text", ("shm", "msg", "sem")),
    "lsipc_m": ("lsipc -m", "text", ("shm",)),
    "lsipc_m_json": ("lsipc -m --json", "json", ("shm",)),
    "lsipc_q_json": ("lsipc -q --json", "json", ("msg",)),
    "lsipc_s": ("lsipc -s", "text", ("sem",)),
}


def proc_rows(text: str) -> list[dict[str, str]]:
    """Rows of a ``/proc/sysvipc/*`` table: its header names the whitespace-separated fields."""
    lines = text.splitlines()
    head = lines[0].split()
    return [dict(zip(head, ln.split(), strict=False)) for ln in lines[1:] if ln.strip()]


def hexkey(key: int | str) -> str:
    return f"0x{int(key):08x}"


def _one(rows: list[dict[str, str]], value, largest: bool = True) -> str | None:
    best = (max if largest else min)(value(r) for r in rows)
    holders = [r for r in rows if value(r) == best]
    return hexkey(holders[0]["key"]) if len(holders) == 1 else None


def build(work: Path) -> list[dict[str, Any]]:
    (work / "driver.py").write_text(DRIVER)
    run(["unshare", "--ipc", sys.executable, str(work / "driver.py"), str(work / "out.json")], timeout=120)
    got = json.loads((work / "out.json").read_text())
    shm, msg, sem = (proc_rows(got["proc"][t]) for t in ("shm", "msg", "sem"))
    asked = {  # scenario: (table, intent, kind, answer, note, wordings)
        "largest_segment": ("shm", "extreme", "extreme", _one(shm, lambda r: int(r["size"])),
                            "/proc/sysvipc/shm size, the largest",
                            ("Which shared memory segment is the largest?", "What is the biggest shm segment?")),
        "attached_segment": ("shm", "named", "named_item", _one(shm, lambda r: int(r["nattch"])),
                             "/proc/sysvipc/shm nattch, the one attached",
                             ("Which shared memory segment is attached by a process?",
                              "Is any segment in use by a process? Which one?")),
        "private_segment": ("shm", "named", "named_item", _one(shm, lambda r: int(r["perms"], 8) == 0o600),
                            "/proc/sysvipc/shm perms 600, the only one",
                            ("Which segment can only its owner read and write?",
                             "Which shared memory segment has tighter permissions than the others?")),
        "fullest_queue": ("msg", "extreme", "extreme", _one(msg, lambda r: int(r["qnum"])),
                          "/proc/sysvipc/msg qnum, the most messages",
                          ("Which message queue has the most messages waiting?",
                           "Which queue is backed up the most?")),
        "largest_sem_array": ("sem", "extreme", "extreme", _one(sem, lambda r: int(r["nsems"])),
                              "/proc/sysvipc/sem nsems, the most semaphores",
                              ("Which semaphore array has the most semaphores?",
                               "What is the biggest semaphore set?")),
    }
    made = got["made"]
    # the driver's record agrees with the kernel's tables
    assert asked["largest_segment"][3] == hexkey(made["shm"][9]["key"])
    assert asked["attached_segment"][3] == hexkey(made["shm"][4]["key"])
    assert asked["fullest_queue"][3] == hexkey(made["msg"][6]["key"])
    out = []
    for name, (command, form, tables) in OUTPUTS.items():
        content = got["outputs"][name]
        args = {"command": command}
        for scen, (table, intent, kind, answer, note, wordings) in asked.items():
            if table not in tables or answer is None or content.count(answer) != 1:
                continue
            sid = f"{name}_{scen}"
            out.append(make_case(SOURCE, sid, form, "bash", args, intent, choose(f"{SOURCE}/{sid}", wordings),
                                 content, [fact(answer, kind, note, basis="independent")]))
    assert len(out) >= 8, f"too few {SOURCE} cases: {len(out)}"
    return out
