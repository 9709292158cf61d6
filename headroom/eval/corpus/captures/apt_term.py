"""apt's terminal transcript, /var/log/apt/term.log, from this machine's image build
(about 3,000 lines of unpack/setup output with debconf and invoke-rc.d complaints)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ..cases import fact, make_case
from ..facts import kinds_of, one_offs
from ..questions import pick

SOURCE = "apt_term"
LOG = Path("/var/log/apt/term.log")
# The transcript has no level field: these are the complaint forms apt's helpers print.
_COMPLAINT = re.compile(r"^(debconf: unable|debconf: falling back|invoke-rc\.d: |dpkg: warning|W: |E: )"
                        r"|\b(warning|error|failed|failed to|denied|could not)\b", re.IGNORECASE)
# Per-package progress (every package name is distinct, so these would all look rare).
_PROGRESS = re.compile(r"^(Setting up|Unpacking|Selecting previously|Preparing to unpack|Processing triggers|"
                       r"\(Reading database|update-alternatives: using|Adding debian:|Log (started|ended))")
# apt's own bracketing of each run.
_RUN = re.compile(r"^Log (started|ended): ")


def build(work: Path) -> list[dict[str, Any]]:
    text = LOG.read_text(errors="replace")
    lines = [ln for ln in text.splitlines() if ln.strip()]
    args = {"command": "cat /var/log/apt/term.log"}
    out = []
    complaints = [ln for ln in lines if _COMPLAINT.search(ln) and not _PROGRESS.match(ln)]
    out.append(make_case(SOURCE, "complaints", "text", "bash", args, "errors", pick("errors", f"{SOURCE}/errors", "apt log"),
                         text, [fact(t, "warning", "a complaint line (debconf/invoke-rc.d/warning/error); one per template")
                                for t in kinds_of(complaints, (text,))]))
    last = [ln for ln in lines if not _RUN.match(ln)][-1]
    out.append(make_case(SOURCE, "last", "text", "bash", args, "last", pick("last", f"{SOURCE}/last", "apt log"),
                         text, [fact(last.strip(), "last_state", "last line before the closing 'Log ended'")]))
    rest = [ln for ln in lines if not _PROGRESS.match(ln)]
    oo = one_offs(rest, (text,), limit=25)
    if oo:
        out.append(make_case(SOURCE, "one_off", "text", "bash", args, "one_off", pick("one_off", f"{SOURCE}/one_off", "apt log"),
                             text, [fact(t, "one_off", "non-progress line whose template occurs once") for t in oo]))
    return out
