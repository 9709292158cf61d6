"""Git history of a throwaway repository built from successive released tarballs of a
real package (commander, the Node CLI-parsing library, fetched with ``npm pack``): one commit per release, then
``git log --stat --summary`` and the ``git diff`` between two releases. Lookups on a
history nobody on this project wrote: which release added a file, the largest release
change, which files a diff touches."""

from __future__ import annotations

import os
import tarfile
from pathlib import Path
from typing import Any

from ._release_history import commit_releases, history_cases
from ._run import run

SOURCE = "commander_releases"
PACKAGE = "commander"
RELEASES = ("5.0.0", "6.0.0", "7.0.0", "8.0.0", "9.0.0", "10.0.0", "11.0.0", "12.0.0")
DIFF = ("11.0.0", "12.0.0")


def _subject(version: str) -> str:
    return f"Import {PACKAGE} {version} from its npm tarball"


def _trees(work: Path) -> list[tuple[str, Path]]:
    tarballs = work / "tarballs"
    tarballs.mkdir()
    run(["npm", "pack", *(f"{PACKAGE}@{v}" for v in RELEASES), "--loglevel=error"], cwd=tarballs, timeout=300,
        env={**os.environ, "npm_config_update_notifier": "false"})
    for v in RELEASES:
        with tarfile.open(tarballs / f"{PACKAGE}-{v}.tgz") as tar:
            tar.extractall(work / v, filter="data")
    return [(v, work / v / "package") for v in RELEASES]


def build(work: Path) -> list[dict[str, Any]]:
    repo = commit_releases(work / "repo", _trees(work), _subject)
    return history_cases(SOURCE, repo, _subject(RELEASES[0]), DIFF)
