"""Recursive long directory listings: GNU ``ls -laR`` (one section per directory, a ``total``
line, mode, links, owner, group, size, date, name, ``-> target`` for links) and GNU ``find
-ls`` (inode, blocks, mode, links, owner, group, size, date, path) of a service's data tree
the capture makes (~30 directories, ~400 entries).

The tree is alike except for a few entries: one far larger file, one file seven years older
than the rest and one dated a day after them, one owned by a user the system does not know,
one readable by its owner only, one set-user-ID helper, one symbolic link, two names for one
file (a hard link), one named pipe and one sticky world-writable directory. Facts come from
``os.lstat`` of the same tree (another reader), checked against the capture's own record,
never from the listings' text: the answer is an entry's name (its path for ``find``) or a
named file's inode number. Every odd entry sits in a directory in the middle of the walk.
Held out (issue 33, ninth round): no dev source holds recursive directory listings.
"""

from __future__ import annotations

import os
import random
import stat
from pathlib import Path
from typing import Any

from ._asked import Ask, Output, asked_cases
from ._run import run

SOURCE = "dir_listings"
TOP = "ledgerd"
STAMP = 1795100000  # 2026-11-19
SHARDS = tuple(f"shard-{n:02d}" for n in range(12))
KINDS = ("journal", "index", "snapshot", "wal")
ODD = {  # role: the entry (under TOP) that alone has it
    "largest": "data/shard-05/snapshot-0507.db",
    "oldest": "data/shard-06/journal-0603.log",
    "newest": "data/shard-07/index-0705.idx",
    "foreign": "data/shard-05/wal-0504.seg",
    "private": "keys/replica-signing.pem",
    "setuid": "bin/ledger-fsck",
    "symlink": "data/shard-06/current",
    "fifo": "run/control.pipe",
    "sticky": "spool/incoming",
}
HARDLINK = ("data/shard-04/journal-0401.log", "archive/journal-0401.log")
INODE_OF = ("data/shard-03/index-0302.idx", "data/shard-08/wal-0805.seg")
ENV = {"PATH": "/usr/bin:/bin", "LC_ALL": "C", "TZ": "UTC"}


def make_tree(root: Path) -> None:
    rnd = random.Random(91)
    for shard in SHARDS:
        for kind in KINDS:
            for n in range(rnd.randint(6, 9) if kind != "snapshot" else 8):
                ext = {"journal": "log", "index": "idx", "snapshot": "db", "wal": "seg"}[kind]
                # numbered within the shard (journal-0603.log): a name says its directory in ls -R too
                path = root / "data" / shard / f"{kind}-{shard[-2:]}{n:02d}.{ext}"
                path.parent.mkdir(parents=True, exist_ok=True)
                path.write_bytes(rnd.randbytes(rnd.randint(1000, 60_000)))
    for sub in ("bin", "keys", "run", "spool/incoming", "spool/outgoing", "archive", "conf"):
        (root / sub).mkdir(parents=True, exist_ok=True)
    for name in ("ledgerd", "ledger-ctl", "ledger-dump"):
        (root / "bin" / name).write_bytes(rnd.randbytes(rnd.randint(20_000, 40_000)))
        (root / "bin" / name).chmod(0o755)
    for name in ("ledgerd.toml", "shards.toml", "replicas.toml", "limits.toml"):
        (root / "conf" / name).write_text("# settings\n" * rnd.randint(5, 40))
    (root / ODD["largest"]).write_bytes(rnd.randbytes(3_400_000))
    os.chown(root / ODD["foreign"], 4711, 4711)
    (root / ODD["private"]).write_text("-----BEGIN PRIVATE KEY-----\n" + "A" * 200 + "\n")
    (root / ODD["private"]).chmod(0o600)
    (root / ODD["setuid"]).write_bytes(rnd.randbytes(18_000))
    (root / ODD["setuid"]).chmod(0o4755)
    os.symlink("snapshot-0604.db", root / ODD["symlink"])
    os.mkfifo(root / ODD["fifo"], 0o620)
    (root / ODD["sticky"]).chmod(0o1777)
    os.link(root / HARDLINK[0], root / HARDLINK[1])
    for p in sorted(root.rglob("*")):
        when = STAMP + rnd.randint(0, 80_000)
        if p == root / ODD["oldest"]:
            when = STAMP - 7 * 365 * 86400
        elif p == root / ODD["newest"]:
            when = STAMP + 86400 + 3600
        os.utime(p, (when, when), follow_symlinks=False)


def tree_roles(root: Path) -> dict[str, Any]:
    """Each odd role's one entry as ``os.lstat`` sees the tree, and the named inodes."""
    seen = {str(p.relative_to(root)): p.lstat() for p in root.rglob("*")}
    files = {n: st for n, st in seen.items() if stat.S_ISREG(st.st_mode)}

    def only(test) -> str:
        hits = [n for n, st in seen.items() if test(st)]
        assert len(hits) == 1, hits
        return hits[0]

    by_size = sorted(files, key=lambda n: files[n].st_size, reverse=True)
    assert files[by_size[0]].st_size > 2 * files[by_size[1]].st_size
    return {"largest": by_size[0],
            "oldest": min(files, key=lambda n: files[n].st_mtime),
            "newest": max(files, key=lambda n: files[n].st_mtime),
            "foreign": only(lambda st: st.st_uid != 0),
            "private": only(lambda st: stat.S_ISREG(st.st_mode) and stat.S_IMODE(st.st_mode) == 0o600),
            "setuid": only(lambda st: st.st_mode & stat.S_ISUID),
            "symlink": only(lambda st: stat.S_ISLNK(st.st_mode)),
            "fifo": only(lambda st: stat.S_ISFIFO(st.st_mode)),
            "sticky": only(lambda st: st.st_mode & stat.S_ISVTX),
            "hardlinked": tuple(sorted(n for n, st in files.items() if st.st_nlink == 2)),
            "inodes": {n: str(seen[n].st_ino) for n in INODE_OF}}


def _spelled(path: str, output: str) -> str:
    """How the listing names an entry: ``find`` its path, ``ls -R`` its name in its section."""
    return f"./{TOP}/{path}" if output == "find_ls" else path.rsplit("/", 1)[-1]


def _asks(roles: dict[str, Any]) -> list[Ask]:
    def entry(role: str):
        return lambda output: (_spelled(roles[role], output),)

    questions = {
        "largest": ("extreme", "os.lstat: the largest regular file",
                    ("Which file in the data tree is the biggest?", "What's the largest file under ledgerd?")),
        "oldest": ("extreme", "os.lstat: the regular file with the oldest mtime",
                   ("Which file has the oldest modification time?", "Is there a stale file in here? Which one?")),
        "newest": ("extreme", "os.lstat: the regular file with the latest mtime",
                   ("Which file was modified most recently?", "What's the newest file in the tree?")),
        "foreign": ("named_item", "os.lstat: the one entry with uid != 0",
                    ("Which file isn't owned by root?", "Is anything owned by an unknown user? Which entry?")),
        "private": ("named_item", "os.lstat: the one regular file of mode 0600",
                    ("Which file is readable only by its owner?", "Is any file mode 600? Which one?")),
        "setuid": ("named_item", "os.lstat: the one entry with S_ISUID",
                   ("Is anything in the tree setuid?", "Which binary has the set-user-ID bit?")),
        "symlink": ("named_item", "os.lstat: the one symbolic link",
                    ("Which entry is a symbolic link?", "Is there a symlink in the tree? Which path?")),
        "fifo": ("named_item", "os.lstat: the one named pipe",
                 ("Is there a named pipe (FIFO) anywhere? Which one?", "Which entry is a FIFO?")),
        "sticky": ("named_item", "os.lstat: the one directory with the sticky bit",
                   ("Which directory has the sticky bit set?", "Is there a world-writable sticky directory?")),
    }
    asks = [Ask(role, "extreme" if kind == "extreme" else "named", kind, entry(role), note, wordings)
            for role, (kind, note, wordings) in questions.items()]
    asks.append(Ask("hardlinks", "named", "named_item",
                    lambda output: tuple(_spelled(n, output) for n in roles["hardlinked"]),
                    "os.lstat: the regular files with st_nlink == 2",
                    ("Which files are hard links to each other?", "Are there any hard-linked files? Which?"),
                    ("find_ls",)))
    for n, path in enumerate(INODE_OF):
        asks.append(Ask(f"inode_{n}", "named", "named_item", (roles["inodes"][path],), "os.lstat: st_ino",
                        (f"What's the inode number of {path}?", f"Which inode does {path} have?"), ("find_ls",)))
    return asks


def build(work: Path) -> list[dict[str, Any]]:
    root = work / TOP
    make_tree(root)
    roles = tree_roles(root)
    assert {k: roles[k] for k in ODD} == ODD, roles  # the record and the reader agree
    assert roles["hardlinked"] == tuple(sorted(HARDLINK)), roles["hardlinked"]
    texts = {"ls_laR": run(["ls", "-laR", TOP], cwd=work, env=ENV).stdout,
             "find_ls": run(["find", f"./{TOP}", "-ls"], cwd=work, env=ENV).stdout}
    commands = {"ls_laR": f"ls -laR {TOP}", "find_ls": f"find ./{TOP} -ls"}
    outputs = {name: Output({"command": commands[name]}, "text", texts[name]) for name in texts}
    out = asked_cases(SOURCE, outputs, _asks(roles))
    assert len(out) >= 12, f"too few {SOURCE} cases: {len(out)}"
    return out
