"""Word-level diffs as git prints them: ``git log -p --word-diff`` (each commit's header, then
its hunks with the changed words inline as ``[-old-]{+new+}``; ~480 lines) and ``git diff
--word-diff`` of the whole span (~200 lines), of a repository of operations runbooks the capture
writes (eight files of one-line service settings in prose) and edits over 36 commits, one or two
numbers a commit.

Facts come from the capture's record of the edits it made (a named setting's value before and
after, the ticket that changed it), never from git's text; a fact is kept only where it stands
once in its output, the ``[-``, ``-]``, ``{+`` and ``+}`` marks counting as the edges of a word.
Held out (issue 33, fourteenth round): dev holds line-oriented diffs in normal, unified, brief
and side-by-side forms, but none that marks changed words inside a line.
"""

from __future__ import annotations

import random
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ._asked import Ask, Output, asked_cases
from ._run import git_env, run

SOURCE = "word_diffs"
RUNBOOKS = ("storefront", "payments", "fulfilment", "identity", "data", "search", "messaging", "edge")
SERVICES = ("api", "worker", "scheduler", "cache", "gateway", "indexer", "exporter", "mailer")
FIELDS = {"queue": "holds at most {} messages in its queue", "timeout": "times out a call after {} ms",
          "flush": "flushes its write buffer every {} ms", "disk": "alerts at {} MiB of disk"}
NAMED = {"queue": "queue limit", "timeout": "call timeout", "flush": "flush interval", "disk": "disk alert threshold"}
COMMANDS = {"log": "git log -p --word-diff", "span": "git diff --word-diff v1.0 HEAD"}


@dataclass
class Edit:
    book: str
    service: str
    field: str
    old: str
    new: str
    ticket: str


@dataclass
class Runbooks:
    values: dict[tuple[str, str, str], str] = field(default_factory=dict)
    edits: list[Edit] = field(default_factory=list)


def render(rb: Runbooks, book: str) -> str:
    lines = [f"# {book.capitalize()} runbook", ""]
    for svc in SERVICES:
        lines.append(f"## {book}-{svc}")
        lines += [f"The {book}-{svc} service {phrase.format(rb.values[book, svc, f])}." for f, phrase in FIELDS.items()]
        lines.append("")
    return "\n".join(lines)


def write_history(repo: Path, rnd: random.Random) -> Runbooks:
    rb = Runbooks()
    numbers = iter(rnd.sample(range(1000, 99999), 2000))
    rb.values = {(b, s, f): str(next(numbers)) for b in RUNBOOKS for s in SERVICES for f in FIELDS}
    repo.mkdir()
    clock = iter(range(0, 10**6, 97))

    def git(*args: str) -> None:
        minute = next(clock)
        date = f"2026-10-{1 + minute // 1440:02d} {minute // 60 % 24:02d}:{minute % 60:02d}:00 +0000"
        run(["git", *args], cwd=repo, env=git_env("Mei Tanaka", date))

    def commit(message: str) -> None:
        for book in RUNBOOKS:
            (repo / f"{book}.md").write_text(render(rb, book))
        git("add", "-A")
        git("commit", "-q", "-m", message)

    git("init", "-q", "-b", "main")
    commit("runbooks: first version")
    git("tag", "v1.0")
    # Each setting is edited at most once, so every old and new value stands once in the log.
    keys = rnd.sample(sorted(rb.values), 48)
    tickets = iter(rnd.sample(range(1000, 9999), 40))
    for n in range(36):
        ticket = f"OPS-{next(tickets)}"
        for key in keys[n: n + 1] if n % 3 else keys[36 + n // 3: 37 + n // 3] + keys[n: n + 1]:
            edit = Edit(*key, rb.values[key], str(next(numbers)), ticket)
            rb.values[key] = edit.new
            rb.edits.append(edit)
        commit(f"runbooks: retune {edit.book}-{edit.service} ({ticket})")
    return rb


def word_once(content: str, text: str) -> bool:
    """``text`` occurs once, as a whole word; a word diff's marks are a word's edges."""
    if not text or content.count(text) != 1:
        return False
    before, after = r"(?:(?<=\[-)|(?<=\{\+)|(?<![\w.-]))", r"(?:(?=-\])|(?=\+\})|(?![\w-]))"
    return re.search(before + re.escape(text) + after, content) is not None


def _asks(rb: Runbooks) -> list[Ask]:
    note = "the capture's record of the edits it made"
    asks = []
    for n, e in enumerate(rb.edits[6:42:3]):
        what = NAMED[e.field]
        target = f"{e.book}-{e.service}"
        kind = n % 3
        if kind == 0:
            asks.append(Ask(f"old_{target}_{e.field}", "change", "named_item", (e.old,), note,
                            (f"What was the {what} of {target} before it was retuned?",
                             f"Before the change, what {what} did the runbook give {target}?")))
        elif kind == 1:
            asks.append(Ask(f"new_{target}_{e.field}", "change", "named_item", (e.new,), note,
                            (f"What's the new {what} for {target}?", f"What {what} does {target} have now?")))
        else:
            asks.append(Ask(f"ticket_{target}_{e.field}", "named", "named_item", (e.ticket,), note,
                            (f"Which ticket changed the {what} of {target}?",), ("log",)))
    return asks


def build(work: Path) -> list[dict[str, Any]]:
    rb = write_history(work / "repo", random.Random(1405))
    env = git_env("Mei Tanaka")
    outputs = {name: Output({"command": cmd}, "text", run(["bash", "-c", cmd], cwd=work / "repo", env=env).stdout)
               for name, cmd in COMMANDS.items()}
    out = asked_cases(SOURCE, outputs, _asks(rb), once=word_once)
    assert len(out) >= 12, f"too few {SOURCE} cases: {len(out)}"
    return out
