"""Shared by the release-history captures: a throwaway git repository with one commit per
released archive of a real package, and the lookups asked of its ``git log --stat
--summary`` and of one ``git diff`` between two releases (which release added a file,
the largest release change, the oldest commit, which files a diff touches)."""

from __future__ import annotations

import re
import shutil
from collections import Counter
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ..cases import fact, make_case
from ..facts import spread
from ..questions import choose, pick
from ._run import run

_STAT = re.compile(r"^ \d+ files? changed(?:, (\d+) insertions?\(\+\))?(?:, (\d+) deletions?\(-\))?")


def commit_releases(repo: Path, trees: list[tuple[str, Path]], subject: Callable[[str], str]) -> Path:
    """Commit each (version, unpacked tree) in order into a new repository at ``repo``,
    tagged with its version; a release replaces the whole tree, so removed files show
    as deletes."""
    git = ["git", "-C", str(repo), "-c", "user.name=corpus", "-c", "user.email=corpus@localhost"]
    repo.mkdir()
    run([*git, "init", "-q", "-b", "main"])
    for version, tree in trees:
        for old in repo.iterdir():
            if old.name != ".git":
                shutil.rmtree(old) if old.is_dir() else old.unlink()
        shutil.copytree(tree, repo, dirs_exist_ok=True)
        run([*git, "add", "-A"])
        run([*git, "commit", "-q", "-m", subject(version)])
        run([*git, "tag", version])
    return repo


def _commits(log: str, prefix: str) -> list[tuple[str, int, list[str]]]:
    """(subject, lines changed, files created) per commit of ``git log --stat --summary``."""
    out, subject, created = [], "", []
    for ln in log.splitlines():
        if ln.startswith(f"    {prefix}"):
            subject, created = ln.strip(), []
        elif m := _STAT.match(ln):
            out.append([subject, int(m[1] or 0) + int(m[2] or 0), created])
        elif ln.startswith(" create mode "):
            created.append(ln.split(maxsplit=3)[3])
    return [tuple(c) for c in out]


def history_cases(source: str, repo: Path, first_subject: str, diff: tuple[str, str],
                  subject_prefix: str = "Import ") -> list[dict[str, Any]]:
    log = run(["git", "-C", str(repo), "log", "--stat", "--summary"]).stdout
    patch = run(["git", "-C", str(repo), "diff", *diff]).stdout
    commits = _commits(log, subject_prefix)
    # A file created by a later release (not the first import), and created only once.
    created = Counter(f for _, _, files in commits for f in files)
    later = [(s, f) for s, _, files in commits if s != first_subject for f in files if created[f] == 1]
    subject, added = later[len(later) // 2]
    biggest = max(commits[:-1], key=lambda c: c[1])  # the first import is not a change
    out = [make_case(source, "log_added_file", "text", "bash", {"command": "git log --stat --summary"}, "named",
                     choose(f"{source}/log_added_file", (f"Which release first shipped {added}?",
                                                          f"In which version did {added} appear?")), log,
                     [fact(subject, "named_item", f"commit whose summary creates {added}")]),
           make_case(source, "log_biggest", "text", "bash", {"command": "git log --stat --summary"}, "extreme",
                     choose(f"{source}/log_biggest", ("Which release changed the most lines?",
                                                      "Where is the largest change in this history?")), log,
                     [fact(biggest[0], "extreme", f"most insertions+deletions ({biggest[1]})")]),
           make_case(source, "log_first", "text", "bash", {"command": "git log --stat --summary"}, "last",
                     pick("last", f"{source}/log_first", "history listing"), log,
                     [fact(first_subject, "last_state", "the oldest commit, which git log lists last")])]
    touched = [ln[len("diff --git "):] for ln in patch.splitlines() if ln.startswith("diff --git ")]
    out.append(make_case(source, "diff_files", "text", "bash", {"command": f"git diff {diff[0]} {diff[1]}"}, "change",
                         pick("change", f"{source}/diff_files", "diff"), patch,
                         [fact(t, "change", "a file header of the diff") for t in spread(touched, 20)]))
    return out
