"""A clone's branches and authors as git lists them: ``git branch -a -vv`` (every local
branch with its commit, its upstream and how far ahead or behind it is, then the
remote-tracking branches), ``git for-each-ref --sort=-committerdate`` (full ref names with
object id and commit date) and ``git shortlog -sne --all`` (commits per author), of a
throwaway clone the capture makes from a throwaway upstream repository.

The upstream holds ~25 topic branches by eight authors (one far busier than the rest);
the clone tracks most of them, and then one local branch gains commits of its own (ahead),
one falls behind when the upstream moves on (behind), one does both (diverged), one loses
its upstream branch (``fetch --prune``: gone), one was never pushed and one, never pushed
either, was last committed two years before the rest. Facts come from the capture's record
of what it did and from ``git rev-list --count`` of each pair (plumbing, not the listing
asked about): the upstream and its ahead/behind count as the listing writes them, a ref's
full name, an author's name and address. Held out (issue 33, seventh round): no dev source
holds branch or author listings.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from ._asked import Ask, Output, asked_cases
from ._run import run

SOURCE = "git_refs"
AUTHORS = [("Mireille Okafor", "mireille@shop.test"), ("Tomasz Lindqvist", "tomasz@shop.test"),
           ("Ana Beltrán", "ana@shop.test"), ("Kwame Osei", "kwame@shop.test"), ("Yuki Tanabe", "yuki@shop.test"),
           ("Priya Raman", "priya@shop.test"), ("Luca Ferri", "luca@shop.test"), ("Dana Whitfield", "dana@shop.test")]
BASE = 1793000000  # 2026-10-26
TOPICS = ("checkout", "invoices", "search", "catalog", "payments", "shipping", "coupons", "reviews", "auth",
          "exports", "metrics", "webhooks", "carts", "stock", "refunds", "sessions", "emails", "taxes", "i18n",
          "uploads", "ratelimit", "audit", "billing", "returns")


class Repo:
    """A git repository the capture commits to, with fixed authors and dates."""

    def __init__(self, path: Path, clock: list[int]):
        self.path, self.clock = path, clock

    def git(self, *args: str, env: dict[str, str] | None = None) -> str:
        base = {"PATH": "/usr/bin:/bin", "LC_ALL": "C", "HOME": str(self.path.parent), "GIT_CONFIG_NOSYSTEM": "1",
                "TZ": "UTC"}
        return run(["git", "-C", str(self.path), *args], env={**base, **(env or {})}).stdout

    def commit(self, author: tuple[str, str], subject: str, when: int | None = None) -> None:
        if when is None:
            self.clock[0] += 3607
            when = self.clock[0]
        f = self.path / "CHANGES"
        f.write_text((f.read_text() if f.exists() else "") + subject + "\n")
        self.git("add", "CHANGES")
        name, mail = author
        stamp = f"{when} +0000"
        self.git("commit", "-q", "-m", subject, env={"GIT_AUTHOR_NAME": name, "GIT_AUTHOR_EMAIL": mail,
                                                      "GIT_COMMITTER_NAME": name, "GIT_COMMITTER_EMAIL": mail,
                                                      "GIT_AUTHOR_DATE": stamp, "GIT_COMMITTER_DATE": stamp})


def make_clone(work: Path) -> tuple[Repo, dict[str, str], dict[tuple[str, str], int], dict[str, tuple[str, str]]]:
    """The upstream and the clone; returns the clone, its odd branches by role, commits per
    author and who wrote each subject (the capture's record)."""
    rng = random.Random(3371)
    clock = [BASE]
    up = Repo(work / "shop.git", clock)
    up.path.mkdir()
    up.git("init", "-q", "-b", "main")
    counts = {a: 0 for a in AUTHORS}
    wrote: dict[str, tuple[str, str]] = {}  # subject -> author
    # the busiest author writes about a third of the commits
    weights = [9, 3, 2, 2, 2, 1, 1, 1]

    def commit(repo: Repo, subject: str, when: int | None = None) -> None:
        author = rng.choices(AUTHORS, weights)[0]
        counts[author] += 1
        wrote[subject] = author
        repo.commit(author, subject, when)

    for i in range(6):
        commit(up, f"main: groundwork {i}")
    branches = []
    for topic in TOPICS:
        name = f"{rng.choice(['feature', 'fix', 'chore'])}/{topic}-{rng.randint(100, 999)}"
        up.git("switch", "-q", "-c", name, "main")
        for j in range(rng.randint(1, 4)):
            commit(up, f"{topic}: step {j}")
        branches.append(name)
    up.git("switch", "-q", "main")
    clone = Repo(work / "shop", clock)
    run(["git", "clone", "-q", str(up.path), str(clone.path)])
    clone.git("config", "user.name", "ci")
    clone.git("config", "user.email", "ci@shop.test")
    tracked = branches[:18]
    for b in tracked:
        clone.git("branch", "-q", "--track", b, f"origin/{b}")
    ahead, behind, diverged, gone = tracked[3], tracked[8], tracked[12], tracked[15]
    for b, n in ((ahead, 3), (diverged, 2)):
        clone.git("switch", "-q", b)
        for j in range(n):
            commit(clone, f"local: {b} wip {j}")
    for b, n in ((behind, 5), (diverged, 1)):
        up.git("switch", "-q", b)
        for j in range(n):
            commit(up, f"{b.split('/')[1]}: follow-up {j}")
    up.git("switch", "-q", "main")
    up.git("branch", "-q", "-D", gone)
    clone.git("switch", "-q", "-c", "spike/pricing-rules", "main")
    commit(clone, "spike: pricing rules sketch")
    clone.git("switch", "-q", "-c", "spike/legacy-importer", "main")
    commit(clone, "spike: legacy importer", when=BASE - 2 * 365 * 86400)
    clone.git("switch", "-q", "main")
    clone.git("fetch", "-q", "--prune")
    return clone, {"ahead": ahead, "behind": behind, "diverged": diverged, "gone": gone}, counts, wrote


def build(work: Path) -> list[dict[str, Any]]:
    clone, role, counts, wrote = make_clone(work)
    ahead, behind, diverged, gone = (role[k] for k in ("ahead", "behind", "diverged", "gone"))

    # plumbing's count of each pair agrees with the record
    def count(rng_spec: str) -> int:
        return int(clone.git("rev-list", "--count", rng_spec))
    assert (count(f"origin/{ahead}..{ahead}"), count(f"{ahead}..origin/{ahead}")) == (3, 0)
    assert (count(f"origin/{behind}..{behind}"), count(f"{behind}..origin/{behind}")) == (0, 5)
    assert (count(f"origin/{diverged}..{diverged}"), count(f"{diverged}..origin/{diverged}")) == (2, 1)
    assert not clone.git("for-each-ref", f"refs/remotes/origin/{gone}")
    assert count("--all") == sum(counts.values())
    top = sorted(counts.items(), key=lambda kv: -kv[1])
    assert top[0][1] > top[1][1]
    busiest = f"{top[0][0][0]} <{top[0][0][1]}>"
    texts = {
        "branch_vv": clone.git("branch", "-a", "-vv"),
        "for_each_ref": clone.git("for-each-ref", "--sort=-committerdate",
                                  "--format=%(objectname) %(committerdate:iso8601) %(refname)"),
        "branch_local": clone.git("branch", "-vv"),
        "shortlog": clone.git("shortlog", "-sne", "--all"),
        "shortlog_full": clone.git("shortlog", "-ne", "--all"),
    }
    texts = {k: t.replace(str(work), "/home/ci") for k, t in texts.items()}
    branch = ("branch_vv", "branch_local")
    shortlogs = ("shortlog", "shortlog_full")

    def by(subject: str) -> tuple[str, ...]:
        return (f"{wrote[subject][0]} <{wrote[subject][1]}>",)

    asks = [
        Ask("ahead", "named", "named_item", (f"origin/{ahead}: ahead 3",), "the capture's record; rev-list --count",
            ("Which branch has commits not pushed to its upstream, and how many?",
             "Which local branch is ahead of its remote?"), only=branch),
        Ask("behind", "named", "named_item", (f"origin/{behind}: behind 5",), "the capture's record; rev-list --count",
            ("Which branch needs a pull, and how far behind is it?", "Which local branch is behind its upstream?"),
            only=branch),
        Ask("diverged", "named", "named_item", (f"origin/{diverged}: ahead 2, behind 1",),
            "the capture's record; rev-list --count both ways",
            ("Which branch has diverged from its upstream?", "Which branch is both ahead and behind its remote?"),
            only=branch),
        Ask("gone", "named", "named_item", (f"origin/{gone}: gone",), "the capture deleted it upstream, fetch --prune",
            ("Which branch's upstream was deleted?", "Which local branch tracks a remote branch that no longer exists?"),
            only=branch),
        Ask("unpushed", "named", "named_item", ("spike/pricing-rules", "spike/legacy-importer"),
            "the capture's record: branches made in the clone, never pushed",
            ("Which local branches have no upstream at all?", "Which branches were never pushed?"), only=branch),
        Ask("stalest", "extreme", "extreme", ("refs/heads/spike/legacy-importer",),
            "the capture's record: the one commit dated two years back",
            ("Which branch has gone longest without a commit?", "What is the stalest ref here?"),
            only=("for_each_ref",)),
        Ask("newest", "extreme", "extreme", ("refs/heads/spike/pricing-rules",),
            "the capture's record: the last commit it made",
            ("Which ref has the most recent commit?", "Which branch was committed to last?"),
            only=("for_each_ref",)),
        Ask("busiest_author", "extreme", "extreme", (busiest,), "the capture's record of who wrote each commit",
            ("Who has made the most commits?", "Which author is the most active in this repository?"),
            only=shortlogs),
    ]
    for subject in ("spike: legacy importer", f"{behind.split('/')[1]}: follow-up 3"):
        asks.append(Ask(f"author_of_{subject.split(':')[0]}", "named", "named_item", by(subject),
                        "the capture's record of who wrote each commit",
                        (f"Who wrote the commit '{subject}'?", f"Which author made '{subject}'?"),
                        only=("shortlog_full",)))
    outputs = {
        "branch_vv": Output({"command": "git branch -a -vv"}, "text", texts["branch_vv"]),
        "for_each_ref": Output({"command": "git for-each-ref --sort=-committerdate --format='%(objectname) "
                                           "%(committerdate:iso8601) %(refname)'"}, "text", texts["for_each_ref"]),
        "branch_local": Output({"command": "git branch -vv"}, "text", texts["branch_local"]),
        "shortlog": Output({"command": "git shortlog -sne --all"}, "text", texts["shortlog"]),
        "shortlog_full": Output({"command": "git shortlog -ne --all"}, "text", texts["shortlog_full"]),
    }
    out = asked_cases(SOURCE, outputs, asks)
    assert len(out) >= 14, f"too few {SOURCE} cases: {len(out)}"
    return out
