"""GNU patch's reports (``patch -p1 --dry-run``, and ``--verbose``) of a release patch tried on a
tree that has drifted since the patch was made: 40 modules, two hunks each; every module has
gained a different number of header lines, and more between its two changes, so every hunk
lands at an offset of its own; one module's
changed line was edited meanwhile (its hunk fails), one's context was touched three lines off
(it applies with fuzz).

Facts come from the capture's own record of the drift it made (how many lines it put on top of
a named module, which module it broke, which it touched), never from patch's text; a fact is
kept only where its text stands once in the output. Held out (issue 33, twelfth round): no dev
source holds a patch application report.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from ._asked import Ask, shell_cases
from ._run import run

SOURCE = "patch_reports"
ENV = {"PATH": "/usr/bin:/bin", "LC_ALL": "C"}
PARTS = ("ledger", "quote", "basket", "coupon", "parcel", "refund", "invoice", "shelf", "carrier", "rating",
         "session", "profile", "notify", "export", "importer", "report", "pricing", "taxes", "stock", "media",
         "audit", "cache", "search", "routing", "billing", "label", "webhook", "payout", "returns", "vendor",
         "queue", "slots", "tariff", "zones", "promo", "loyalty", "wallet", "gift", "review", "fraud")
BROKEN_AT, FUZZY_AT = 19, 23  # in the middle of the 40
CHANGES = (18, 58)  # the two changed lines of each 80-line module (1-based)
COMMANDS = {
    "dry_run": "cd tree && patch -p1 --dry-run < ../release.patch",
    "verbose": "cd tree && patch -p1 --dry-run --verbose < ../release.patch",
}


def module(part: str, k: int) -> list[str]:
    return [f"{part.upper()}_{n} = {n * k}  # step {n}\n" for n in range(1, 81)]


def write_trees(work: Path, rnd: random.Random) -> dict[str, tuple[int, int]]:
    """old/ and new/ (the release patch is their diff) and tree/ (old/ drifted); each module's
    two hunks' offsets (the header lines put on top; those and the lines put between them)."""
    # Three-digit multiples of 7, so an offset is never a line number the report prints (those are
    # 1 or 6 past a multiple of 7) nor a part of one; lines put between the two changes give the
    # second hunk its own offset, all distinct and past the first offsets.
    shifts = dict(zip(PARTS, rnd.sample(range(105, 400, 7), len(PARTS))))
    seconds = rnd.sample(range(406, 945, 7), len(PARTS))
    middles = {part: second - shifts[part] for part, second in zip(PARTS, seconds)}
    for i, part in enumerate(PARTS):
        old = module(part, rnd.randint(3, 97))
        new = [f"{line[:-1]} (release 2.4)\n" if n + 1 in CHANGES else line for n, line in enumerate(old)]
        drifted = list(old)
        if i == BROKEN_AT:
            drifted[CHANGES[0] - 1] = f"{part.upper()}_{CHANGES[0]} = 0  # edited on the branch\n"
        if i == FUZZY_AT:
            drifted[CHANGES[1] - 4] = "# reviewed\n"
        drifted[30:30] = [f"# note {n}\n" for n in range(middles[part])]
        drifted = [f"# header {n}\n" for n in range(shifts[part])] + drifted
        for tree, lines in (("old", old), ("new", new), ("tree", drifted)):
            path = work / tree / "src" / f"{part}.py"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text("".join(lines))
    diff = run(["diff", "-ru", "old", "new"], cwd=work, env=ENV, check=False).stdout
    # File headers without diff's timestamps (as a patch mailed or kept in a repository has them).
    diff = "".join(line.split("\t")[0] + "\n" if line.startswith(("--- ", "+++ ")) else line
                   for line in diff.splitlines(keepends=True))
    (work / "release.patch").write_text(diff)
    return {part: (shifts[part], shifts[part] + middles[part]) for part in PARTS}


def _asks(offsets: dict[str, tuple[int, int]]) -> list[Ask]:
    note = "the capture's record of the drift it made"
    asks = [
        Ask("broken", "named", "named_item", (f"src/{PARTS[BROKEN_AT]}.py",), note,
            ("Which file's hunk failed to apply?", "Where did the patch not go in?"), ("dry_run",)),
        Ask("fuzzy", "named", "named_item", (f"src/{PARTS[FUZZY_AT]}.py",), note,
            ("Which file needed fuzz to apply?",), ("dry_run",)),
    ]
    for n, part in enumerate(PARTS[10:34]):
        if PARTS.index(part) in (BROKEN_AT, FUZZY_AT) or n % 3 == 2:
            continue
        first = n % 3 == 0
        asks.append(Ask(f"offset_{part}", "named", "named_item", (str(offsets[part][0 if first else 1]),), note,
                        (f"How far off was the {('first' if first else 'second')} hunk for {part}.py, in lines?",
                         f"By how many lines had the {('first' if first else 'second')} change in {part}.py moved?"),
                        (tuple(COMMANDS)[n % 2],)))
    return asks


def build(work: Path) -> list[dict[str, Any]]:
    offsets = write_trees(work, random.Random(1204))
    return shell_cases(SOURCE, COMMANDS, _asks(offsets), cwd=work, env=ENV, check=False)
