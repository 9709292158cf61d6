"""Pathnames followed through their symbolic links as util-linux's ``namei`` prints them:
``namei PATH...`` (per path an ``f: PATH`` heading, then one line a component, ``d`` a
directory, ``l name -> target`` a link whose target's components follow one level deeper, ``-``
a file, ``x - No such file or directory`` where resolution stops; ~370 lines, ~7 kB) and
``namei -l PATH...`` (the same tree with each component's mode bits and owner and group; ~370
lines, ~14 kB), of a deployment tree the capture lays out: 40 services under ``srv/``, each with
a ``current`` link to a release of its own and the service's launcher reached through it; some
services' ``bin`` is itself a link into a shared tools folder.

In the middle, a few components have modes or owners no other has (a setuid launcher, a
group-only config folder, one file owned by ``postgres``, one by ``www-data``) and one service's
``current`` names a release that was never unpacked. Facts come from other readers of the same
tree, never from namei's text: ``os.readlink`` for a link's target, ``os.stat`` with
``stat.filemode`` and ``pwd`` for modes and owners, ``os.path.exists`` for the dangling link; a
fact is kept only where it stands once (a path's last component stands again in its heading, and
a target's components again on their own lines, so only whole targets, modes and owners are
asked). Held out (issue 33, twenty-first round): dev lists directories and file status
(``ls -l``, ``stat``, ``find``, ``du``), but no resolution of a path through its links.
"""

from __future__ import annotations

import os
import pwd
import random
import stat
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ._asked import Ask, shell_cases

SOURCE = "path_resolution"
SERVICES = ("billing", "ledger", "payouts", "invoices", "search", "mailer", "thumbs", "catalog", "checkout",
            "accounts", "media", "notify", "reports", "pricing", "replica", "sessions", "queue", "archive",
            "cache", "geo", "ratelimit", "tls", "routes", "headers", "bots", "health", "reindex", "cleanup",
            "backup", "exports", "digest", "warmup", "audit", "fraud", "refunds", "tax", "shipping", "returns",
            "loyalty", "coupons")
# (mode, owner) planted on one component each; every other component keeps 755/644 and root.
ODD_MODES = {"launcher": 0o4755, "conf": 0o2750}
ODD_OWNERS = ("postgres", "www-data")


@dataclass
class Tree:
    """The capture's record of the tree: per service its release, whether ``bin`` is a link
    (and to what), and the components given an odd mode or owner."""

    releases: dict[str, str] = field(default_factory=dict)
    bin_links: dict[str, str] = field(default_factory=dict)
    dangling: str = ""
    odd_mode: dict[str, str] = field(default_factory=dict)   # what -> service
    odd_owner: dict[str, str] = field(default_factory=dict)  # owner -> service

    def path(self, svc: str) -> str:
        return f"srv/{svc}/current/bin/{svc}d"

    def conf_path(self, svc: str) -> str:
        return f"srv/{svc}/current/conf/{svc}.toml"


def plan(rnd: random.Random) -> Tree:
    tree = Tree()
    for svc in SERVICES:
        # a release id of its own: date, build number and a short hash, so no id is part of another
        tree.releases[svc] = f"2026-11-{rnd.randint(10, 29)}-b{rnd.randint(100, 999)}-{rnd.getrandbits(24):06x}"
    middle = list(SERVICES[10:30])
    rnd.shuffle(middle)
    for svc in middle[:6]:
        tree.bin_links[svc] = f"../../../shared/tools-{rnd.getrandbits(20):05x}"
    tree.dangling = middle[6]
    tree.odd_mode = {"launcher": middle[7], "conf": middle[8]}
    tree.odd_owner = {"postgres": middle[9], "www-data": middle[10]}
    return tree


def lay_out(tree: Tree, root: Path) -> None:
    for svc, rel in tree.releases.items():
        base = root / "srv" / svc
        (base / "releases").mkdir(parents=True)
        os.symlink(f"releases/{rel}", base / "current")
        if svc == tree.dangling:
            continue  # the release this link names was never unpacked
        release = base / "releases" / rel
        (release / "conf").mkdir(parents=True)
        (release / "conf" / f"{svc}.toml").write_text(f"name = '{svc}'\n")
        if svc in tree.bin_links:
            target = tree.bin_links[svc]
            (release / target).resolve().mkdir(parents=True, exist_ok=True)
            ((release / target).resolve() / f"{svc}d").write_text("#!/bin/sh\n")
            os.symlink(target, release / "bin")
        else:
            (release / "bin").mkdir()
            (release / "bin" / f"{svc}d").write_text("#!/bin/sh\n")
    for p in root.rglob("*"):
        if not p.is_symlink():
            os.chmod(p, 0o755 if p.is_dir() else 0o644)
    os.chmod(root / tree.path(tree.odd_mode["launcher"]), ODD_MODES["launcher"])
    os.chmod((root / tree.conf_path(tree.odd_mode["conf"])).parent, ODD_MODES["conf"])
    for owner, svc in tree.odd_owner.items():
        os.chown(root / tree.conf_path(svc), pwd.getpwnam(owner).pw_uid, 0)


def _asks(tree: Tree, root: Path, rnd: random.Random) -> tuple[list[Ask], list[str]]:
    link_note = "os.readlink on the same tree"
    asks = []
    middle = [s for s in SERVICES[12:28] if s not in (tree.dangling, *tree.bin_links)]
    for svc in rnd.sample(middle, 6):
        target = os.readlink(root / "srv" / svc / "current")
        asks.append(Ask(f"current_{svc}", "named", "named_item", (target,), link_note,
                        (f"Which release does the {svc} service's current link point to?",
                         f"What is srv/{svc}/current a link to?")))
    for svc in rnd.sample(sorted(tree.bin_links), 3):
        target = os.readlink(root / "srv" / svc / "current" / "bin")
        asks.append(Ask(f"bin_{svc}", "named", "named_item", (target,), link_note,
                        (f"Where does the {svc} service's bin folder really live?", f"What does the bin link of {svc} resolve to?")))
    dangling = [s for s in SERVICES if not (root / "srv" / s / "current").exists()]
    asks.append(Ask("dangling", "named", "extreme", tuple(os.readlink(root / "srv" / s / "current") for s in dangling),
                    "os.path.exists on each current link's target",
                    ("Which current link points at a release that isn't there?",
                     "What release target is missing on disk?")))
    # modes and owners stand in the long form only
    launcher = root / tree.path(tree.odd_mode["launcher"])
    conf_dir = (root / tree.conf_path(tree.odd_mode["conf"])).parent
    mode_note = "os.stat and stat.filemode on the same tree"
    asks.append(Ask("setuid_mode", "named", "named_item", (stat.filemode(launcher.stat().st_mode),), mode_note,
                    (f"What mode bits does the {tree.odd_mode['launcher']} launcher have?",
                     f"Permissions of the {tree.odd_mode['launcher']}d binary?"), ("long",)))
    asks.append(Ask("conf_mode", "named", "named_item", (stat.filemode(conf_dir.stat().st_mode),), mode_note,
                    (f"What are the permissions on the conf directory of {tree.odd_mode['conf']}?",
                     f"Mode of the conf folder of {tree.odd_mode['conf']}?"), ("long",)))
    for svc in tree.odd_owner.values():
        found = pwd.getpwuid((root / tree.conf_path(svc)).stat().st_uid).pw_name
        asks.append(Ask(f"owner_{svc}", "named", "named_item", (found,), "os.stat and pwd on the same tree",
                        (f"Who owns the {svc} service's config file?", f"Which user is the owner of {svc}.toml?"), ("long",)))
    paths = []
    for svc in SERVICES:
        paths.append(tree.path(svc))
        if svc in (tree.odd_mode["conf"], *tree.odd_owner.values()):
            paths.append(tree.conf_path(svc))
    return asks, paths


def build(work: Path) -> list[dict[str, Any]]:
    rnd = random.Random(2103)
    tree = plan(rnd)
    root = work / "deploy"
    lay_out(tree, root)
    asks, paths = _asks(tree, root, rnd)
    env = {"PATH": "/usr/bin:/bin", "LC_ALL": "C"}
    listed = " ".join(paths)
    # namei exits 1 when a path does not resolve (the dangling release): a finding, not a failure
    commands = {"plain": f"namei {listed}", "long": f"namei -l {listed}"}
    return shell_cases(SOURCE, commands, asks, cwd=root, env=env, check=False)
