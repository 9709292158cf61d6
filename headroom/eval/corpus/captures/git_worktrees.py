"""Linked work trees as git lists them: ``git worktree list --porcelain`` (a block per work
tree: path, HEAD, branch or ``detached``, ``locked``/``prunable`` with their reasons) and
``git worktree list -v`` (one aligned line per work tree, reasons on indented lines under
it), of a throwaway repository the capture gives ~160 linked work trees, each on its own
branch but for one detached, a few locked with a reason, one whose folder it deleted.

Facts come from the capture's record of what it made (which branch it put in which work
tree, which it locked and why, which it detached or left without a folder), never from
git's listing; a fact is kept only where it stands once. Held out (issue 33, fifteenth
round, replacing a near-dev source): dev holds branch, ref, status and reflog listings, but
no listing of a repository's work trees.
"""

from __future__ import annotations

import random
import shutil
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ._asked import Ask, shell_cases
from ._run import git_env, run

SOURCE = "git_worktrees"
KINDS = ("feature", "fix", "chore", "spike", "review")
AREAS = ("ledger", "checkout", "search", "catalog", "billing", "profile", "media", "reports")
TOPICS = ("rounding", "retries", "paging", "caching", "timeouts", "exports", "imports", "locales")
COMMANDS = {"porcelain": "git worktree list --porcelain", "verbose": "git worktree list -v"}
COUNT = 160


@dataclass
class Trees:
    """The capture's record: work-tree folder name -> branch, and the odd ones."""

    branch: dict[str, str] = field(default_factory=dict)
    locked: dict[str, str] = field(default_factory=dict)  # name -> ticket in the lock reason
    detached: str = ""
    pruned: str = ""


def make_trees(work: Path, rnd: random.Random) -> Trees:
    env, repo = git_env(), work / "shop"
    run(["git", "init", "-q", "-b", "main", str(repo)], env=env)
    (repo / "README").write_text("shop\n")
    run(["git", "add", "README"], cwd=repo, env=env)
    for n in range(12):
        empty = ["--allow-empty"] if n else []  # the first commit holds the README
        run(["git", "commit", "-q", *empty, "-m", f"shop step {n}"], cwd=repo, env=env)
    trees = Trees()
    numbers = rnd.sample(range(1000, 9999), COUNT)
    odd = rnd.sample(range(COUNT // 4, COUNT * 3 // 4), 6)  # the detached, the pruned, four locked
    for n in range(COUNT):
        name = f"wt-{n:03d}"
        path = f"../wt/{name}"
        if n == odd[0]:
            run(["git", "worktree", "add", "-q", "--detach", path, "HEAD~5"], cwd=repo, env=env)
            trees.detached = name
            continue
        branch = f"{rnd.choice(KINDS)}/{rnd.choice(AREAS)}-{rnd.choice(TOPICS)}-{numbers[n]}"
        run(["git", "worktree", "add", "-q", "-b", branch, path], cwd=repo, env=env)
        trees.branch[name] = branch
        if n in odd[2:]:
            ticket = f"OPS-{rnd.randrange(10000, 99999)}"
            run(["git", "worktree", "lock", "--reason", f"long migration running, see {ticket}", path],
                cwd=repo, env=env)
            trees.locked[name] = ticket
        elif n == odd[1]:
            shutil.rmtree(work / "wt" / name)
            trees.pruned = name
    return trees


def _asks(trees: Trees, rnd: random.Random) -> list[Ask]:
    note = "the capture's record of the work trees it made"
    plain = sorted(set(trees.branch) - set(trees.locked) - {trees.pruned})
    middle = [n for n in plain if COUNT // 4 <= int(n[3:]) < COUNT * 3 // 4]
    asks = [Ask(f"branch_of_{name}", "named", "named_item", (trees.branch[name],), note,
                (f"Which branch is checked out in the {name} worktree?", f"What branch is {name} on?"))
            for name in rnd.sample(middle, 3)]
    asks += [Ask(f"tree_of_{trees.branch[name].rsplit('-', 1)[1]}", "named", "named_item", (name,), note,
                 (f"Which worktree has the branch {trees.branch[name]}?",
                  f"Where is {trees.branch[name]} checked out?"))
             for name in rnd.sample(middle, 2)]
    asks += [Ask(f"lock_{name}", "named", "named_item", (ticket,), note,
                 (f"Which ticket explains why {name} is locked?", f"Why can't {name} be removed, which ticket?"))
             for name, ticket in sorted(trees.locked.items())[:2]]
    asks.append(Ask("detached", "named", "named_item", (trees.detached,), note,
                    ("Which worktree is on a detached HEAD?", "Is any worktree not on a branch? Which one?")))
    asks.append(Ask("prunable", "named", "named_item", (trees.pruned,), note,
                    ("Which worktree's folder no longer exists?", "Which worktree can be pruned?")))
    return asks


def build(work: Path) -> list[dict[str, Any]]:
    rnd = random.Random(1507)
    trees = make_trees(work, rnd)
    return shell_cases(SOURCE, COMMANDS, _asks(trees, rnd), cwd=work / "shop", env=git_env())
