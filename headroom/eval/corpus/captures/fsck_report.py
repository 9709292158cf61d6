"""A damaged ext4 file system as its checker reports it, read-only: ``e2fsck -fn spool.img`` (pass
by pass, one finding of two or three lines a problem with the ``Fix? no`` the read-only mode
answers: inodes in use with a deletion time, wrong reference counts, entries pointing at cleared
inodes, invalid modes and symlinks, unattached inodes, then the bitmap differences; ~270 lines,
~8 kB) and ``e2fsck -fnv spool.img`` (the same, closed by a usage summary), of a mail-spool
image the capture makes with ``mkfs.ext4 -d`` from a folder it writes (1,560 small messages in
24 queues) and then damages with ``debugfs -w``, inode fields set, inodes cleared, an entry
unlinked. No root and no loop device: the image is a plain file.

Most damage is common (64 messages with a wrong link count from 2 to 6, twenty entries
whose inode is cleared); in the middle, six messages carry a link count of their
own, one message's mode is zeroed, one symlink's size is wrong, one inode is left with a
deletion time and one entry is unlinked, leaving its inode unattached. Facts come from the
capture's own record of what it damaged, with each file's inode number read by another program
before the damage (``debugfs -R 'ls -p'``, its slash-separated form), never from e2fsck's text;
a fact is kept only where it stands once (a cleared entry's name stands on two findings, so it
is never asked). Held out (issue 33, twenty-second round): dev holds an ext4 super-block dump
(``dumpe2fs``), mounts and file status, but no file-system checker's findings.
"""

from __future__ import annotations

import os
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ._asked import Ask, shell_cases
from ._run import run

SOURCE = "fsck_report"
QUEUES = 24
PER_QUEUE = 65
ODD_LINKS = (23, 31, 47, 58, 64, 77)  # link counts no other damaged message has (the common ones are 2-6)
MTIME = 1_796_000_000  # every file's modification time: the capture's, not the clock's


@dataclass
class Damage:
    """The capture's record: every file's inode (debugfs's reading), what was done to which."""

    inodes: dict[str, int] = field(default_factory=dict)  # "/spool/q07/m0123.eml" -> inode
    links: dict[str, int] = field(default_factory=dict)  # path -> link count set
    cleared: list[str] = field(default_factory=list)
    zero_mode: str = ""
    bad_link: str = ""
    dtime: str = ""
    unlinked: str = ""

    def commands(self) -> list[str]:
        out = [f"sif {p} links_count {n}" for p, n in self.links.items()]
        out += [f"clri {p}" for p in self.cleared]
        out += [f"sif {self.zero_mode} mode 0", f"sif {self.bad_link} size 4000",
                f"sif {self.dtime} dtime {MTIME}", f"unlink {self.unlinked}"]
        return out


def layout(rnd: random.Random, root: Path) -> list[str]:
    """The spool folder mkfs copies in: queues of messages, a symlink per queue; its paths."""
    paths = []
    for q in range(QUEUES):
        qdir = root / "spool" / f"q{q:02d}"
        qdir.mkdir(parents=True)
        for _ in range(PER_QUEUE):
            name = f"m{rnd.randint(100000, 999999)}.eml"
            while (qdir / name).exists():
                name = f"m{rnd.randint(100000, 999999)}.eml"
            (qdir / name).write_text(f"From: queue-{q}@shop.example\nSubject: {name}\n\n" + "x" * rnd.randint(10, 900))
            paths.append(f"/spool/q{q:02d}/{name}")
        # a link to a target long enough to live in a block of its own, not inside the inode
        os.symlink("/var/spool/archive/" + "/".join(f"shelf{q:02d}-{n}" for n in range(8)), qdir / "archive")
        paths.append(f"/spool/q{q:02d}/archive")
    for p in (root / "spool").rglob("*"):
        os.utime(p, (MTIME, MTIME), follow_symlinks=False)
    return paths


def read_inodes(image: Path, folders: list[str]) -> dict[str, int]:
    """Each file's inode number as debugfs reads the image (``ls -p``: /inode/mode/uid/gid/name/size/)."""
    out = {}
    for folder in folders:
        for line in run(["debugfs", "-R", f"ls -p {folder}", str(image)]).stdout.splitlines():
            parts = line.split("/")
            if len(parts) >= 7 and parts[5] not in (".", ".."):
                out[f"{folder}/{parts[5]}"] = int(parts[1])
    return out


def plan(rnd: random.Random, paths: list[str], inodes: dict[str, int]) -> Damage:
    d = Damage(inodes=inodes)
    messages = [p for p in paths if p.endswith(".eml")]
    links = [p for p in paths if p.endswith("/archive")]
    by_inode = sorted(messages, key=inodes.__getitem__)
    middle = by_inode[len(by_inode) // 3: 2 * len(by_inode) // 3]
    odd = rnd.sample(middle, len(ODD_LINKS) + 3)
    rest = [p for p in messages if p not in odd]
    common = rnd.sample(rest, 84)
    for p in common[:64]:
        d.links[p] = rnd.randint(2, 6)
    d.cleared = common[64:]
    for p, n in zip(odd, ODD_LINKS, strict=False):
        d.links[p] = n
    d.zero_mode, d.dtime, d.unlinked = odd[len(ODD_LINKS):]
    d.bad_link = rnd.choice(links[QUEUES // 3: 2 * QUEUES // 3])
    return d


def _asks(d: Damage) -> list[Ask]:
    note = "the capture's record of the damage it did; inode numbers as debugfs read the image before it"
    asks = [Ask("zero_mode", "named", "named_item", (d.zero_mode,), note,
                ("Which file has an invalid mode?", "What path does e2fsck flag for a bad mode?")),
            Ask("bad_link", "named", "named_item", (d.bad_link,), note,
                ("Which symlink is invalid?", "What symbolic link does the check reject?")),
            Ask("dtime", "named", "named_item", (str(d.inodes[d.dtime]),), note,
                ("Which inode is in use but has a deletion time set?",
                 "What inode number has dtime set while still in use?")),
            Ask("unattached", "named", "named_item", (str(d.inodes[d.unlinked]),), note,
                ("Which inode is unattached?", "What inode has no directory entry pointing at it?"))]
    for p, n in d.links.items():
        if n in ODD_LINKS:
            asks.append(Ask(f"links_{n}", "named", "named_item", (str(d.inodes[p]),), note,
                            (f"Which inode has a reference count of {n}?",
                             f"What inode does e2fsck say has {n} references?")))
    return asks


def build(work: Path) -> list[dict[str, Any]]:
    rnd = random.Random(2205)
    root = work / "root"
    paths = layout(rnd, root)
    src = work / "src"
    src.mkdir()
    image = src / "spool.img"
    env = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL": "C", "E2FSPROGS_FAKE_TIME": str(MTIME)}
    # a fixed UUID, hash seed and clock, so a rebuild makes the same image
    run(["mkfs.ext4", "-q", "-F", "-d", str(root), "-L", "spool", "-U", "6d1f3c2a-8b4e-4f1a-9c7d-2e5b0a4f8c31",
         "-E", "root_owner=0:0,hash_seed=0f4e2d1c-3b5a-4978-8695-a4b3c2d1e0f9", "-N", "2048", str(image), "8M"],
         env=env)
    inodes = read_inodes(image, sorted({p.rsplit("/", 1)[0] for p in paths}))
    assert set(inodes) == set(paths)
    damage = plan(rnd, paths, inodes)
    (work / "damage.cmds").write_text("\n".join(damage.commands()) + "\n")
    run(["debugfs", "-w", "-f", str(work / "damage.cmds"), str(image)], env=env)
    commands = {"check": "e2fsck -fn spool.img", "verbose": "e2fsck -fnv spool.img"}
    # e2fsck exits 4 when errors are left uncorrected: the finding, not a failure
    return shell_cases(SOURCE, commands, _asks(damage), cwd=src, env=env, check=False, least=8)
