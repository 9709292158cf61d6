"""A file-system table as util-linux checks it: ``findmnt --verify --tab-file fstab`` (per entry
its mount point, then one indented ``[E]`` or ``[W]`` line a problem found: a target or source
unreachable at boot, a file-system type the kernel lacks; a closing count of parse errors,
errors and warnings; ~400 lines, ~24 kB) and ``findmnt --verify --verbose --tab-file fstab``
(every check, passed ones as ``[ ]`` lines, with the VFS and userspace options it read; ~490
lines, ~26 kB), of a storage host's fstab the capture writes: ~130 entries for archive,
backup and scratch volumes under ``/srv/vault``, by UUID, most ext4 or xfs with ``noatime``.

No target exists on the build machine and no source is attached, so every entry reports both;
in the middle, three entries use a file-system type no kernel here knows (on a logical volume:
findmnt checks no type behind a missing UUID source), four carry a
userspace option no other has (automount, an idle timeout, a comment, an initrd mount), three a
VFS option of their own (``sync``, ``dirsync``, ``lazytime``), and four are named by label or
partition label rather than UUID. Facts come from the capture's own record of the table it
wrote, checked against the machine (``os.path.exists`` on every target, ``/proc/filesystems``
for the kernel's types), never from findmnt's text; a fact is kept only where it stands once.
Held out (issue 33, twenty-second round): dev holds the mount table and disk usage (``findmnt``,
``df``), but no check of a configured table. Measured once with the odd types on UUID sources,
where findmnt printed no type at all: those six cases could not be answered from the output
(docs/decisions.md, "Round 22's misses, read"); the volumes came after, in the twentieth session.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ._asked import Ask, shell_cases

SOURCE = "fstab_verify"
ROOT = "/srv/vault"
ROLES = ("archive", "backup", "scratch", "media", "ledger", "mirror")
ODD_TYPES = ("zonefs9", "lustre3", "orangefs7")  # types no kernel here registers (checked)
ODD_USER = {"x-systemd.automount": "mounted on first access (automount)",
            "x-systemd.idle-timeout=600": "unmounted after ten idle minutes",
            "comment=cold-tier": "carrying a comment option",
            "x-initrd.mount": "mounted from the initrd"}
ODD_VFS = ("sync", "dirsync", "lazytime")


@dataclass
class Entry:
    source: str
    target: str
    fstype: str
    options: list[str]


@dataclass
class Table:
    """The capture's record: the entries in order and which carry what."""

    entries: list[Entry] = field(default_factory=list)
    odd_type: dict[str, str] = field(default_factory=dict)  # type -> target
    odd_user: dict[str, str] = field(default_factory=dict)  # option -> target
    odd_vfs: dict[str, str] = field(default_factory=dict)  # option -> target
    labelled: list[Entry] = field(default_factory=list)

    def text(self) -> str:
        lines = ["# /etc/fstab of vault-07: generated", "# <source> <target> <type> <options> <dump> <pass>"]
        lines += [f"{e.source} {e.target} {e.fstype} {','.join(e.options)} 0 2" for e in self.entries]
        return "\n".join(lines) + "\n"


def _uuid(rnd: random.Random) -> str:
    h = f"{rnd.getrandbits(128):032x}"
    return f"{h[:8]}-{h[8:12]}-4{h[13:16]}-a{h[17:20]}-{h[20:]}"


def plan(rnd: random.Random) -> Table:
    t = Table()
    targets = [f"{ROOT}/{role}/{role[:2]}{n:03d}" for role in ROLES for n in rnd.sample(range(100, 999), 22)]
    rnd.shuffle(targets)
    for target in targets:
        opts = ["defaults", "noatime"] if rnd.random() < 0.7 else ["defaults"]
        t.entries.append(Entry(f"UUID={_uuid(rnd)}", target, rnd.choice(("ext4", "ext4", "xfs")), opts))
    n = len(t.entries)
    odd = rnd.sample(t.entries[n // 4: 3 * n // 4], len(ODD_TYPES) + len(ODD_USER) + len(ODD_VFS) + 4)
    for k, (fstype, e) in enumerate(zip(ODD_TYPES, odd, strict=False)):
        e.fstype = fstype
        # A logical volume, not a UUID: findmnt checks an entry's type only where its source
        # is not required at boot by UUID (a missing UUID source ends the entry's checks, and
        # the type would stand nowhere in the output; round 22 was measured so, see below).
        e.source = f"/dev/mapper/vg_vault-lv{k + 1:02d}"
        t.odd_type[fstype] = e.target
    odd = odd[len(ODD_TYPES):]
    for option, e in zip(ODD_USER, odd, strict=False):
        e.options.append(option)
        t.odd_user[option] = e.target
    odd = odd[len(ODD_USER):]
    for option, e in zip(ODD_VFS, odd, strict=False):
        e.options.append(option)
        t.odd_vfs[option] = e.target
    for k, e in enumerate(odd[len(ODD_VFS):]):
        e.source = f"LABEL=vault-{e.target.rsplit('/', 1)[1]}" if k % 2 else f"PARTLABEL={e.target.rsplit('/', 1)[1]}-data"
        t.labelled.append(e)
    return t


def kernel_types() -> set[str]:
    """The file-system types the running kernel registers (``/proc/filesystems``)."""
    return {line.split()[-1] for line in Path("/proc/filesystems").read_text().splitlines() if line.strip()}


def _asks(t: Table) -> list[Ask]:
    note = "the capture's record of the fstab it wrote (os.path.exists on the targets, /proc/filesystems)"
    asks = []
    for fstype, target in t.odd_type.items():
        asks.append(Ask(f"type_{fstype}", "named", "named_item", (target,), note,
                        (f"Which mount point uses the {fstype} file system the kernel lacks?",
                         f"What entry is configured as {fstype}?")))
    for option, target in t.odd_user.items():
        asks.append(Ask(f"user_{option.split('=')[0]}", "named", "named_item", (target,), note,
                        (f"Which mount point is {ODD_USER[option]}?", f"What entry has the {option} option?"),
                        ("verbose",)))
    for option, target in t.odd_vfs.items():
        asks.append(Ask(f"vfs_{option}", "named", "named_item", (target,), note,
                        (f"Which mount point is mounted with {option}?", f"What entry sets the {option} VFS option?"),
                        ("verbose",)))
    for e in t.labelled:
        asks.append(Ask(f"source_{e.target.rsplit('/', 1)[1]}", "named", "named_item", (e.source,), note,
                        (f"What source does {e.target} mount?", f"Which device spec is configured for {e.target}?")))
    return asks


def build(work: Path) -> list[dict[str, Any]]:
    rnd = random.Random(2206)
    t = plan(rnd)
    assert not any(Path(e.target).exists() for e in t.entries), "a vault target exists on this machine"
    assert not set(ODD_TYPES) & kernel_types()
    src = work / "src"
    src.mkdir()
    (src / "fstab").write_text(t.text())
    commands = {"check": "findmnt --verify --tab-file fstab",
                "verbose": "findmnt --verify --verbose --tab-file fstab"}
    env = {"PATH": "/usr/bin:/bin", "LC_ALL": "C"}
    # findmnt exits 1 when it finds errors: the finding, not a failure
    return shell_cases(SOURCE, commands, _asks(t), cwd=src, env=env, check=False)
