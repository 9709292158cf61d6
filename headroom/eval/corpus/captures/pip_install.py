"""``pip install -vv`` into a fresh venv and a ``pip download -vv`` that cannot be
satisfied (a pin to a release that does not exist), against PyPI as this machine's pip
configuration reaches it. Needs the network at build time only."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

from ..cases import fact, make_case
from ..facts import kinds_of
from ..questions import pick
from ._run import run

SOURCE = "pip_install"
PINS = ("attrs==23.2.0", "six==1.16.0", "idna==3.7", "packaging==24.0")
MISSING = "requests==0.0.1"


def _pip(work: Path, *args: str) -> str:
    venv = work / "venv"
    if not venv.exists():
        run([sys.executable, "-m", "venv", str(venv)])
    p = run([str(venv / "bin" / "pip"), *args, "--no-cache-dir", "--disable-pip-version-check"], check=False)
    return p.stdout + p.stderr


def _facts(text: str) -> tuple[list, list]:
    lines = [ln for ln in text.splitlines() if ln.strip()]
    errors = [ln for ln in lines if ln.startswith("ERROR:") or re.match(r"^[\w.]+(Error|NotFound): ", ln)]
    warnings = [ln for ln in lines if ln.startswith("WARNING:")]
    return ([fact(t, "error", "an ERROR: line or an exception's last line; one per template")
             for t in kinds_of(errors, (text,))],
            [fact(t, "warning", "a WARNING: line; one per template") for t in kinds_of(warnings, (text,))])


def build(work: Path) -> list[dict[str, Any]]:
    out = []
    ok = _pip(work, "install", "-vv", *PINS)
    args = {"command": "pip install -vv " + " ".join(PINS)}
    done = next(ln for ln in ok.splitlines() if ln.startswith("Successfully installed"))
    out.append(make_case(SOURCE, "install_last", "text", "bash", args, "last", pick("last", f"{SOURCE}/install_last", "pip output"),
                         ok, [fact(done, "last_state", "pip's 'Successfully installed' line")]))
    # No one-off case: per-file "Found link"/"Skipping link" lines vary in wording, so
    # a masking template pass calls dozens of them rare, and no reader wants those.
    bad = _pip(work, "download", "-vv", "--no-deps", "--dest", str(work / "dl"), *PINS[:2], MISSING)
    args = {"command": f"pip download -vv --no-deps {PINS[0]} {PINS[1]} {MISSING}"}
    errs, warns = _facts(bad)
    out.append(make_case(SOURCE, "download_errors", "text", "bash", args, "errors",
                         pick("errors", f"{SOURCE}/download_errors", "pip output"), bad, errs + warns[:5]))
    return out
