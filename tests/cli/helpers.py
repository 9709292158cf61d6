"""Run the real `headroom` command line in a subprocess, as a user would."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


@dataclass
class Ran:
    rc: int
    out: str
    err: str

    @property
    def err_lines(self) -> list[str]:
        return [line for line in self.err.splitlines() if line.strip()]


def headroom(*args: str, cwd: Path, env: dict[str, str] | None = None, stdin: str | None = None,
             timeout: float = 120) -> Ran:
    full_env = {**os.environ, "PYTHONPATH": str(REPO), "COLUMNS": "80", **(env or {})}
    p = subprocess.run([sys.executable, "-m", "headroom", *args], cwd=cwd, env=full_env, input=stdin,
                       capture_output=True, text=True, timeout=timeout, check=False)
    return Ran(p.returncode, p.stdout, p.stderr)


def assert_one_line_error(r: Ran, command: str) -> str:
    """Non-zero exit, no traceback, and exactly one error line naming the command (a bad
    flag's usage block may precede it)."""
    assert r.rc != 0, (r.out, r.err)
    assert "Traceback" not in r.err and "Traceback" not in r.out, r.err
    errors = [line for line in r.err_lines if ": error: " in line]
    assert len(errors) == 1, r.err
    assert errors[0].startswith(f"headroom {command}: error: "), r.err
    others = [line for line in r.err_lines if line not in errors]
    assert all(line.startswith(("usage:", " ")) for line in others), r.err  # only a usage block
    return errors[0]
