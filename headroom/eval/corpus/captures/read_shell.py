"""Held-out shell scripts that Debian packages ship (git's contrib scripts, perf's shell
tests, postgresql-common's repository setup, ...), read whole; questions describe one
shell function by the comment block above it."""

from __future__ import annotations

import glob
from pathlib import Path
from typing import Any

from ._source_files import brace_functions, file_cases

SOURCE = "read_shell"
PATTERNS = ("/usr/share/doc/git/contrib/*/*.sh", "/usr/share/doc/git/contrib/*/*/*.sh", "/usr/lib/perf-core/tests/shell/*.sh",
            "/usr/lib/perf-core/tests/shell/lib/*.sh", "/usr/share/postgresql-common/pgdg/*.sh", "/usr/lib/git-core/git-*.sh",
            "/usr/share/debconf/*.sh", "/usr/lib/git-core/git-sh-setup", "/usr/share/bash-completion/completions/git")


def build(work: Path) -> list[dict[str, Any]]:
    paths = sorted({p for pat in PATTERNS for p in glob.glob(pat) if Path(p).stat().st_size > 6000})
    return file_cases(SOURCE, [(p, Path(p)) for p in paths], lambda t: brace_functions(t, shell=True), per_file=1)
