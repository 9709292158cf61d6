"""A push's per-ref report as git writes it: ``git push --porcelain origin REFSPEC...`` (one
``flag<TAB>src:dst<TAB>summary`` line a ref, with the old and new tips of each update, then
``Done``; ~190 lines, ~14 kB) and a plain ``git push origin REFSPEC...`` (a ``-> `` line a ref
under ``To ...``, with the ``remote:`` lines the server's hook writes; ~190 lines, ~13 kB),
both with the hook's messages (stderr with stdout), of one push of ~150 refspecs from a
release team's clone to a bare repository whose ``update`` hook refuses refs frozen by a
ticket.

Most refs are new feature branches and tags; in the middle, ten branches are refused by the
hook (each naming the ticket that froze it), a dozen are fast-forwarded or force-updated
(their old and new tips shown), four are rejected as non-fast-forward, one branch and one tag
are deleted. Facts come from the capture's own record of what it pushed and froze, with each
old tip read by ``git rev-parse --short=12`` before the push, never from git's text; a fact is
kept only where it stands once (a ref's name stands twice on a line, ``src:dst`` or ``src ->
dst``, and every ref is named on the command line, so names are asked about, never answered). Each form runs on a fresh pair
of repositories made the same way (fixed clock and author, so the same commit ids). Held out
(issue 33, twenty-third round): dev holds refs, reflogs, worktrees and history listings, but
no transfer's per-ref outcome.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ._asked import Ask, Output, asked_cases
from ._run import git_env, run

SOURCE = "push_report"
WORDS = ("ledger", "parcel", "refund", "tariff", "voucher", "pallet", "invoice", "carrier", "quota", "basket",
         "manifest", "escrow", "customs", "loyalty", "pricing", "restock", "warranty", "kitting", "dunning",
         "intake", "claims", "coupon", "netting", "picking", "sampling", "layaway", "credit", "aging", "audit",
         "billing")
COMMANDS = {"porcelain": "git -c core.abbrev=12 push --porcelain origin {specs} 2>&1",
            "plain": "git -c core.abbrev=12 push origin {specs} 2>&1"}
HOOK = """#!/bin/sh
# refuse a ref a ticket has frozen: deny.txt holds "REF TICKET REASON..."
line=$(grep "^$1 " "$GIT_DIR/deny.txt")
if [ -n "$line" ]; then
  set -- $line
  ref=$1; ticket=$2; shift 2
  echo "policy: $ref is frozen by $ticket ($*)" >&2
  exit 1
fi
exit 0
"""
REASONS = ("release freeze", "legal hold", "audit in progress", "pending security review", "customer escalation")


@dataclass
class Push:
    """The capture's record: what each refspec does, what the hook refuses and why."""

    specs: list[str] = field(default_factory=list)
    frozen: dict[str, str] = field(default_factory=dict)  # branch -> ticket
    updated: dict[str, str] = field(default_factory=dict)  # branch -> old tip (12 hex digits)
    forced: set[str] = field(default_factory=set)
    stale: list[str] = field(default_factory=list)  # rejected: non-fast-forward
    deleted_branch: str = ""
    deleted_tag: str = ""


def _commit(repo: Path, env: dict[str, str], name: str, text: str) -> None:
    (repo / name).write_text(text)
    run(["git", "add", name], cwd=repo, env=env)
    run(["git", "commit", "-q", "-m", f"{name}: {text.strip()}"], cwd=repo, env=env)


def make(work: Path, rnd: random.Random) -> tuple[Path, Push]:
    """A bare remote with the hook, a clone with the refs to push; the same on every call for
    the same seed (fixed author, clock and order)."""
    env = git_env()
    remote, local = work / "remote.git", work / "local"
    run(["git", "init", "-q", "--bare", "-b", "main", str(remote)], env=env)
    (remote / "hooks" / "update").write_text(HOOK)
    (remote / "hooks" / "update").chmod(0o755)
    run(["git", "init", "-q", "-b", "main", str(local)], env=env)
    # a relative URL, so no temporary path is printed
    run(["git", "remote", "add", "origin", "../remote.git"], cwd=local, env=env)
    _commit(local, env, "README", "shop back office\n")
    branches = [f"feature/{w}-{n}" for w in WORDS for n in rnd.sample(range(100, 1000), 4)]
    rnd.shuffle(branches)
    existing = branches[:24]  # pushed before, then moved on locally
    for i, b in enumerate(existing):  # each on a commit of its own, so each old tip differs
        run(["git", "checkout", "-q", "-b", b, "main"], cwd=local, env=env)
        _commit(local, env, f"start{i}", f"start {b}\n")
        run(["git", "checkout", "-q", "main"], cwd=local, env=env)
    for i, d in enumerate(("deadbeef", "cafe")):
        run(["git", "tag", f"v0.{i}.{len(d)}"], cwd=local, env=env)
    run(["git", "push", "-q", "origin", "main", *existing, "--tags"], cwd=local, env=env)
    p = Push()
    p.deleted_branch, p.deleted_tag = existing[20], "v0.1.4"
    old = {b: run(["git", "rev-parse", "--short=12", b], cwd=local, env=env).stdout.strip() for b in existing}
    for i, b in enumerate(existing[:20]):
        if i < 4:  # history rewritten without force: refused as non-fast-forward
            run(["git", "checkout", "-q", "--orphan", f"tmp{i}"], cwd=local, env=env)
            _commit(local, env, f"rewrite{i}", f"rewritten {b}\n")
            run(["git", "update-ref", f"refs/heads/{b}", "HEAD"], cwd=local, env=env)
            run(["git", "checkout", "-q", "main"], cwd=local, env=env)
            p.stale.append(b)
            continue
        run(["git", "checkout", "-q", b], cwd=local, env=env)
        if i < 10:  # forced: the branch is rebuilt on a fresh root
            run(["git", "checkout", "-q", "--orphan", f"tmp{i}"], cwd=local, env=env)
            p.forced.add(b)
        _commit(local, env, f"change{i}", f"work on {b}\n")
        run(["git", "update-ref", f"refs/heads/{b}", "HEAD"], cwd=local, env=env)
        run(["git", "checkout", "-q", "main"], cwd=local, env=env)
        p.updated[b] = old[b]
    fresh = branches[24:]
    for b in fresh:
        run(["git", "branch", b, "main"], cwd=local, env=env)
    middle = fresh[len(fresh) // 3: 2 * len(fresh) // 3]
    tickets = rnd.sample(range(1000, 9999), 10)
    deny = []
    for b, t in zip(rnd.sample(middle, 10), tickets, strict=True):
        p.frozen[b] = f"SHOP-{t}"
        deny.append(f"refs/heads/{b} SHOP-{t} {rnd.choice(REASONS)}")
    (remote / "deny.txt").write_text("\n".join(deny) + "\n")
    for n in range(40):
        run(["git", "tag", f"rc-{2026}.{n // 8}.{n % 8}", "main"], cwd=local, env=env)
    specs = ([f"refs/heads/{b}:refs/heads/{b}" for b in fresh]
             + [f"{'+' if b in p.forced else ''}refs/heads/{b}:refs/heads/{b}" for b in existing[:20]]
             + [f"refs/tags/rc-2026.{n // 8}.{n % 8}:refs/tags/rc-2026.{n // 8}.{n % 8}" for n in range(40)]
             + [f":refs/heads/{p.deleted_branch}", f":refs/tags/{p.deleted_tag}"])
    # the updates and deletions stand among the new refs, not at an end
    head, tail = specs[:60], specs[60:]
    rnd.shuffle(tail)
    p.specs = head + tail
    return local, p


def remote_tips(remote: Path) -> dict[str, str]:
    """Every ref on the remote after the push, as git for-each-ref reads it."""
    out = run(["git", "for-each-ref", "--format=%(refname) %(objectname:short=12)"], cwd=remote,
              env=git_env()).stdout
    return dict(line.split() for line in out.splitlines())


def check(p: Push, tips: dict[str, str]) -> None:
    """The remote holds what the record says: frozen refs absent, stale ones unchanged, deletions gone."""
    assert not any(f"refs/heads/{b}" in tips for b in p.frozen)
    assert f"refs/heads/{p.deleted_branch}" not in tips and f"refs/tags/{p.deleted_tag}" not in tips
    for b in p.updated:
        assert tips[f"refs/heads/{b}"] != p.updated[b]
    assert all(f"refs/heads/{b}" in tips for b in p.stale)


def _asks(p: Push) -> list[Ask]:
    note = "the capture's record of what it pushed and froze; old tips by git rev-parse before the push"
    # the deleted refs are named on the command line (``:refs/heads/...``), so they are never asked
    asks = []
    # a few of each, so the source stays near twenty cases
    for b, ticket in list(p.frozen.items())[:4]:
        asks.append(Ask(f"frozen_{b}", "named", "named_item", (ticket,), note,
                        (f"Which ticket froze {b}?", f"What ticket does the hook cite for refusing {b}?")))
    for b, tip in [*list(p.updated.items())[:3], *list(p.updated.items())[-3:]]:
        kind = "forced update" if b in p.forced else "fast-forward"
        asks.append(Ask(f"old_tip_{b}", "named", "named_item", (tip,), note,
                        (f"What was the remote's tip of {b} before this {kind}?",
                         f"Which commit did {b} point at on the remote before the push?")))
    return asks


def build(work: Path) -> list[dict[str, Any]]:
    outputs = {}
    for name, cmd in COMMANDS.items():
        rnd = random.Random(2301)
        local, push = make(work / name, rnd)
        command = cmd.format(specs=" ".join(push.specs))
        # git push exits 1 when any ref is refused: the finding, not a failure
        text = run(["bash", "-c", command], cwd=local, env=git_env(), check=False).stdout
        check(push, remote_tips(work / name / "remote.git"))
        outputs[name] = Output({"command": command}, "text", text)
    out = asked_cases(SOURCE, outputs, _asks(push))
    assert len(out) >= 12, f"too few {SOURCE} cases: {len(out)}"
    return out
