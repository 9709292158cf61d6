"""Duplicate files found for hard-linking, as util-linux 2.38's ``hardlink`` reports a dry run:
``hardlink -n -v /tmp/asset-mirror`` (one ``[DryRun] Linking A to B (-size)`` line a duplicate,
then a ``key: value`` summary; ~70 lines, ~8 kB) and ``hardlink -n -vvv /tmp/asset-mirror`` (the
scan first, one ``[device/inode/links] path`` line a file, then the links and the files skipped
for a content or attribute mismatch; ~350 lines, ~27 kB), of a mirrored asset store the capture
writes: ~270 files in a dozen folders, sixty pairs of identical copies, and six copies whose
content matches but whose mode or modification time does not (hardlink keeps those apart).

Facts come from the capture's own record of the copies it made (checked with ``hashlib`` and
``os.stat`` over the tree it wrote) and ``os.stat`` for inode numbers, never from hardlink's
text; a fact is kept only where it stands once. Every file has a name of its own and, apart from
the copies, a size of its own. The store sits at a fixed path under ``/tmp`` (hardlink prints
real paths), removed afterwards. Held out (issue 33, twenty-fourth round): dev holds checksum
listings, file status, listings and sizes on disk, but no search for duplicate files.
"""

from __future__ import annotations

import hashlib
import os
import random
import shutil
from pathlib import Path
from typing import Any

from ._asked import Ask, shell_cases

SOURCE = "hardlink_dedupe"
STORE = Path("/tmp/asset-mirror")
FOLDERS = ("css", "fonts", "img/hero", "img/icons", "img/products", "js/vendor", "js/app", "docs", "media",
           "locales", "data/feeds", "data/exports")
STEMS = ("atlas", "beacon", "canyon", "dynamo", "ember", "falcon", "glacier", "harvest", "island", "jungle",
         "kettle", "lantern", "meadow", "nebula", "orchid", "prairie", "quasar", "ripple", "summit", "tundra",
         "uplink", "voyage", "walnut", "xenon", "yonder", "zenith")
EXT = {"css": "css", "fonts": "woff2", "img": "png", "js": "js", "docs": "pdf", "media": "mp3", "locales": "json",
       "data": "csv"}
MTIME = 1_795_000_000
ENV = {"PATH": "/usr/bin:/bin", "LC_ALL": "C"}
COMMANDS = {"plain": f"hardlink -n -v {STORE}", "scan": f"hardlink -n -vvv {STORE}"}


def plan(rnd: random.Random) -> dict[str, Any]:
    """The capture's record: every file's size and seed, the identical pairs and the near ones."""
    names = rnd.sample([f"{a}-{b}" for a in STEMS for b in STEMS if a != b], 272)
    files = []
    for n, name in enumerate(names):
        folder = FOLDERS[n % len(FOLDERS)]
        files.append(f"{folder}/{name}.{EXT[folder.split('/')[0]]}")
    rnd.shuffle(files)
    sizes = rnd.sample(range(300, 60_000), len(files))
    pairs = [(files[2 * i], files[2 * i + 1]) for i in range(66)]
    return {"files": files, "size": dict(zip(files, sizes, strict=True)), "twins": pairs[:60],
            "odd_mode": pairs[60:64], "odd_time": pairs[64:]}


def write(p: dict[str, Any], root: Path, rnd: random.Random) -> None:
    content = {f: rnd.randbytes(p["size"][f]) for f in p["files"]}
    for a, b in p["twins"] + p["odd_mode"] + p["odd_time"]:
        content[b] = content[a]
    for f, data in content.items():
        path = root / f
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        path.chmod(0o644)
        os.utime(path, (MTIME, MTIME))
    for _, b in p["odd_mode"]:
        (root / b).chmod(0o600)
    for _, b in p["odd_time"]:
        os.utime(root / b, (MTIME + 86_400, MTIME + 86_400))


def identical(root: Path) -> set[frozenset[str]]:
    """Pairs of files with the same bytes, mode and modification time, by hashlib and os.stat."""
    seen: dict[tuple[str, int, int], list[str]] = {}
    for path in sorted(root.rglob("*")):
        if path.is_file():
            st = path.stat()
            key = (hashlib.sha256(path.read_bytes()).hexdigest(), st.st_mode, int(st.st_mtime))
            seen.setdefault(key, []).append(str(path.relative_to(root)))
    return {frozenset(v) for v in seen.values() if len(v) > 1}


def _asks(p: dict[str, Any], root: Path, rnd: random.Random) -> list[Ask]:
    note = "the capture's record of the copies it made (hashlib and os.stat over the tree); inodes by os.stat"
    twins = p["twins"]
    asks = []
    for a, b in rnd.sample(twins[10:50], 8):
        asked, answer = (a, b) if rnd.random() < 0.5 else (b, a)
        asks.append(Ask(f"twin_{Path(asked).stem}", "named", "named_item", (answer,), note,
                        (f"Which file is an identical copy of {asked}?", f"What file would {asked} be linked with?")))
    a, b = max(twins, key=lambda t: p["size"][t[0]])
    asks.append(Ask("largest", "extreme", "extreme", (a, b), note,
                    ("Which duplicate pair frees the most space?", "What two identical files are the largest?")))
    asks.append(Ask("linked", "named", "named_item", (str(len(twins)),), note,
                    ("How many files would be linked?", "How many duplicates does the dry run link?")))
    paired = {f for t in twins + p["odd_mode"] + p["odd_time"] for f in t}
    single = [f for f in p["files"] if f not in paired]
    for f in rnd.sample(single, 8):
        ino = os.stat(root / f).st_ino
        asks.append(Ask(f"inode_{Path(f).stem}", "named", "named_item", (f,), note,
                        (f"Which file has inode {ino}?", f"What path is inode {ino}?"), only=("scan",)))
    return asks


def build(work: Path) -> list[dict[str, Any]]:
    rnd = random.Random(2403)
    p = plan(rnd)
    shutil.rmtree(STORE, ignore_errors=True)
    STORE.mkdir()
    try:
        write(p, STORE, rnd)
        assert identical(STORE) == {frozenset(t) for t in p["twins"]}
        cases = shell_cases(SOURCE, COMMANDS, _asks(p, STORE, rnd), cwd=work, env=ENV, least=12)
    finally:
        shutil.rmtree(STORE, ignore_errors=True)
    return cases
