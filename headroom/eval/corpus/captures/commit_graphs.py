"""git's drawn history: ``git log --graph --oneline --decorate --all`` (one commit a line under
the ASCII lanes, ``|/``, ``|\\``, refs in parentheses) and ``git log --graph --all --date=short
--format='%h %ad %an %s'`` of a repository the capture works in: ~130 commits on main and 16
feature branches, several open at once, each merged back with ``--no-ff`` but one; two release
tags.

Facts come from the capture's record of what it did (a branch's last ticket, the branch it never
merged, the ticket a tag points at, the one commit by a visiting author) and from ``git rev-parse
--short`` reading the objects (the commit that merged a named branch), never from the log's text;
a fact is kept only where its text stands once in the output. Held out (issue 33, thirteenth
round): dev's git sources are linear logs, blames, ref listings, objects, status and reflogs; no
dev source holds a drawn commit graph.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ._asked import Ask, shell_cases
from ._run import git_env, run

SOURCE = "commit_graphs"
AREAS = ("pricing", "checkout", "search", "billing", "catalog", "shipping", "auth", "reports", "cart", "tax",
         "stock", "returns")
AUTHORS = ("Dana Ruiz", "Omar Haddad", "Mei Tanaka", "Lars Berg", "Ana Silva", "Kofi Mensah")
VISITOR = "Ines Quispe"  # one commit, in the middle of the history
COMMANDS = {
    "oneline": "git log --graph --oneline --decorate --all",
    "format": "git log --graph --all --date=short --format='%h %ad %an %s'",
}


@dataclass
class Work:
    repo: Path
    rnd: random.Random
    clock: int = 0
    tickets: dict[str, str] = field(default_factory=dict)  # branch -> ticket of its last commit
    merges: dict[str, str] = field(default_factory=dict)  # branch -> short id of the merge commit
    record: dict[str, str] = field(default_factory=dict)
    commits: int = 0

    def git(self, *args: str, author: str = "Dana Ruiz") -> str:
        self.clock += self.rnd.randint(20, 300)
        day, minute = divmod(self.clock, 1440)
        date = f"2026-{9 + day // 30:02d}-{1 + day % 30:02d} {minute // 60:02d}:{minute % 60:02d}:00 +0000"
        return run(["git", *args], cwd=self.repo, env=git_env(author, date)).stdout.strip()

    def commit(self, branch: str, ticket: str) -> None:
        self.commits += 1
        area = self.rnd.choice(AREAS)
        author = VISITOR if self.commits == 70 else self.rnd.choice(AUTHORS)
        if author == VISITOR:
            self.record["visitor_ticket"] = ticket
        if self.commits > 1:  # the first commit makes main
            self.git("checkout", "-q", branch)
        # A file of its own per commit: parallel branches never conflict when merged.
        (self.repo / area).mkdir(exist_ok=True)
        (self.repo / area / f"{ticket}.txt").write_text(f"{ticket}\n")
        self.git("add", "-A")
        self.git("commit", "-q", "-m", f"{area}: {self.rnd.choice(('fix', 'add', 'tidy', 'guard'))} the {area} "
                 f"rules ({ticket})", author=author)
        self.tickets[branch] = ticket


def work_history(w: Work) -> None:
    """Main and feature branches interleaved: a branch starts every few steps, up to three are
    open at once, each is merged after 3-6 commits; the eighth is never merged."""
    w.repo.mkdir()
    w.git("init", "-q", "-b", "main")
    tickets = iter(f"T-{n}" for n in w.rnd.sample(range(1000, 9999), 200))
    w.commit("main", next(tickets))
    open_: dict[str, int] = {}
    started = 0
    while started < 16 or open_:
        w.commit("main", next(tickets))
        if started < 16 and len(open_) < 3 and w.rnd.random() < 0.5:
            name = f"feature/{w.rnd.choice(AREAS)}-{started + 1}"
            started += 1
            w.git("branch", name, "main")
            open_[name] = w.rnd.randint(3, 6)
        for name in list(open_):
            w.commit(name, next(tickets))
            open_[name] -= 1
            if open_[name] == 0:
                del open_[name]
                if name.endswith("-8"):
                    w.record["unmerged"] = name
                    continue
                w.git("checkout", "-q", "main")
                w.git("merge", "-q", "--no-ff", "-m", f"Merge branch '{name}'", name)
                w.merges[name] = w.git("rev-parse", "--short", "HEAD")
        if w.commits in range(60, 64) and "tagged" not in w.record:
            w.git("tag", "v2.4.0", "main")
            w.record["tagged"] = w.tickets["main"]


def _asks(w: Work) -> list[Ask]:
    note = "the capture's record of what it did in the repository"
    asks = [
        Ask("unmerged", "named", "named_item", (w.record["unmerged"],), note,
            ("Which feature branch was never merged into main?", "What branch is still unmerged?")),
        Ask("visitor", "named", "named_item", (w.record["visitor_ticket"],), note,
            (f"Which ticket did {VISITOR} work on?",), ("format",)),
    ]
    if "tagged" in w.record:
        asks.append(Ask("tag", "named", "named_item", (w.record["tagged"],), note,
                        ("Which commit is tagged as the 2.4.0 release? Give its ticket.",), ("oneline",)))
    branches = [b for b in w.tickets if b != "main"]
    for n, branch in enumerate(branches[3:15:2]):
        asks.append(Ask(f"tip_{branch.rsplit('-', 1)[1]}", "named", "named_item", (w.tickets[branch],), note,
                        (f"What's the last ticket worked on in {branch}?", f"Which ticket is at the tip of {branch}?"),
                        (tuple(COMMANDS)[n % 2],)))
    for n, branch in enumerate(list(w.merges)[4:14:3]):
        asks.append(Ask(f"merged_{branch.rsplit('-', 1)[1]}", "named", "named_item", (w.merges[branch],),
                        "git rev-parse --short after the merge",
                        (f"Which commit merged {branch} into main?",), (tuple(COMMANDS)[n % 2],)))
    return asks


def build(work: Path) -> list[dict[str, Any]]:
    w = Work(work / "repo", random.Random(1306))
    work_history(w)
    return shell_cases(SOURCE, COMMANDS, _asks(w), cwd=w.repo, env={"PATH": "/usr/bin:/bin", "LC_ALL": "C"})
