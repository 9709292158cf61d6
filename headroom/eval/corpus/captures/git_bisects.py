"""Bisection transcripts as git prints them: ``git bisect run`` (each step's ``Bisecting: N
revisions left`` line and the commit it checked out, then the first bad commit shown whole:
author, date, message, diffstat) followed by ``git bisect log``, for six checks of a
throwaway repository of ~420 commits, each by its own author; the second output bisects the
same checks in the other order with the terms renamed (``--term-old=fast --term-new=slow``).

Each check breaks at one commit the capture chose in the middle of the history (the commit
adds a marker line the check script greps for). Facts come from the capture's record of the
commits it made (who wrote the breaking one, the ticket in its message, when it was written),
never from git's text; a fact is kept only where it stands once. Held out (issue 33, sixteenth
round): dev holds logs, reflogs, graphs, blame and range-diffs, but no bisection.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ._asked import Ask, shell_cases
from ._run import git_env, run
from .html_tables import FIRST, LAST  # the same pool of names

SOURCE = "git_bisects"
AREAS = ("ledger", "checkout", "search", "catalog", "billing", "profile", "media", "reports")
VERBS = ("tune", "fix", "refactor", "document", "speed up", "harden", "simplify", "log")
CHECKS = ("tax", "refunds", "stock", "coupons", "invoices", "shipping")
COUNT = 420
START = 1780000000  # the first commit's time; one hour between commits
BISECT = ("for c in {checks}; do git bisect start {terms} HEAD $(git rev-list --max-parents=0 HEAD) >/dev/null; "
          "git bisect run ../check.sh $c; git bisect log; git bisect reset >/dev/null 2>&1; done")
COMMANDS = {
    "run": BISECT.format(checks=" ".join(CHECKS), terms=""),
    "terms": BISECT.format(checks=" ".join(CHECKS[::-1]), terms="--term-old=fast --term-new=slow"),
}
CHECK_SCRIPT = "#!/bin/sh\n# fails once the marker of the check named in $1 is in the tree\n! grep -rqs \"BROKEN-$1\" src\n"


@dataclass(frozen=True)
class Commit:
    author: str
    subject: str
    path: str
    ticket: str


def authored(n: int) -> str:
    """Commit n's author date the way git's default log format writes it (the stream sets it)."""
    return datetime.fromtimestamp(START + 3600 * n, UTC).strftime("%a %b %-d %H:%M:%S %Y")


def history(rnd: random.Random) -> tuple[list[Commit], dict[str, int]]:
    """The commits (each author once) and, per check, the index of the commit that breaks it:
    all in the middle half, none adjacent."""
    authors = rnd.sample([f"{f} {la}" for f in FIRST for la in LAST], COUNT)
    tickets = rnd.sample(range(10000, 99999), COUNT)
    commits = []
    for n in range(COUNT):
        area = rnd.choice(AREAS)
        commits.append(Commit(authors[n], f"{rnd.choice(VERBS)} {area} handling, step {n}",
                              f"src/{area}/part_{n:03d}.py", f"CHG-{tickets[n]}"))
    spots = sorted(rnd.sample(range(COUNT // 4, COUNT * 3 // 4, 3), len(CHECKS)))
    return commits, dict(zip(CHECKS, spots, strict=True))


def fast_import_stream(commits: list[Commit], breaks: dict[str, int]) -> bytes:
    """A ``git fast-import`` stream of the history: commit n adds its own file, and the commit
    that breaks a check writes that check's marker into it."""
    marker = {n: f"# BROKEN-{check}\n" for check, n in breaks.items()}
    out = []
    for n, c in enumerate(commits):
        email = c.author.lower().replace(" ", ".") + "@shop.example"
        message = f"{c.subject}\n\nRefs: {c.ticket}\n".encode()
        body = f"VALUE = {n}\n{marker.get(n, '')}".encode()
        out += [b"commit refs/heads/main\n", f"author {c.author} <{email}> {START + 3600 * n} +0000\n".encode(),
                f"committer {c.author} <{email}> {START + 3600 * n} +0000\n".encode(),
                f"data {len(message)}\n".encode(), message, f"M 644 inline {c.path}\n".encode(),
                f"data {len(body)}\n".encode(), body, b"\n"]
    return b"".join(out)


def make_repo(work: Path, commits: list[Commit], breaks: dict[str, int]) -> Path:
    env, repo = git_env(), work / "shop"
    run(["git", "init", "-q", "-b", "main", str(repo)], env=env)
    run(["git", "fast-import", "--quiet"], cwd=repo, env=env, input=fast_import_stream(commits, breaks).decode())
    run(["git", "checkout", "-q", "main"], cwd=repo, env=env)
    script = work / "check.sh"
    script.write_text(CHECK_SCRIPT)
    script.chmod(0o755)
    return repo


def _asks(commits: list[Commit], breaks: dict[str, int]) -> list[Ask]:
    note = "the capture's record of the commit it made break the check"
    asks = []
    for check, n in breaks.items():
        c = commits[n]
        asks += [Ask(f"author_{check}", "named", "named_item", (c.author,), note,
                     (f"Who wrote the commit that broke the {check} check?", f"Whose change made {check} fail?"),
                     only=("run",)),
                 Ask(f"ticket_{check}", "named", "named_item", (c.ticket,), note,
                     (f"Which ticket does the change that broke {check} cite?",
                      f"The {check} regression: what change ticket is on the culprit commit?"), only=("run",)),
                 Ask(f"date_{check}", "named", "named_item", (authored(n),), note,
                     (f"When was the commit that broke {check} authored?",
                      f"Since when has {check} been failing, by the culprit's commit date?"), only=("terms",))]
    return asks


def build(work: Path) -> list[dict[str, Any]]:
    rnd = random.Random(1601)
    commits, breaks = history(rnd)
    repo = make_repo(work, commits, breaks)
    return shell_cases(SOURCE, COMMANDS, _asks(commits, breaks), cwd=repo, env=git_env())
