"""File status listings as GNU coreutils ``stat`` prints them: ``stat *`` (eight lines per
file: name, size and blocks, device and inode, access mode and owner, four times) and
``stat --terse *`` (one line of raw numbers per file), over a spool directory the capture
fills with 31 entries.

Most entries are alike (small regular files written on a few days, mode 0644, owned by
root); a few differ in one way each: one is much larger, one was last modified years
earlier, three names are hard links to one inode, one is set-user-ID, one is a FIFO, one a
symbolic link, one is readable by its owner only, one belongs to ``nobody``. Facts come
from the capture's own record of what it made and from ``os.lstat`` of each entry, never
from ``stat``'s text: the answer is the entry's name (or a named entry's inode number). A
fact is kept only where its text stands once in the output. Held out (issue 33, sixth
round): no dev source holds ``stat`` listings.
"""

from __future__ import annotations

import os
import random
import stat as st
from pathlib import Path
from typing import Any

from ..cases import fact, make_case
from ..questions import choose
from ._run import run

SOURCE = "stat_files"
DAY = 86400
BASE = 1795000000  # 2026-11-18, the routine files' week


def make_tree(root: Path) -> dict[str, str]:
    """The spool directory; returns its odd entries by role (the capture's record)."""
    rng = random.Random(33_6)
    root.mkdir()
    names = [f"job-{n}.dat" for n in sorted(rng.sample(range(1000, 9999), 26))]
    for i, name in enumerate(names):
        (root / name).write_bytes(rng.randbytes(rng.randint(900, 6000)))
        t = BASE + rng.randint(0, 6) * DAY + rng.randint(0, DAY - 1)
        os.utime(root / name, (t, t))
    role = {"largest": names[7], "oldest": names[15], "setuid": names[3], "private": names[20],
            "other_owner": names[11], "inode_of": names[23]}
    (root / role["largest"]).write_bytes(rng.randbytes(2_400_000))
    t = BASE - 6 * 365 * DAY
    os.utime(root / role["oldest"], (t, t))
    os.chmod(root / role["setuid"], 0o4755)
    os.chmod(root / role["private"], 0o600)
    os.chown(root / role["other_owner"], 65534, 65534)
    # hard links: two more names for one file
    for extra in ("job-latest.dat", "job-current.dat"):
        os.link(root / names[5], root / extra)
    role["linked"] = names[5]
    os.mkfifo(root / "job-control")
    role["fifo"] = "job-control"
    os.symlink(names[9], root / "job-previous.dat")
    role["symlink"] = "job-previous.dat"
    (root / "job-empty.dat").write_bytes(b"")
    role["empty"] = "job-empty.dat"
    return role


def build(work: Path) -> list[dict[str, Any]]:
    root = work / "spool"
    role = make_tree(root)
    entries = sorted(p.name for p in root.iterdir())
    info = {n: os.lstat(root / n) for n in entries}
    regular = [n for n in entries if st.S_ISREG(info[n].st_mode)]
    largest = max(regular, key=lambda n: info[n].st_size)
    oldest = min(entries, key=lambda n: info[n].st_mtime)
    links = sorted(n for n in entries if info[n].st_nlink > 1)
    assert largest == role["largest"] and oldest == role["oldest"] and len(links) == 3
    asked = [  # scenario, intent, kind, answers, note, wordings
        ("largest", "extreme", "extreme", [largest], "os.lstat st_size, the largest",
         ("Which file in the spool is the largest?", "What is the biggest file here?")),
        ("oldest", "extreme", "extreme", [oldest], "os.lstat st_mtime, the earliest",
         ("Which file was modified longest ago?", "What is the stalest file in this directory?")),
        ("hard_links", "named", "named_item", links, "os.lstat st_nlink > 1 (one inode)",
         ("Which names are hard links to the same file?", "Which entries share one inode?")),
        ("setuid", "named", "named_item", [role["setuid"]], "the capture chmod'ed it 4755",
         ("Which file has the set-user-ID bit?", "Is anything here setuid? Which file?")),
        ("fifo", "named", "named_item", [role["fifo"]], "the capture made it with mkfifo",
         ("Which entry is a named pipe?", "Which of these is a FIFO rather than a file?")),
        ("private", "named", "named_item", [role["private"]], "the capture chmod'ed it 600",
         ("Which file can only its owner read?", "Which file has no permissions for group and others?")),
        ("other_owner", "named", "named_item", [role["other_owner"]], "the capture chown'ed it to 65534",
         ("Which file is not owned by root?", "Which file belongs to a different user than the rest?")),
        ("empty", "named", "named_item", [role["empty"]], "the capture wrote it with no bytes",
         ("Which file is empty?", "Is there a zero-byte file in the spool? Which one?")),
        ("inode", "named", "named_item", [str(info[role["inode_of"]].st_ino)], "os.lstat st_ino",
         (f"What is the inode number of {role['inode_of']}?", f"Which inode does {role['inode_of']} live on?")),
    ]
    out = []
    for output, flags in (("long", []), ("terse", ["--terse"])):
        content = run(["stat", *flags, *entries], cwd=root, env={"PATH": "/usr/bin:/bin", "LC_ALL": "C",
                                                                 "TZ": "UTC"}).stdout
        args = {"command": f"cd /var/spool/jobs && stat {' '.join(flags)} *".replace("  ", " ")}
        content = content.replace(str(root), "/var/spool/jobs")
        for scen, intent, kind, answers, note, wordings in asked:
            if output == "terse" and scen in ("setuid", "private", "other_owner"):
                continue  # --terse writes mode and owner as bare numbers; asked in the long form
            q = choose(f"{SOURCE}/{output}_{scen}", wordings)
            facts = [fact(a, kind, note, basis="independent") for a in answers
                     if _once(content, a, output) and a not in q]
            if len(facts) != len(answers):
                continue
            sid = f"{output}_{scen}"
            out.append(make_case(SOURCE, sid, "text", "bash", args, intent, q, content, facts))
    assert len(out) >= 12, f"too few {SOURCE} cases: {len(out)}"
    return out


def _once(content: str, text: str, output: str) -> bool:
    """The answer stands once, as a whole field (a file name or a number, not a part of one)."""
    if output == "long" and not text.isdigit():
        return content.count(f"File: {text}\n") == 1 and content.count(text) == 1
    return sum(1 for line in content.splitlines() for w in line.split() if w == text) == 1 \
        and content.count(text) == 1
