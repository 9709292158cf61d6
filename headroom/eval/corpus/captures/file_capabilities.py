"""File capabilities as libcap's ``getcap`` lists them: ``getcap -r opt`` (one line a file that
carries capabilities: its path and the sets in libcap's text form, ``cap_net_bind_service=ep``;
~140 lines, ~8.5 kB) and ``getcap -v -r opt`` (every file and folder searched, most with no
capabilities; ~600 lines, ~27 kB), of a vendor tree the capture lays out: ~380 programs of
twelve vendors, ~130 of them given the usual network capabilities (binding low ports, raw
sockets, both with network administration) by ``setcap``.

In the middle, a few programs carry a capability no other has: reading past file permissions,
setting user and group ids, tracing other processes, administering the system, locking memory,
setting the clock, changing owners, signalling any process, and one holds a capability in its inheritable set only. Facts come from
another reader of the same files, never from getcap's text: each file's ``security.capability``
extended attribute read with ``os.getxattr`` and its bit masks unpacked with ``struct`` (the
kernel's capability numbers); a fact is kept only where it stands once (a path stands once; the
common capability strings stand on many lines, so only the odd holders' paths are asked). Held
out (issue 33, twenty-first round): dev lists file modes, owners and process capabilities
(``stat``, ``ls -l``, ``/proc/PID/status``), but no file capabilities.
"""

from __future__ import annotations

import os
import random
import struct
from pathlib import Path
from typing import Any

from ._asked import Ask, shell_cases
from ._run import run

SOURCE = "file_capabilities"
# The kernel's capability numbers (linux/capability.h), for the ones this capture sets.
CAP_NUMBERS = {"cap_chown": 0, "cap_dac_read_search": 2, "cap_kill": 5, "cap_setgid": 6, "cap_setuid": 7, "cap_net_bind_service": 10,
               "cap_net_admin": 12, "cap_net_raw": 13, "cap_ipc_lock": 14, "cap_sys_ptrace": 19,
               "cap_sys_admin": 21, "cap_sys_time": 25}
COMMON = ("cap_net_bind_service=ep", "cap_net_raw=ep", "cap_net_admin,cap_net_raw=ep")
# capability -> (what setcap is given, how the question names what it lets a program do)
ODD = {"cap_dac_read_search": ("cap_dac_read_search=ep", "read any file regardless of its permissions"),
       "cap_setuid": ("cap_setuid,cap_setgid=ep", "switch to another user id"),
       "cap_sys_ptrace": ("cap_sys_ptrace=eip", "trace other processes"),
       "cap_sys_admin": ("cap_sys_admin=ep", "perform system administration (the broadest capability)"),
       "cap_ipc_lock": ("cap_ipc_lock=ep", "lock memory"),
       "cap_sys_time": ("cap_sys_time=ep", "set the system clock"),
       "cap_chown": ("cap_chown=ep", "change the owner of any file"),
       "cap_kill": ("cap_kill=ep", "send signals to any process")}
INHERITABLE_ONLY = "cap_net_raw=i"
VENDORS = ("acme", "borealis", "corvid", "dunmore", "eastwick", "fernhill", "galloway", "hollis", "ivory", "jarrow",
           "kelda", "larkspur")
TOOLS = ("probe", "relay", "agent", "meter", "watch", "sync", "proxy", "ping", "shaper", "tap", "beacon", "scout",
         "bridge", "sniff", "pulse")


def plan(rnd: random.Random) -> list[str]:
    """Every program's path."""
    paths = []
    for v in VENDORS:
        for t in rnd.sample(TOOLS, 9):
            # no name is the start of another (a bare "acme-ping" would be part of "acme-ping-ctl")
            for suffix in rnd.sample(("-cli", "-ctl", "-daemon", "-helper"), rnd.randint(3, 4)):
                paths.append(f"opt/{v}/{t}/bin/{v}-{t}{suffix}")
    return paths


def assign(rnd: random.Random, order: list[str]) -> dict[str, str]:
    """The capability string setcap gives each capped program; ``order`` is the order getcap
    will walk them in (the directory order on disk), so the odd ones go to its middle third."""
    caps = {p: rnd.choice(COMMON) for p in rnd.sample(order, 130)}
    odd = rnd.sample(order[len(order) // 3: 2 * len(order) // 3], len(ODD) + 1)
    for p, (text, _) in zip(odd, ODD.values(), strict=False):
        caps[p] = text
    caps[odd[-1]] = INHERITABLE_ONLY
    return caps


def unpack_caps(raw: bytes) -> tuple[int, int]:
    """(permitted, inheritable) bit masks of a security.capability value (struct vfs_cap_data:
    magic and flags, then permitted and inheritable, low words then high)."""
    _, perm_lo, inh_lo, perm_hi, inh_hi = struct.unpack_from("<5I", raw)
    return perm_lo | perm_hi << 32, inh_lo | inh_hi << 32


def read_caps(path: Path) -> tuple[int, int]:
    return unpack_caps(os.getxattr(path, "security.capability"))


def holders(root: Path, paths: list[str]) -> dict[str, list[tuple[str, int, int]]]:
    """Per capability name, the files whose permitted or inheritable set holds it."""
    out: dict[str, list[tuple[str, int, int]]] = {c: [] for c in CAP_NUMBERS}
    for p in paths:
        try:
            perm, inh = read_caps(root / p)
        except OSError:
            continue  # no capabilities on this file
        for name, bit in CAP_NUMBERS.items():
            if (perm | inh) >> bit & 1:
                out[name].append((p, perm, inh))
    return out


def _asks(root: Path, paths: list[str]) -> list[Ask]:
    note = "os.getxattr of security.capability, unpacked with struct"
    held = holders(root, paths)
    asks = []
    for cap, (_, what) in ODD.items():
        asks.append(Ask(f"holder_{cap}", "named", "named_item", tuple(p for p, _, _ in held[cap]), note,
                        (f"Which program is allowed to {what}?", f"What binary has {cap}?")))
    inh_only = tuple(p for p in paths if (p in {q for q, _, _ in held["cap_net_raw"]})
                     and read_caps(root / p)[0] == 0)
    asks.append(Ask("inheritable_only", "named", "extreme", inh_only, note,
                    ("Which file holds a capability only in its inheritable set?",
                     "What program's capability is inheritable but not permitted or effective?")))
    return asks


def build(work: Path) -> list[dict[str, Any]]:
    rnd = random.Random(2105)
    paths = plan(rnd)
    root = work / "vendor"
    for p in paths:
        f = root / p
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text("#!/bin/sh\nexit 0\n")
        f.chmod(0o755)
    # getcap -r walks depth first in directory order, as os.walk does here (files sit in leaf folders only)
    order = [str((Path(d) / f).relative_to(root)) for d, _, fs in os.walk(root / "opt") for f in fs]
    caps = assign(rnd, order)
    for p, text in caps.items():
        run(["setcap", text, str(root / p)])
    env = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL": "C"}
    commands = {"capped": "getcap -r opt", "verbose": "getcap -v -r opt"}
    return shell_cases(SOURCE, commands, _asks(root, paths), cwd=root, env=env)
