"""Commit notes as git shows them: ``git log --notes`` (each commit's header and message, then
a ``Notes:`` section where one is attached) and ``git log --notes=deploys --format`` (one line a
commit, the deploy note after it) of a throwaway repository the capture makes (~240 commits,
notes on a few of them, in the default notes ref and in ``refs/notes/deploys``).

Facts come from the capture's record of the notes it attached (which commit, which text),
never from the log; a fact is kept only where it stands once. Held out (issue 33, fifteenth
round): dev holds git logs, reflogs, graphs and range-diffs, but no notes attached to commits.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from ._asked import Ask, shell_cases
from ._run import git_env, run

SOURCE = "git_notes"
AREAS = ("ledger", "checkout", "search", "catalog", "billing", "profile", "media", "reports")
VERBS = ("tune", "fix", "refactor", "document", "speed up", "harden", "simplify", "log")
COMMANDS = {
    "log": "git log --notes",
    "deploys": "git log --notes=deploys --format='%h %s%n%N'",
}


def make_history(repo: Path, rnd: random.Random) -> tuple[dict[str, str], dict[str, str]]:
    """Commits with one-off subjects; review notes and deploy notes on a few in the middle.
    Returns subject -> review note and subject -> deploy note."""
    env = git_env()
    run(["git", "init", "-q", "-b", "main", str(repo)], env=env)
    subjects = []
    for n in range(240):
        area, verb = rnd.choice(AREAS), rnd.choice(VERBS)
        subject = f"{verb} {area} handling, step {n}"
        run(["git", "commit", "-q", "--allow-empty", "-m", subject], cwd=repo, env=env)
        subjects.append(subject)
    review, deploys = {}, {}
    picked = rnd.sample(range(40, 200), 16)
    for i, n in enumerate(picked):
        ref = f"HEAD~{239 - n}"
        if i < 8:
            review[subjects[n]] = f"Reviewed-by {rnd.choice(('amara', 'bo', 'cyril', 'dagny'))} ticket QA-{rnd.randrange(1000, 9999)}"
            run(["git", "notes", "add", "-m", review[subjects[n]], ref], cwd=repo, env=env)
        else:
            deploys[subjects[n]] = f"deployed to {rnd.choice(('canary', 'eu-prod', 'us-prod'))} as release r{rnd.randrange(100, 999)}"
            run(["git", "notes", "--ref", "deploys", "add", "-m", deploys[subjects[n]], ref], cwd=repo, env=env)
    return review, deploys


def build(work: Path) -> list[dict[str, Any]]:
    rnd = random.Random(1504)
    repo = work / "repo"
    review, deploys = make_history(repo, rnd)
    note = "the capture's record of the notes it attached"
    asks = [Ask(f"review_{subject.split()[-1]}", "named", "named_item", (text.split()[-1],), note,
                (f"Which QA ticket is noted on the commit '{subject}'?",
                 f"What ticket did review record for '{subject}'?"), ("log",))
            for subject, text in review.items()]
    asks += [Ask(f"deploy_{subject.split()[-1]}", "named", "named_item", (text.split()[-1],), note,
                 (f"Which release shipped '{subject}'?", f"What release was '{subject}' deployed as?"), ("deploys",))
             for subject, text in deploys.items()]
    return shell_cases(SOURCE, COMMANDS, asks, cwd=repo, env=git_env())
