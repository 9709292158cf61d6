"""Git history of a throwaway repository built from successive source distributions of
a real Python package (click, fetched from PyPI with ``pip download --no-binary``): one
commit per release, then ``git log --stat --summary`` and the ``git diff`` between two
releases — a larger, Python-shaped history (docs, tests, examples come and go) than the
npm tarballs of ``commander_releases``."""

from __future__ import annotations

import sys
import tarfile
from pathlib import Path
from typing import Any

from ._release_history import commit_releases, history_cases
from ._run import run

SOURCE = "click_releases"
PACKAGE = "click"
RELEASES = ("6.7", "7.0", "7.1.2", "8.0.0", "8.0.4", "8.1.0", "8.1.3", "8.1.7")
DIFF = ("8.0.4", "8.1.0")


def _subject(version: str) -> str:
    return f"Import {PACKAGE} {version} from its sdist"


def _trees(work: Path) -> list[tuple[str, Path]]:
    dl = work / "sdists"
    out = []
    for v in RELEASES:
        # --no-build-isolation is not used: pip prepares metadata with each release's own backend.
        run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--no-binary", ":all:",
             f"{PACKAGE}=={v}", "-d", str(dl)], timeout=300)
        archive = next(p for p in dl.iterdir() if p.name.lower().startswith(f"{PACKAGE}-{v}.tar"))
        with tarfile.open(archive) as tar:
            tar.extractall(work / v, filter="data")
        out.append((v, next((work / v).iterdir())))  # the archive's one top-level folder
    return out


def build(work: Path) -> list[dict[str, Any]]:
    repo = commit_releases(work / "repo", _trees(work), _subject)
    return history_cases(SOURCE, repo, _subject(RELEASES[0]), DIFF)
