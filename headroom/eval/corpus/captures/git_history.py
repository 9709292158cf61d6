"""``git log --stat --summary`` and ``git diff --stat``/``git diff`` of a real repository:
this project's own history up to a pinned commit (the build needs the checkout)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ..cases import fact, make_case
from ..facts import spread
from ..questions import choose
from ._run import run

SOURCE = "git_history"
REPO = Path(__file__).resolve().parents[4]
# Pinned so a rebuild reads the same history: main as of the corpus's first build.
HEAD = "a509491"
_COMMIT = re.compile(r"^commit ([0-9a-f]{40})$")
_CREATE = re.compile(r"^ create mode \d+ (\S+)$")
_SHORTSTAT = re.compile(r"^ (\d+) files? changed(?:, (\d+) insertions?\(\+\))?")


def _git(*args: str) -> str:
    return run(["git", "-C", str(REPO), *args]).stdout


def _commits(log: str) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for ln in log.splitlines():
        if m := _COMMIT.match(ln):
            out.append({"hash": m.group(1), "created": [], "insertions": 0, "stat": ""})
        elif out and (m := _CREATE.match(ln)):
            out[-1]["created"].append(m.group(1))
        elif out and (m := _SHORTSTAT.match(ln)):
            out[-1]["insertions"] = int(m.group(2) or 0)
            out[-1]["stat"] = ln.strip()
    return out


def build(work: Path) -> list[dict[str, Any]]:
    log = _git("log", "--stat", "--summary", "--no-color", "-n", "120", HEAD)
    commits = _commits(log)
    args = {"command": "git log --stat --summary -n 120"}
    out = []
    # Named: which commit created a file (asked by path, answered by hash).
    with_created = [c for c in commits[10:-10] if len(c["created"]) == 1]
    for k, c in enumerate(spread(with_created, 2)):
        sid = f"log_created_{k}"
        path = c["created"][0]
        q = choose(f"{SOURCE}/{sid}", (f"Which commit added the file {path}? Give me its hash.",
                                       f"I need the commit id that first created {path}."))
        out.append(make_case(SOURCE, sid, "text", "bash", args, "named", q, log,
                             [fact(c["hash"], "named_item", f"the commit whose --summary creates {path}")]))
    big = max(commits, key=lambda c: c["insertions"])
    q = choose(f"{SOURCE}/log_biggest", ("Which commit in this log was the largest change (most lines inserted)?",
                                         "Find the biggest commit by insertions and give its hash."))
    out.append(make_case(SOURCE, "log_biggest", "text", "bash", args, "extreme", q, log,
                         [fact(big["hash"], "extreme", f"commit with the most insertions ({big['insertions']})"),
                          fact(big["stat"], "extreme", "its shortstat line")]))
    # What changed between two commits 25 apart, as a whole diff.
    old = commits[25]["hash"]
    diff = _git("diff", "--no-color", f"{old}..{HEAD}", "--", "headroom/")
    names = _git("diff", "--name-only", f"{old}..{HEAD}", "--", "headroom/").split()
    dargs = {"command": f"git diff {old[:9]}..{HEAD} -- headroom/"}
    q = choose(f"{SOURCE}/diff_files", ("Which files does this diff touch?",
                                        "Summarise the change: list every file it modifies."))
    out.append(make_case(SOURCE, "diff_files", "text", "bash", dargs, "change", q, diff,
                         [fact(f"b/{n}", "change", "a changed file (git diff --name-only)") for n in spread(names, 15)]))
    return out
