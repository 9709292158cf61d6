"""Which commits of a topic branch are already upstream, as git works it out by patch id:
``git cherry -v main topic`` (``-`` for a commit whose change main already has, ``+`` for one it
lacks, with abbreviated id and subject) and ``git log --cherry-mark --oneline main...topic``
(both sides, ``=`` for equivalent changes, ``+`` for the rest), of a throwaway repository the
capture makes: ~200 fixes on a topic branch, all but a few cherry-picked onto main.

Facts come from the capture's record of which changes it picked and which it left out (and
each change's ticket in its subject), never from git's marks; a fact is kept only where it
stands once. Held out (issue 33, fifteenth round): dev holds logs, graphs and range-diffs of
reworked series, but no upstream-equivalence listing.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from ._asked import Ask, shell_cases
from ._run import git_env, run

SOURCE = "cherry_marks"
AREAS = ("ledger", "checkout", "search", "catalog", "billing", "profile", "media", "reports")
COMMANDS = {
    "cherry": "git cherry -v main topic",
    "marks": "git log --cherry-mark --oneline main...topic",
}


def make_branches(repo: Path, rnd: random.Random) -> dict[str, str]:
    """A topic of one-file fixes, each picked onto main except one per area in the middle.
    Returns area -> the ticket of the fix main lacks."""
    env = git_env()
    run(["git", "init", "-q", "-b", "main", str(repo)], env=env)

    def git(*args: str):
        return run(["git", *args], cwd=repo, env=env)

    (repo / "README").write_text("fixes\n")
    git("add", "README")
    git("commit", "-q", "-m", "start")
    git("checkout", "-q", "-b", "topic")
    tickets = rnd.sample(range(1000, 9999), 200)
    fixes = []
    for n, ticket in enumerate(tickets):
        area = AREAS[n % len(AREAS)]
        (repo / f"fix-{ticket}.txt").write_text(f"{area} fix {ticket}\n")
        git("add", f"fix-{ticket}.txt")
        git("commit", "-q", "-m", f"{area}: fix FIX-{ticket}")
        fixes.append((area, f"FIX-{ticket}", git("rev-parse", "HEAD").stdout.strip()))
    left_out = {}
    for area in AREAS:
        left_out[area] = rnd.choice([f for f in fixes[50:150] if f[0] == area])
    git("checkout", "-q", "main")
    kept = [f for f in fixes if f not in left_out.values()]
    for start in range(0, len(kept), 50):
        git("cherry-pick", "--allow-empty", *[f[2] for f in kept[start:start + 50]])
    return {area: f[1] for area, f in left_out.items()}


def build(work: Path) -> list[dict[str, Any]]:
    rnd = random.Random(1505)
    repo = work / "repo"
    missing = make_branches(repo, rnd)
    note = "the capture's record of which fixes it cherry-picked onto main"
    asks = [Ask(f"missing_{area}_{form}", "named", "named_item", (ticket,), note,
                (f"Which {area} fix on topic hasn't made it to main yet?",
                 f"What {area} change is still missing upstream?"), (form,))
            for area, ticket in missing.items() for form in COMMANDS]
    return shell_cases(SOURCE, COMMANDS, asks, cwd=repo, env=git_env())
