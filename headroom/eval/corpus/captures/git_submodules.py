"""Submodules as git reports them: ``git submodule status --recursive`` (one line a submodule:
a state mark, the commit checked out, the path, the nearest tag in parentheses) and ``git
submodule foreach`` running ``git log --oneline -2`` (an ``Entering '<path>'`` line, then
that submodule's last two commits), of a throwaway superproject the capture gives ~64
vendored libraries, one with a submodule of its own, one never initialized here, one checked
out a commit behind what the superproject records.

Facts come from the capture's record of what it made (the libraries, their release tags and
commit subjects, which one it deinitialized or moved) and from ``git rev-parse`` in each
library (another reader of the same repositories), never from the listings; a fact is kept
only where it stands once. Held out (issue 33, sixteenth round): dev holds work trees, refs,
status and object listings, but no submodule listing.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ._asked import Ask, shell_cases
from ._run import git_env, run

SOURCE = "git_submodules"
PREFIXES = ("fast", "tiny", "safe", "pure", "lazy", "open", "wee", "neat")
STEMS = ("csv", "json", "yaml", "toml", "cron", "uuid", "money", "color", "retry", "slug", "semver", "glob",
         "base32", "punycode", "mime", "etag")
TASKS = ("tidy the parser", "speed up decoding", "fix a rounding slip", "drop a dead branch", "widen the tests",
         "handle empty input", "document the options", "rename a helper")
COUNT = 64
COMMANDS = {"status": "git submodule status --recursive",
            "foreach": "git submodule foreach 'git log --oneline -2'"}
ALLOW_FILE = ["-c", "protocol.file.allow=always"]  # local clones of the capture's own repositories


@dataclass
class Vendored:
    """The capture's record: library -> release tag, -> its two newest subjects (newest first)."""

    tag: dict[str, str] = field(default_factory=dict)
    subjects: dict[str, tuple[str, str]] = field(default_factory=dict)
    nested: str = ""  # the library that vendors one of its own
    inner: str = ""  # the library it vendors
    unopened: str = ""  # deinitialized in the superproject
    behind: str = ""  # checked out one commit behind the recorded one


def make_library(path: Path, subjects: list[str], tag: str) -> None:
    env = git_env()
    run(["git", "init", "-q", "-b", "main", str(path)], env=env)
    for n, subject in enumerate(subjects):
        (path / "VERSION").write_text(f"{n}\n")
        run(["git", "add", "VERSION"], cwd=path, env=env)
        run(["git", "commit", "-q", "-m", subject], cwd=path, env=env)
    run(["git", "tag", tag], cwd=path, env=env)


def make_superproject(work: Path, rnd: random.Random) -> Vendored:
    env, record = git_env(), Vendored()
    names = rnd.sample([f"{p}-{s}" for p in PREFIXES for s in STEMS], COUNT + 1)
    versions = rnd.sample([f"v{a}.{b}.{c}" for a in range(1, 5) for b in range(10) for c in range(10)], COUNT + 1)
    for name, version in zip(names, versions, strict=True):
        tasks = rnd.sample(TASKS, 3)
        subjects = [f"{name}: {t}" for t in tasks]
        make_library(work / "libs" / name, subjects, version)
        record.tag[name], record.subjects[name] = version, (subjects[2], subjects[1])
    record.inner = inner = names.pop()  # vendored only by the nested library
    middle = names[COUNT // 4:COUNT * 3 // 4]
    record.nested, record.unopened, record.behind = rnd.sample(middle, 3)
    nest = work / "libs" / record.nested
    run(["git", *ALLOW_FILE, "submodule", "add", "-q", str(work / "libs" / inner), f"deps/{inner}"], cwd=nest, env=env)
    run(["git", "commit", "-q", "-m", f"{record.nested}: vendor {inner}"], cwd=nest, env=env)
    record.subjects[record.nested] = (f"{record.nested}: vendor {inner}", record.subjects[record.nested][0])
    sup = work / "shop"
    run(["git", "init", "-q", "-b", "main", str(sup)], env=env)
    for name in names:
        run(["git", *ALLOW_FILE, "submodule", "add", "-q", str(work / "libs" / name), f"vendor/{name}"], cwd=sup,
            env=env)
    run(["git", *ALLOW_FILE, "submodule", "update", "-q", "--init", "--recursive"], cwd=sup, env=env)
    run(["git", "commit", "-q", "-m", "vendor the libraries"], cwd=sup, env=env)
    run(["git", "submodule", "deinit", "-q", "-f", f"vendor/{record.unopened}"], cwd=sup, env=env)
    run(["git", "checkout", "-q", "HEAD~1"], cwd=sup / "vendor" / record.behind, env=env)
    return record


def head_of(repo: Path) -> str:
    """The commit a library's main branch points at, as git's plumbing reads it."""
    return run(["git", "rev-parse", "main"], cwd=repo, env=git_env()).stdout.strip()


def _asks(record: Vendored, work: Path, rnd: random.Random) -> list[Ask]:
    note = "the capture's record of the libraries it vendored"
    plain = sorted(set(record.tag) & {p.name for p in (work / "shop" / "vendor").iterdir()}
                   - {record.nested, record.unopened, record.behind})
    picked = rnd.sample(plain, 10)
    asks = [Ask(f"tag_{n}", "named", "named_item", (record.tag[n],), note,
                (f"Which release is vendor/{n} at?", f"What version of {n} do we vendor?"), ("status",))
            for n in picked[:5]]
    asks += [Ask(f"commit_{n}", "named", "named_item", (head_of(work / "libs" / n),), "git rev-parse in the library",
                 (f"Which commit is vendor/{n} checked out at? Full id.", f"Give me the full hash {n} is pinned to."),
                 ("status",)) for n in picked[5:7]]
    asks += [Ask("unopened", "named", "named_item", (f"vendor/{record.unopened}",), note,
                 ("Which submodule isn't initialized?", "Is any vendored library not checked out? Which?"), ("status",)),
             Ask("behind", "named", "named_item", (f"vendor/{record.behind}",), note,
                 ("Which submodule is checked out at a different commit than the superproject records?",
                  "Which vendored library has drifted from its recorded commit?"), ("status",))]
    asks += [Ask(f"latest_{n}", "named", "named_item", (record.subjects[n][0],), note,
                 (f"What's the newest commit in vendor/{n}?", f"What was the last change to {n}?"), ("foreach",))
             for n in picked[7:]]
    asks.append(Ask("behind_at", "named", "named_item", (record.subjects[record.behind][1],), note,
                    (f"vendor/{record.behind} is checked out one commit back: which commit is that?",
                     f"Which change is vendor/{record.behind} sitting on right now?"), ("foreach",)))
    asks.append(Ask("nested_path", "named", "named_item", (f"vendor/{record.nested}/deps/{record.inner}",), note,
                    ("Which vendored library pulls in a submodule of its own? Give that nested path.",
                     "Is there a submodule inside a submodule? Where?"), ("status",)))
    asks.append(Ask("nested_latest", "named", "named_item", (record.subjects[record.nested][0],), note,
                    (f"What's the newest commit in vendor/{record.nested}?",
                     f"Last change to {record.nested}, please."), ("foreach",)))
    return asks


def build(work: Path) -> list[dict[str, Any]]:
    rnd = random.Random(1604)
    record = make_superproject(work, rnd)
    return shell_cases(SOURCE, COMMANDS, _asks(record, work, rnd), cwd=work / "shop", env=git_env())
