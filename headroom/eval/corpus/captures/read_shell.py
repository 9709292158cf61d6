"""Held-out shell scripts that Debian packages install (scripts under ``/usr/bin``,
bash-completion's completion functions, git's contrib scripts), read whole; questions
describe one shell function by the comment block above it."""

from __future__ import annotations

import glob
from pathlib import Path
from typing import Any

from ._source_files import brace_functions, file_cases

SOURCE = "read_shell"
PATTERNS = ("/usr/bin/*", "/usr/share/bash-completion/completions/*", "/usr/share/doc/git/contrib/*/*.sh",
            "/usr/share/doc/git/contrib/*/*/*.sh")
MAX_FILES = 16


def _is_shell_script(path: str) -> bool:
    p = Path(path)
    if not p.is_file() or p.is_symlink() or p.stat().st_size < 6000:
        return False
    with open(p, "rb") as f:
        head = f.read(64)
    return (head.startswith(b"#!") and (b"sh" in head.split(b"\n")[0])) or "completions" in path


def _functions(text: str):
    return brace_functions(text, shell=True)


def build(work: Path) -> list[dict[str, Any]]:
    paths = sorted({p for pat in PATTERNS for p in glob.glob(pat) if _is_shell_script(p)})
    files = []
    for p in paths:
        try:
            text = Path(p).read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        if any(len(d.body) >= 8 and d.name.lower() not in d.purpose.lower() for d in _functions(text)):
            files.append((p, Path(p)))
    return file_cases(SOURCE, files[:MAX_FILES], _functions, per_file=2)
