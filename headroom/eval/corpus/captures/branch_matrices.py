"""Branch-membership matrices as ``git show-branch`` draws them: a header line per branch
(``* [main] subject``, `` ! [topic/...] subject``), a ``---`` rule, then one row per commit
with a column of marks (``+`` on that branch, ``*`` on the current one) before
``[name~n] subject``; with ``--sha1-name --topics`` only the commits main lacks, named by
abbreviated id. Of a throwaway repository the capture makes: ~60 commits on main, eleven
topic branches forked from it at different points (one forked from another topic, one merged
back into main), ~230 rows.

Facts come from the capture's record of the history it wrote (each commit's subject, where
each topic forked, which commits two topics share), never from git's text; a
fact is kept only where it stands once. Held out (issue 33, sixteenth round): dev holds
drawn graphs (``git log --graph``), logs and range-diffs, but no branch-membership matrix.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ._asked import Ask, shell_cases
from ._run import git_env, run

SOURCE = "branch_matrices"
AREAS = ("ledger", "checkout", "search", "catalog", "billing", "profile", "media", "reports")
VERBS = ("tune", "fix", "refactor", "document", "speed up", "harden", "simplify", "log")
THINGS = ("rounding", "retries", "paging", "caching", "timeouts", "exports", "imports", "locales", "quotas")
MAIN = 60
TOPICS = 11
COMMANDS = {"matrix": "git show-branch main 'topic/*'",
            "topics": "git show-branch --sha1-name --topics main 'topic/*'"}


@dataclass
class History:
    """The capture's record: main's subjects in order, each topic's own subjects and fork point."""

    main: list[str] = field(default_factory=list)
    own: dict[str, list[str]] = field(default_factory=dict)
    fork: dict[str, int] = field(default_factory=dict)  # topic -> index of main's commit it left from
    child: str = ""  # forked from ``parent`` after ``shared`` of its commits
    parent: str = ""
    shared: int = 0
    merged: str = ""
    merge_subject: str = ""
    after_merge: str = ""


def plan(rnd: random.Random) -> History:
    tickets = iter(rnd.sample(range(1000, 9999), 600))

    def subject() -> str:
        return f"{rnd.choice(AREAS)}: {rnd.choice(VERBS)} {rnd.choice(THINGS)} (#{next(tickets)})"

    h = History(main=[subject() for _ in range(MAIN)])
    names = rnd.sample([f"topic/{a}-{t}" for a in AREAS for t in THINGS], TOPICS)
    for name in names:
        h.fork[name] = rnd.randrange(12, MAIN - 6)
        h.own[name] = [subject() for _ in range(rnd.randrange(10, 22))]
    h.merged, h.parent, h.child = names[0], names[1], names[2]
    h.shared = rnd.randrange(3, 7)
    h.merge_subject = f"Merge {h.merged} into main (#{next(tickets)})"
    h.after_merge = subject()
    return h


def fast_import_stream(h: History) -> str:
    """Main's commits, then each topic's on top of its fork point (the child on top of the
    parent's ``shared``-th commit), then the merge of one topic into main and one commit more."""
    out, mark, clock = [], 0, 1780000000

    def commit(ref: str, message: str, parent: int, merge: int = 0) -> int:
        nonlocal mark, clock
        mark, clock = mark + 1, clock + 600
        out.extend([f"commit {ref}", f"mark :{mark}", f"committer Dana Ruiz <dana@shop.example> {clock} +0000",
                    f"data {len(message.encode())}", message])
        out.extend([f"from :{parent}"] if parent else [])
        out.extend([f"merge :{merge}"] if merge else [])
        out.append("")
        return mark

    main_marks = []
    for s in h.main:
        main_marks.append(commit("refs/heads/main", s, main_marks[-1] if main_marks else 0))
    tips, parent_marks = {}, []
    for name, subjects in h.own.items():
        base = main_marks[h.fork[name]]
        if name == h.child:
            base = parent_marks[h.shared - 1]
        for s in subjects:
            base = commit(f"refs/heads/{name}", s, base)
            if name == h.parent:
                parent_marks.append(base)
        tips[name] = base
    merge = commit("refs/heads/main", h.merge_subject, main_marks[-1], tips[h.merged])
    commit("refs/heads/main", h.after_merge, merge)  # so the merge is a row, not also main's header
    return "\n".join(out) + "\n"


def make_repo(work: Path, h: History) -> Path:
    env, repo = git_env(), work / "shop"
    run(["git", "init", "-q", "-b", "main", str(repo)], env=env)
    run(["git", "fast-import", "--quiet"], cwd=repo, env=env, input=fast_import_stream(h))
    return repo


def _asks(h: History, rnd: random.Random) -> list[Ask]:
    note = "the capture's record of the history it wrote"
    plain = sorted(set(h.own) - {h.merged, h.parent, h.child})
    picked = rnd.sample(plain, 7)
    asks = [Ask(f"first_{t.split('/')[1]}", "named", "named_item", (h.own[t][0],), note,
                (f"What's the first commit on {t} after it branched off?", f"Which commit starts {t}?"))
            for t in picked[:4]]
    asks += [Ask(f"fork_{t.split('/')[1]}", "named", "named_item", (h.main[h.fork[t]],), note,
                 (f"Which main commit did {t} branch from?", f"Where on main does {t} fork off?"), ("matrix",))
             for t in picked[4:]]
    asks += [
        Ask("shared", "named", "named_item", (h.own[h.parent][h.shared - 1],), note,
            (f"What's the newest commit {h.child} and {h.parent} have in common?",
             f"Up to which commit of {h.parent} does {h.child} carry?")),
        Ask("child_first", "named", "named_item", (h.own[h.child][0],), note,
            (f"Which is {h.child}'s own first commit, after what it took from {h.parent}?",)),
        Ask("base", "named", "named_item", (h.main[min(h.fork.values())],), note,
            ("Which commit is the common base of all these branches?", "Where do all the branches meet?"),
            ("matrix",)),
    ]
    return asks


def build(work: Path) -> list[dict[str, Any]]:
    rnd = random.Random(1606)
    h = plan(rnd)
    repo = make_repo(work, h)
    return shell_cases(SOURCE, COMMANDS, _asks(h, rnd), cwd=repo, env=git_env())
