"""A repository's objects as git's plumbing lists them: ``git ls-tree -r -l HEAD`` (mode, type,
object id, size, path; one row per file), ``git verify-pack -v`` of its pack (object id,
type, size, size in the pack, offset, delta depth and base; a chain-length histogram) and
``git count-objects -v`` (loose and packed counts and sizes), of a throwaway repository the
capture makes (a documentation site of ~185 files, four commits, packed by ``git gc``, then
one more commit left loose).

The tree is alike except for a few entries: one far larger file, one executable script, one
symbolic link, one submodule (a gitlink), one empty file. Facts come from the capture's
record of what it wrote, with object ids hashed by Python's ``hashlib`` the way git names
blobs (``blob <size>\\0<bytes>``), from ``git cat-file --batch-check`` (another plumbing
reader: each object's size on disk) and from the pack index read with the capture's own
parser (its fan-out table's object count), never from the listings' text. Held out (issue
33, eighth round): no dev source holds object listings.
"""

from __future__ import annotations

import hashlib
import random
import struct
from pathlib import Path
from typing import Any

from ._asked import Ask, Output, asked_cases
from ._run import run

SOURCE = "git_objects"
SECTIONS = ("install", "config", "deploy", "upgrade", "backup", "restore", "monitoring", "alerts", "scaling",
            "security", "networking", "storage", "logging", "tracing", "quotas", "migrations", "plugins", "faq")
SUBMODULE = "docs/plugins/theme-engine"  # a gitlink at a commit id of another repository
SUBMODULE_AT = "5d1c0e9a7b3f24c68e0d1a2b3c4d5e6f70819a2b"
STAMP = 1795100000


def blob_id(data: bytes) -> str:
    """The object id git gives a file's bytes (SHA-1 of the loose object header and body)."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def pack_count(idx: bytes) -> int:
    """The number of objects in a version-2 pack index: the last entry of its fan-out table."""
    assert idx[:4] == b"\377tOc" and struct.unpack(">I", idx[4:8])[0] == 2
    return struct.unpack(">I", idx[8 + 255 * 4: 8 + 256 * 4])[0]


def deepest_delta(batch_check: str) -> str:
    """The one object with the longest delta chain, from ``%(objectname) %(deltabase)`` lines
    (a base of all zeros: stored whole)."""
    base = dict(line.split() for line in batch_check.splitlines())

    def depth(oid: str) -> int:
        return 0 if set(base.get(oid, "0")) == {"0"} else 1 + depth(base[oid])

    ranked = sorted(base, key=depth, reverse=True)
    assert depth(ranked[0]) > depth(ranked[1]), "no one deepest object"
    return ranked[0]


def make_site(root: Path, rnd: random.Random) -> dict[str, bytes]:
    """The site's files, written under ``root``: the capture's record of every file's bytes."""
    words = ("run", "the", "service", "with", "a", "config", "file", "then", "check", "logs", "and", "restart",
             "node", "when", "ready")
    files: dict[str, bytes] = {}
    for s in SECTIONS:
        for page in ("index", "overview", "howto", "reference", "troubleshooting", "examples", "changelog",
                     "limits", "glossary", "cli"):
            text = "\n".join(" ".join(rnd.choices(words, k=14)) for _ in range(rnd.randint(10, 70)))
            files[f"docs/{s}/{page}.md"] = f"# {s} {page}\n\n{text}\n".encode()
    files["docs/networking/architecture-diagram.svg"] = b"<svg>" + bytes(rnd.randbytes(700_000).hex(), "ascii") + b"</svg>"
    files["docs/storage/.keep"] = b""
    files["docs/monitoring/check-health.sh"] = b"#!/bin/sh\nset -e\ncurl -fsS http://localhost:8080/health\n"
    for path, data in files.items():
        (root / path).parent.mkdir(parents=True, exist_ok=True)
        (root / path).write_bytes(data)
    (root / "docs/monitoring/check-health.sh").chmod(0o755)
    (root / "docs/latest").symlink_to("upgrade")
    return files


def _git(root: Path, *args: str, stdin: str | None = None) -> str:
    env = {"PATH": "/usr/bin:/bin", "LC_ALL": "C", "HOME": str(root.parent), "GIT_CONFIG_NOSYSTEM": "1", "TZ": "UTC",
           "GIT_AUTHOR_NAME": "Site Bot", "GIT_AUTHOR_EMAIL": "bot@docs.test", "GIT_COMMITTER_NAME": "Site Bot",
           "GIT_COMMITTER_EMAIL": "bot@docs.test", "GIT_AUTHOR_DATE": f"{STAMP} +0000",
           "GIT_COMMITTER_DATE": f"{STAMP} +0000"}
    return run(["git", "-C", str(root), *args], env=env, input=stdin).stdout


def make_repo(root: Path) -> dict[str, bytes]:
    """Four commits (the site, two rounds of edits to a few pages), packed; then one loose commit."""
    rnd = random.Random(33)
    root.mkdir()
    _git(root, "init", "-q", "-b", "main")
    files = make_site(root, rnd)
    _git(root, "add", "-A")
    (root / SUBMODULE).mkdir(parents=True)  # unpopulated, as after a clone without --recurse-submodules
    _git(root, "update-index", "--add", "--cacheinfo", f"160000,{SUBMODULE_AT},{SUBMODULE}")
    _git(root, "commit", "-q", "-m", "site: first import")
    for n in range(3):
        for path in rnd.sample(sorted(p for p in files if p.endswith(".md")), 12):
            files[path] += f"\nEdited in round {n}.\n".encode()
            (root / path).write_bytes(files[path])
        _git(root, "commit", "-q", "-am", f"docs: edits, round {n}")
    _git(root, "-c", "pack.threads=1", "gc", "-q")  # one thread: the same deltas each build
    files["docs/faq/index.md"] += b"\nOne more question.\n"
    (root / "docs/faq/index.md").write_bytes(files["docs/faq/index.md"])
    _git(root, "commit", "-q", "-am", "docs: faq")
    return files


def build(work: Path) -> list[dict[str, Any]]:
    root = work / "docs-site"
    files = make_repo(root)
    [idx] = sorted((root / ".git/objects/pack").glob("pack-*.idx"))
    texts = {"ls_tree": _git(root, "ls-tree", "-r", "-l", "HEAD"),
             "verify_pack": _git(root, "verify-pack", "-v", str(idx)),
             "count_objects": _git(root, "count-objects", "-v")}
    texts["verify_pack"] = texts["verify_pack"].replace(str(root), "/srv/docs-site")
    sizes = {k: len(v) for k, v in files.items()}
    biggest = max(sizes, key=sizes.get)
    disk = {}
    for line in _git(root, "cat-file", "--batch-all-objects", "--batch-check=%(objectname) %(objectsize:disk)",
                     "--unordered").splitlines():
        oid, size = line.split()
        disk[oid] = int(size)
    heaviest = max(disk, key=disk.get)
    deepest = deepest_delta(_git(root, "cat-file", "--batch-all-objects", "--batch-check=%(objectname) %(deltabase)"))
    root_commit = _git(root, "rev-list", "--max-parents=0", "HEAD").strip()
    pages = sorted((p for p in files if p.endswith(".md")), key=sizes.get, reverse=True)
    assert sizes[pages[0]] > sizes[pages[1]]
    largest_page = pages[0]
    assert heaviest == blob_id(files[biggest]), (heaviest, biggest)
    loose = sum(1 for d in (root / ".git/objects").iterdir() if len(d.name) == 2 for _ in d.iterdir())
    in_pack = pack_count(idx.read_bytes())
    named = ("docs/scaling/limits.md", "docs/security/cli.md")
    ls_only, pack_only, count_only = ("ls_tree",), ("verify_pack",), ("count_objects",)
    asks = [
        Ask("largest", "extreme", "extreme", (biggest,), "the capture's record: the file with the most bytes",
            ("Which file in the repo is the largest?", "What's the biggest file tracked at HEAD?"), ls_only),
        Ask("executable", "named", "named_item", ("docs/monitoring/check-health.sh",), "the capture's record: chmod 755",
            ("Which tracked file is executable?", "Is any file committed with the executable bit? Which?"), ls_only),
        Ask("symlink", "named", "named_item", ("docs/latest",), "the capture's record: the one symbolic link",
            ("Which path is a symlink in this tree?", "Are there symbolic links committed? Which?"), ls_only),
        Ask("submodule", "named", "named_item", (SUBMODULE,), "the capture's record: the gitlink it added",
            ("Which path is a submodule?", "Does the repo embed another repository somewhere?"), ls_only),
        Ask("submodule_commit", "named", "named_item", (SUBMODULE_AT,), "the capture's record: the gitlink's commit",
            ("Which commit is the submodule pinned to?", "What revision of the embedded repo is checked in?"),
            ls_only),
        Ask("not_files", "named", "named_item", ("docs/latest", SUBMODULE),
            "the capture's record: the symbolic link and the gitlink",
            ("Which entries in the tree aren't regular files?", "List the paths that are links or submodules."),
            ls_only),
        Ask("empty", "named", "named_item", ("docs/storage/.keep",), "the capture's record: the one empty file",
            ("Which tracked file is empty?", "Is there a zero-byte file in the tree?"), ls_only),
        *(Ask(f"blob_{n}", "named", "named_item", (blob_id(files[path]),), "hashlib SHA-1 of 'blob <n>\\0' + bytes",
              (f"What's the blob id of {path}?", f"Which object holds {path} at HEAD?"), ls_only)
          for n, path in enumerate(named)),
        Ask("heaviest_object", "extreme", "extreme", (heaviest,), "git cat-file %(objectsize:disk), the largest",
            ("Which object takes the most space in the pack?", "What's the biggest object in this packfile?"),
            pack_only),
        Ask("deepest_delta", "extreme", "extreme", (deepest,), "git cat-file %(deltabase) chains, the longest",
            ("Which object sits at the end of the longest delta chain?", "Which object has the deepest delta depth?"),
            pack_only),
        Ask("root_commit", "named", "named_item", (root_commit,), "git rev-list --max-parents=0 HEAD",
            ("Which commit object in the pack is the initial commit?", "Find the root commit among the packed objects."),
            pack_only),
        Ask("largest_page", "extreme", "extreme", (largest_page,), "the capture's record: the longest .md file",
            ("Which markdown page is the longest?", "What's the biggest .md file in the docs?"), ls_only),
        Ask("loose", "named", "named_item", (str(loose),), "files under .git/objects/<2 hex>/, counted",
            ("How many loose objects are there?", "How many objects aren't packed yet?"), count_only),
        Ask("in_pack", "named", "named_item", (str(in_pack),), "the pack index's fan-out table, last entry",
            ("How many objects are in packs?", "How many objects did gc pack?"), count_only + pack_only),
    ]
    commands = {"ls_tree": "git ls-tree -r -l HEAD", "verify_pack": "git verify-pack -v .git/objects/pack/pack-*.idx",
                "count_objects": "git count-objects -v"}
    outputs = {k: Output({"command": commands[k]}, "text", texts[k]) for k in texts}
    out = asked_cases(SOURCE, outputs, asks)
    assert len(out) >= 12, f"too few {SOURCE} cases: {len(out)}"
    return out
