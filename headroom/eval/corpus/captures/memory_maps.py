"""A process's memory map as procps ``pmap`` prints it: ``pmap -x`` (address, size, resident
and dirty kilobytes, mode, mapping, one row per mapping and a total), ``pmap -X`` (the
kernel's ``smaps`` fields as columns: offset, device, inode, Pss, Anonymous, Locked ...)
and ``pmap -d`` (offset and device, then a mapped/writeable/shared summary), of a small
Python worker (``-S``: the interpreter, its extension modules and glibc, ~110 mappings).

The worker maps, through the C library's own ``mmap``: a large private anonymous arena it
fills (the most resident memory by far), an index file shared and writable, a snapshot file
it then deletes (still mapped), a small region writable and executable at once, and a
region it locks with ``mlock``. Facts come from the kernel's ``/proc/<pid>/smaps`` read by
the worker itself (another reader than ``pmap``) and from its record of what it mapped,
never from ``pmap``'s text: the answer is the mapping's start address, written as each
form writes it, or the mapped file's name. Held out (issue 33, seventh round): no dev
source holds a process memory map.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from ._asked import Ask, Output, asked_cases
from ._run import run

SOURCE = "memory_maps"
WORKER = r'''
import ctypes, json, os, sys, time
libc = ctypes.CDLL(None, use_errno=True)
libc.mmap.restype = ctypes.c_void_p
libc.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int, ctypes.c_int, ctypes.c_long]
R, W, X = 1, 2, 4
SHARED, PRIVATE, ANON = 1, 2, 0x20
here = sys.argv[1]
def mmap(size, prot, flags, fd=-1):
    p = libc.mmap(None, size, prot, flags, fd, 0)
    assert p not in (None, ctypes.c_void_p(-1).value), ctypes.get_errno()
    return p
made = {}
arena = mmap(48 << 20, R | W, PRIVATE | ANON)
ctypes.memset(arena, 7, 48 << 20)
made["arena"] = arena
with open(f"{here}/ledger.idx", "wb") as f:
    f.write(os.urandom(3 << 20))
fd = os.open(f"{here}/ledger.idx", os.O_RDWR)
made["ledger"] = mmap(3 << 20, R | W, SHARED, fd)
ctypes.memset(made["ledger"], 1, 1 << 20)
with open(f"{here}/snapshot-0419.db", "wb") as f:
    f.write(os.urandom(5 << 20))
fd2 = os.open(f"{here}/snapshot-0419.db", os.O_RDONLY)
made["snapshot"] = mmap(5 << 20, R, PRIVATE, fd2)
os.unlink(f"{here}/snapshot-0419.db")
made["jit"] = mmap(64 << 10, R | W | X, PRIVATE | ANON)
ctypes.memset(made["jit"], 0xc3, 4096)
made["locked"] = mmap(256 << 10, R | W, PRIVATE | ANON)
assert libc.mlock(ctypes.c_void_p(made["locked"]), 256 << 10) == 0, ctypes.get_errno()
sys.stdout.write(json.dumps(made) + "\n")
sys.stdout.flush()
sys.stdin.readline()
'''
FORMS = {"x": ("pmap -x", ["-x"]), "X": ("pmap -X", ["-X"]), "d": ("pmap -d", ["-d"])}


def smaps(text: str) -> list[dict[str, Any]]:
    """The mappings of a ``/proc/<pid>/smaps`` file: start, perms, path and the kB fields."""
    maps: list[dict[str, Any]] = []
    for line in text.splitlines():
        head = line.split(None, 5)
        if "-" in head[0] and len(head) >= 5 and not head[0].endswith(":"):
            lo = head[0].split("-")[0]
            maps.append({"start": int(lo, 16), "perms": head[1], "path": head[5] if len(head) > 5 else ""})
        elif line.endswith(" kB"):
            key, value = line.split(":", 1)
            maps[-1][key] = int(value.split()[0])
    return maps


def address(start: int, form: str) -> str:
    """The start address as the form writes it: 16 zero-padded hex digits, bare in ``-X``."""
    return f"{start:x}" if form == "X" else f"{start:016x}"


def _only(maps: list[dict[str, Any]], test) -> int | None:
    hits = [m["start"] for m in maps if test(m)]
    return hits[0] if len(hits) == 1 else None


def build(work: Path) -> list[dict[str, Any]]:
    (work / "ledger-worker.py").write_text(WORKER)
    proc = subprocess.Popen([sys.executable, "-S", str(work / "ledger-worker.py"), str(work)], stdin=subprocess.PIPE,
                            stdout=subprocess.PIPE, text=True)
    try:
        made = json.loads(proc.stdout.readline())
        pid = proc.pid
        maps = smaps(Path(f"/proc/{pid}/smaps").read_text())
        env = {"PATH": "/usr/bin:/bin", "LC_ALL": "C"}
        texts = {f: run(["pmap", *flags, str(pid)], env=env).stdout for f, (_, flags) in FORMS.items()}
    finally:
        proc.stdin.close()
        proc.wait(timeout=30)
    texts = {f: t.replace(str(work), "/srv/ledger") for f, t in texts.items()}
    top_rss = max(maps, key=lambda m: m["Rss"])
    # the worker's record and the kernel's view agree
    assert top_rss["start"] == made["arena"], (top_rss, made)
    rwx = _only(maps, lambda m: m["perms"] == "rwxp")
    locked = _only(maps, lambda m: m.get("Locked", 0) > 0)
    assert rwx == made["jit"] and locked == made["locked"]
    deleted = [Path(m["path"].removesuffix(" (deleted)")).name for m in maps if m["path"].endswith(" (deleted)")
               and m["path"].startswith(str(work))]
    shared_w = [Path(m["path"]).name for m in maps if m["perms"] == "rw-s" and m["path"].startswith(str(work))]
    assert deleted == ["snapshot-0419.db"] and shared_w == ["ledger.idx"]

    def at(start: int):
        return lambda output: (address(start, output.removeprefix("pmap_")),)

    asks = [
        Ask("most_resident", "extreme", "extreme", at(top_rss["start"]), "/proc/<pid>/smaps Rss, the largest",
            ("Which mapping holds the most resident memory?", "Where is most of this process's RSS?",
             "What is the biggest mapping by resident size? Give its address.")),
        Ask("deleted_file", "named", "named_item", tuple(deleted), "/proc/<pid>/smaps path marked (deleted)",
            ("Which mapped file no longer exists on disk?", "Is the process still mapping a removed file? Which?")),
        Ask("shared_writable", "named", "named_item", tuple(shared_w), "/proc/<pid>/smaps perms rw-s, a file",
            ("Which file is mapped shared and writable?", "Which file does the process write through a shared map?")),
        Ask("writable_executable", "named", "named_item", at(rwx), "/proc/<pid>/smaps perms rwxp, the only one",
            ("Which mapping is both writable and executable?", "Is there a W+X region? Where does it start?")),
        Ask("locked", "named", "named_item", at(locked), "/proc/<pid>/smaps Locked > 0, the only one",
            ("Which mapping is locked in memory?", "Where is the mlocked region?"), only=("pmap_X",)),
    ]
    outputs = {f"pmap_{f}": Output({"command": f"{cmd} $(pgrep -f ledger-worker)"}, "text", texts[f])
               for f, (cmd, _) in FORMS.items()}
    out = asked_cases(SOURCE, outputs, asks)
    assert len(out) >= 12, f"too few {SOURCE} cases: {len(out)}"
    return out

