"""Linux namespaces as util-linux's ``lsns`` lists them: ``lsns`` (one row a namespace: its
inode number, type, how many processes are in it, the lowest of their PIDs, user and that
process's command, drawn as a tree of nested namespaces; ~130 lines, ~7 kB) and ``lsns -J`` (the
same as JSON; ~900 lines, ~27 kB), inside a fresh user and PID namespace (``unshare -rpf --mount-proc``)
where the capture starts ~150 named workers (links to ``sleep`` under role names), most of them in
network, UTS or IPC namespaces of their own, some groups sharing one.

In the middle, one group of five workers shares one network namespace (the others share theirs
by two or three), one worker alone has a mount namespace of its own. Facts come from another
reader of the same state: a Python process in the same namespaces reads each worker's
``/proc/PID/ns/*`` links with ``os.stat`` (the namespace's inode number) and ``cmdline``, never
lsns's text; a fact is kept only where it stands once. Held out (issue 33, twentieth round): dev
holds process tables, open files, IPC objects and locks in fresh namespaces, but no listing of
the namespaces themselves.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from ._asked import Ask, Output, asked_cases
from ._run import run

SOURCE = "namespace_listing"
ROLES = ("billing", "ingest", "mailer", "render", "search", "thumbs", "audit", "export", "resize", "notify")
TYPES = ("net", "uts", "ipc", "mnt")
COMMANDS = {"table": "lsns", "json": "lsns -J"}

READER = """
import json, os, sys
out = {}
for pid in os.listdir("/proc"):
    if not pid.isdigit():
        continue
    try:
        argv = open(f"/proc/{pid}/cmdline", "rb").read().split(b"\\0")[0].decode()
        out[pid] = {"argv0": argv, **{t: os.stat(f"/proc/{pid}/ns/{t}").st_ino for t in sys.argv[2:]}}
    except OSError:
        pass
json.dump(out, open(sys.argv[1], "w"))
"""


def plan(rnd: random.Random) -> tuple[list[tuple[str, list[str]]], dict[str, str]]:
    """Launch lines in order: (unshare flags, the workers started under them, first one last so
    it keeps the group's lowest PID by exec)."""
    names = [f"{r}-{n:02d}" for r in ROLES for n in range(1, 21)]
    rnd.shuffle(names)
    names = iter(names)
    groups: list[tuple[str, list[str]]] = []
    odd: dict[str, str] = {}
    for i in range(110):
        if i == 55:
            flags, size = "-n", 5
        elif i == 58:
            flags, size = "-m", 1
        else:
            flags = rnd.choice(("-n", "-n", "-u", "-i", "-n -u", ""))
            size = rnd.choice((1, 1, 1, 2, 3)) if flags == "-n" else 1
        members = [next(names) for _ in range(size)]
        groups.append((flags, members))
        if i == 55:
            odd["crowd"] = members[0]
        if i == 58:
            odd["mount"] = members[0]
    return groups, odd


def script(groups: list[tuple[str, list[str]]], bindir: Path, out: Path) -> str:
    lines = ["set -e", f"cd {bindir}"]
    for flags, members in groups:
        rest = "".join(f"./{m} 600 & " for m in members[1:])
        lines.append(f"unshare {flags} -- sh -c '{rest}exec ./{members[0]} 600' &" if flags else
                     f"./{members[0]} 600 &")
        lines.append("sleep 0.02")
    lines += ["sleep 1", f"python3 {out}/reader.py {out}/ns.json {' '.join(TYPES)}",
              f"cd {out} && lsns > table.txt && lsns -J > json.txt", "kill $(jobs -p) 2>/dev/null || true"]
    return "\n".join(lines) + "\n"


def _asks(groups: list[tuple[str, list[str]]], odd: dict[str, str], seen: dict[str, dict[str, Any]],
          rnd: random.Random) -> list[Ask]:
    by = {v["argv0"].removeprefix("./"): v for v in seen.values()}
    root = by[next(m for f, ms in groups if not f for m in ms)]
    note = "os.stat of the worker's /proc/PID/ns link in the same namespaces (its inode number)"
    asks = [Ask("crowd", "extreme", "extreme", (odd["crowd"],), "the capture's record of the workers it started",
                ("Which process leads the network namespace holding the most processes?",
                 "Whose net namespace has the most processes in it?")),
            Ask("mount", "named", "named_item", (odd["mount"],), "the capture's record of the workers it started",
                ("Which worker has a mount namespace of its own?", "What process runs in a separate mnt namespace?")),
            Ask("mount_ns", "named", "named_item", (str(by[odd["mount"]]["mnt"]),), note,
                (f"What is the inode of {odd['mount']}'s mount namespace?",
                 f"Which mnt namespace id belongs to {odd['mount']}?"))]
    solo = [ms[0] for f, ms in groups[25:85] if len(ms) == 1 and ms[0] not in odd.values()]
    for t, word in (("net", "network"), ("uts", "UTS"), ("ipc", "IPC")):
        own = [m for m in solo if by[m][t] != root[t]]
        for m in rnd.sample(own, min(3 if t == "net" else 2, len(own))):
            asks.append(Ask(f"{t}_{m}", "named", "named_item", (str(by[m][t]),), note,
                            (f"What is the {word} namespace id of {m}?", f"Which {t} namespace is {m} in?")))
    return asks


def build(work: Path) -> list[dict[str, Any]]:
    rnd = random.Random(2005)
    groups, odd = plan(rnd)
    bindir, out = work / "bin", work / "out"
    bindir.mkdir()
    out.mkdir()
    for _, members in groups:
        for m in members:
            (bindir / m).symlink_to("/bin/sleep")
    (out / "reader.py").write_text(READER)
    (work / "run.sh").write_text(script(groups, bindir, out))
    env = {"PATH": "/usr/bin:/bin:/usr/sbin:/sbin", "LC_ALL": "C"}
    run(["unshare", "-rpf", "--mount-proc", "bash", str(work / "run.sh")], env=env, timeout=120)
    seen = json.loads((out / "ns.json").read_text())
    outputs = {name: Output({"command": cmd}, "json" if name == "json" else "text", (out / f"{name}.txt").read_text())
               for name, cmd in COMMANDS.items()}
    cases = asked_cases(SOURCE, outputs, _asks(groups, odd, seen, rnd))
    assert len(cases) >= 12, f"too few {SOURCE} cases: {len(cases)}"
    return cases
