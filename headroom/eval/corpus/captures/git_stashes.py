"""A pile of stashed work as git lists it: ``git stash list`` (``stash@{n}: On <branch>:
<message>``, newest first) and ``git stash list --stat`` (each entry with the files it changed
and their counts), of a throwaway repository the capture makes and stashes into 90 times from
six branches (one file changed a stash, a few lines each).

Facts come from the capture's record of what it stashed, in order (the entry a message ends up
at is the number of stashes made after it), never from git's listing; a fact is kept only where
it stands once. Held out (issue 33, fifteenth round): dev holds logs, reflogs and status, but no
stash list.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from ._asked import Ask, shell_cases
from ._run import git_env, run

SOURCE = "git_stashes"
BRANCHES = ("main", "retry-tuning", "new-checkout", "search-facets", "ledger-export", "hotfix-login")
AREAS = ("ledger", "checkout", "search", "catalog", "billing", "profile", "media", "reports", "auth")
STASHES = 90
COMMANDS = {"list": "git stash list", "stat": "git stash list --stat"}
# The odd entries: an agent remembers what it parked, not where.
ODD = {
    "debug_prints": "debug prints around the flaky payment callback",
    "half_migration": "half-written migration for the orders table",
    "revert_attempt": "attempt to revert the cache key change",
    "spike_graphql": "graphql spike, do not ship",
    "local_secrets": "local override of the sandbox credentials",
    "perf_probe": "timing probe in the search ranking loop",
}


def make_stashes(repo: Path, rnd: random.Random) -> tuple[dict[str, str], dict[str, str]]:
    """Stash ``STASHES`` changes; returns odd key -> its ``stash@{n}`` and odd key -> the file it
    changed (a file no other stash touches)."""
    env = git_env()
    run(["git", "init", "-q", "-b", "main", str(repo)], env=env)

    def git(*args: str):
        return run(["git", *args], cwd=repo, env=env)

    files = [f"src/{a}/{n}.py" for a in AREAS for n in ("core", "views", "models", "tasks")]
    for f in files:
        (repo / f).parent.mkdir(parents=True, exist_ok=True)
        (repo / f).write_text("".join(f"line {i}\n" for i in range(40)))
    git("add", "-A")
    git("commit", "-q", "-m", "start")
    for b in BRANCHES[1:]:
        git("branch", b)
    odd_at = dict(zip(rnd.sample(range(20, 70), len(ODD)), ODD, strict=True))
    odd_files = dict(zip(ODD, rnd.sample(files, len(ODD)), strict=True))
    common = [f for f in files if f not in odd_files.values()]
    made: list[str] = []
    for n in range(STASHES):
        key = odd_at.get(n)
        git("checkout", "-q", rnd.choice(BRANCHES))
        path = odd_files[key] if key else rnd.choice(common)
        with (repo / path).open("a") as fh:
            fh.write("".join(f"change {n}.{i}\n" for i in range(rnd.randrange(1, 9))))
        git("stash", "push", "-q", "-m", ODD[key] if key else f"wip {rnd.choice(AREAS)} tweak {n}")
        made.append(key or "")
    where = {key: f"stash@{{{STASHES - 1 - n}}}" for n, key in enumerate(made) if key}
    return where, odd_files


def build(work: Path) -> list[dict[str, Any]]:
    rnd = random.Random(1501)
    repo = work / "repo"
    where, odd_files = make_stashes(repo, rnd)
    note = "the capture's record of what it stashed, in order"
    asks = [Ask(f"{key}_{form}", "named", "named_item", (where[key],), note,
                (f"Which stash entry has the {ODD[key].split(',')[0]}?",
                 f"I stashed the {ODD[key].split(',')[0]} at some point — which stash@ is it?"), (form,))
            for key in ODD for form in COMMANDS]
    asks += [Ask(f"{key}_file", "named", "named_item", (odd_files[key],), note,
                 (f"Which file does the stash '{ODD[key]}' change?",
                  f"What file did I touch in the stash named '{ODD[key]}'?"), ("stat",))
             for key in ODD]
    return shell_cases(SOURCE, COMMANDS, asks, cwd=repo, env=git_env())
