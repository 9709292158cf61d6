"""Git history of a throwaway repository built from successive released tarballs of a
real package (commander, the Node CLI-parsing library, fetched with ``npm pack``): one commit per release, then
``git log --stat --summary`` and the ``git diff`` between two releases. Lookups on a
history nobody on this project wrote: which release added a file, the largest release
change, which files a diff touches."""

from __future__ import annotations

import os
import re
import shutil
import tarfile
from collections import Counter
from pathlib import Path
from typing import Any

from ..cases import fact, make_case
from ..facts import spread
from ..questions import choose, pick
from ._run import run

SOURCE = "commander_releases"
PACKAGE = "commander"
RELEASES = ("5.0.0", "6.0.0", "7.0.0", "8.0.0", "9.0.0", "10.0.0", "11.0.0", "12.0.0")
DIFF = ("11.0.0", "12.0.0")
_STAT = re.compile(r"^ \d+ files? changed(?:, (\d+) insertions?\(\+\))?(?:, (\d+) deletions?\(-\))?")


def _subject(version: str) -> str:
    return f"Import {PACKAGE} {version} from its npm tarball"


def _repo(work: Path) -> Path:
    tarballs, repo = work / "tarballs", work / "repo"
    tarballs.mkdir()
    run(["npm", "pack", *(f"{PACKAGE}@{v}" for v in RELEASES), "--loglevel=error"], cwd=tarballs, timeout=300,
        env={**os.environ, "npm_config_update_notifier": "false"})
    git = ["git", "-C", str(repo), "-c", "user.name=corpus", "-c", "user.email=corpus@localhost"]
    repo.mkdir()
    run([*git, "init", "-q", "-b", "main"])
    for v in RELEASES:
        for old in repo.iterdir():  # a release replaces the whole tree (deleted files show as deletes)
            if old.name != ".git":
                shutil.rmtree(old) if old.is_dir() else old.unlink()
        with tarfile.open(tarballs / f"{PACKAGE}-{v}.tgz") as tar:
            tar.extractall(work / v, filter="data")
        shutil.copytree(work / v / "package", repo, dirs_exist_ok=True)
        run([*git, "add", "-A"])
        run([*git, "commit", "-q", "-m", _subject(v)])
        run([*git, "tag", v])
    return repo


def _commits(log: str) -> list[tuple[str, int, list[str]]]:
    """(subject, lines changed, files created) per commit of ``git log --stat --summary``."""
    out, subject, created = [], "", []
    for ln in log.splitlines():
        if ln.startswith("    Import "):
            subject, created = ln.strip(), []
        elif m := _STAT.match(ln):
            out.append([subject, int(m[1] or 0) + int(m[2] or 0), created])
        elif ln.startswith(" create mode "):
            created.append(ln.split(maxsplit=3)[3])
    return [tuple(c) for c in out]


def build(work: Path) -> list[dict[str, Any]]:
    repo = _repo(work)
    log = run(["git", "-C", str(repo), "log", "--stat", "--summary"]).stdout
    diff = run(["git", "-C", str(repo), "diff", *DIFF]).stdout
    commits = _commits(log)
    first_subject = _subject(RELEASES[0])
    # A file created by a later release (not the first import), and created only once.
    created = Counter(f for _, _, files in commits for f in files)
    later = [(s, f) for s, _, files in commits if s != first_subject for f in files if created[f] == 1]
    subject, added = later[len(later) // 2]
    biggest = max(commits[:-1], key=lambda c: c[1])  # the first import is not a change
    out = [make_case(SOURCE, "log_added_file", "text", "bash", {"command": "git log --stat --summary"}, "named",
                     choose(f"{SOURCE}/log_added_file", (f"Which release first shipped {added}?",
                                                          f"In which version did {added} appear?")), log,
                     [fact(subject, "named_item", f"commit whose summary creates {added}")]),
           make_case(SOURCE, "log_biggest", "text", "bash", {"command": "git log --stat --summary"}, "extreme",
                     choose(f"{SOURCE}/log_biggest", ("Which release changed the most lines?",
                                                      "Where is the largest change in this history?")), log,
                     [fact(biggest[0], "extreme", f"most insertions+deletions ({biggest[1]})")]),
           make_case(SOURCE, "log_first", "text", "bash", {"command": "git log --stat --summary"}, "last",
                     pick("last", f"{SOURCE}/log_first", "history listing"), log,
                     [fact(first_subject, "last_state", "the oldest commit, which git log lists last")])]
    touched = [ln[len("diff --git "):] for ln in diff.splitlines() if ln.startswith("diff --git ")]
    out.append(make_case(SOURCE, "diff_files", "text", "bash", {"command": f"git diff {DIFF[0]} {DIFF[1]}"}, "change",
                         pick("change", f"{SOURCE}/diff_files", "diff"), diff,
                         [fact(t, "change", "a file header of the diff") for t in spread(touched, 20)]))
    return out
