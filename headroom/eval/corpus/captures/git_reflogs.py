"""git's reflog (``git reflog``, and ``--date=iso``) of a repository the capture works in: some
150 moves of HEAD (commits on main, feature branches made, worked on and merged back, one
commit reworded with ``--amend``, one hard reset to a commit named by its full id), each at a
clock the capture sets.

Facts come from the capture's own record of what it did (the reworded subject's ticket, the
time of the reset, the commit it reset to) and from ``git rev-parse`` reading the objects (a
named commit's short id), never from the reflog's text; a fact is kept only where its text
stands once in the output. Held out (issue 33, twelfth round): no dev source holds a reflog.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ._asked import Ask, shell_cases
from ._run import run

SOURCE = "git_reflogs"
AREAS = ("pricing", "checkout", "search", "billing", "catalog", "shipping", "auth", "reports", "cart", "tax")
VERBS = ("fix", "add", "tidy", "speed up", "document", "guard", "rename", "split")
COMMANDS = {"reflog": "git reflog", "dated": "git reflog --date=iso"}


@dataclass
class Session:
    """The repository and the capture's record of what it did there."""

    work: Path
    rnd: random.Random
    clock: int = 0
    subjects: dict[str, str] = field(default_factory=dict)  # subject -> short id (git rev-parse)
    record: dict[str, str] = field(default_factory=dict)

    def when(self) -> str:
        day, minute = divmod(self.clock, 600)
        return f"2026-11-{20 + day:02d} {9 + minute // 60:02d}:{minute % 60:02d}:00"

    def git(self, *args: str) -> str:
        self.clock += self.rnd.randint(3, 17)
        date = f"{self.when()} +0000"
        env = {"PATH": "/usr/bin:/bin", "LC_ALL": "C", "HOME": str(self.work), "GIT_AUTHOR_NAME": "Dana Ruiz",
               "GIT_AUTHOR_EMAIL": "dana@shop.example", "GIT_COMMITTER_NAME": "Dana Ruiz",
               "GIT_COMMITTER_EMAIL": "dana@shop.example", "GIT_AUTHOR_DATE": date, "GIT_COMMITTER_DATE": date}
        return run(["git", *args], cwd=self.work / "repo", env=env).stdout.strip()

    def commit(self, ticket: int) -> str:
        area = self.rnd.choice(AREAS)
        subject = f"{area}: {self.rnd.choice(VERBS)} the {area} rules (T-{ticket})"
        with (self.work / "repo" / f"{area}.txt").open("a") as f:
            f.write(f"{ticket}\n")
        self.git("add", "-A")
        self.git("commit", "-q", "-m", subject)
        self.subjects[subject] = self.git("rev-parse", "--short", "HEAD")
        return subject


def work_session(s: Session) -> None:
    """Commits on main; every eighth, a feature branch of five commits merged back; in the middle,
    one commit reworded and one hard reset by full id."""
    (s.work / "repo").mkdir()
    s.git("init", "-q", "-b", "main")
    tickets = iter(s.rnd.sample(range(1000, 9999), 200))
    for n in range(64):
        s.commit(next(tickets))
        if n % 8 == 7:
            branch = f"feature/{s.rnd.choice(AREAS)}-{n}"
            s.git("checkout", "-q", "-b", branch)
            for _ in range(5):
                s.commit(next(tickets))
            s.git("checkout", "-q", "main")
            s.git("merge", "-q", "--no-ff", "-m", f"merge {branch}", branch)
        if n == 30:
            ticket = next(tickets)
            s.git("commit", "-q", "--amend", "-m", f"pricing: round totals half-even (T-{ticket})")
            s.record["amended_ticket"] = f"T-{ticket}"
        if n == 36:
            target = s.git("rev-parse", "HEAD~2")
            s.git("reset", "-q", "--hard", target)
            s.record["reset_to"] = target
            s.record["reset_at"] = s.when()


def _asks(s: Session) -> list[Ask]:
    note = "the capture's record of what it did in the repository"
    asks = [
        Ask("amended", "named", "named_item", (s.record["amended_ticket"],), note,
            ("Which ticket does the reworded commit name now?", "What was the amended commit's ticket?")),
        Ask("reset_to", "named", "named_item", (s.record["reset_to"],), note,
            ("Which commit was HEAD hard-reset to?",)),
        Ask("reset_at", "named", "named_item", (s.record["reset_at"],), note,
            ("When did the hard reset happen?",), ("dated",)),
    ]
    subjects = list(s.subjects.items())
    for n, (subject, short) in enumerate(subjects[len(subjects) // 3: 2 * len(subjects) // 3: 3]):
        ticket = subject.rsplit("(", 1)[1].rstrip(")")
        asks.append(Ask(f"commit_{n}", "named", "named_item", (short,), "git rev-parse --short after the commit",
                        (f"What's the short id of the {ticket} commit?", f"Which commit id goes with {ticket}?"),
                        (tuple(COMMANDS)[n % 2],)))
    return asks


def build(work: Path) -> list[dict[str, Any]]:
    s = Session(work, random.Random(1205))
    work_session(s)
    env = {"PATH": "/usr/bin:/bin", "LC_ALL": "C", "HOME": str(work)}
    return shell_cases(SOURCE, COMMANDS, _asks(s), cwd=work / "repo", env=env)
