"""Code metrics as radon prints them: ``radon cc -s ledger`` (each module's path, then one line a
function, method or class: kind, line and column, name, rank and cyclomatic complexity, ``F
120:0 settle_batch - C (15)``; ~220 lines), the same as JSON (``radon cc -s -j``: an object a
module, an array of blocks in it; one line, ~26 kB) and ``radon raw -s ledger`` (each module's
path over an indented block of counts: LOC, LLOC, SLOC, comments, multi-line strings, blanks,
comment ratios; ~460 lines), of a Python package the capture writes: 36 modules of small
functions (each a few ``if`` statements), a class or two among them. radon 6.0.1 runs from a
throwaway venv (PyPI at build time).

Most functions branch up to three times; six in the middle branch a number of times of their
own, one far more than any other; one module carries far the most comments, one is far the
longest, one alone holds a multi-line string. Facts come from the capture's own record of the
package it wrote (each function's ``if`` count, so its complexity is one more; each module's
lines), never from radon's text; a fact is kept only where it stands once. Held out (issue 33,
nineteenth round): dev holds linters' and type checkers' reports (ruff, pylint, mypy) and
coverage tables, but no complexity or size metrics.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ._asked import Ask, shell_cases
from ._run import pinned_tool

SOURCE = "radon_metrics"
RADON = "radon==6.0.1"
AREAS = ("billing", "refunds", "payouts", "ledger", "stock", "pricing", "orders", "audit", "tax", "fx", "fees",
         "claims")
KINDS = ("rules", "sync", "export", "checks")
VERBS = ("apply", "settle", "route", "score", "merge", "clamp", "split", "match", "round", "flag", "post", "fold")
NOUNS = ("batch", "entry", "limit", "quote", "rebate", "hold", "slip", "credit", "voucher", "charge", "lot", "rate",
         "grant", "refund", "tariff", "margin", "deposit", "invoice")
ODD_IFS = (6, 8, 11, 14, 17, 29)  # complexities 7, 9, 12, 15, 18 and 30: one function each


@dataclass
class Package:
    """The capture's record: modules in order, each function's ``if`` count, the odd modules."""

    modules: dict[str, list[tuple[str, int]]] = field(default_factory=dict)  # path -> (function, ifs)
    comments: dict[str, int] = field(default_factory=dict)  # path -> comment lines
    multi: str = ""  # the one module with a multi-line string
    longest: str = ""
    wordy: str = ""  # the module with the most comment lines
    odd: dict[int, str] = field(default_factory=dict)  # complexity -> function

    def text(self, path: str, rnd: random.Random) -> str:
        out = [f"# {path}: generated for the ledger service" for _ in range(self.comments[path])]
        if path == self.multi:
            out += ['"""Settlement rules.', *[f"Rule {n}: entries settle in order." for n in range(24)], '"""']
        else:
            out.append('"""Ledger helpers."""')
        for name, ifs in self.modules[path]:
            out += ["", "", f"def {name}(x):", "    total = 0"]
            for k in range(ifs):
                out += [f"    if x > {rnd.randint(1, 999)}:", f"        total += {k + 1}"]
            out.append("    return total")
        return "\n".join(out) + "\n"


def plan(rnd: random.Random) -> Package:
    pkg = Package()
    paths = [f"ledger/{a}_{k}.py" for a, k in rnd.sample([(a, k) for a in AREAS for k in KINDS], 36)]
    names = iter(rnd.sample([f"{v}_{n}" for v in VERBS for n in NOUNS], len(VERBS) * len(NOUNS)))
    middle = paths[9:27]
    pkg.longest, pkg.wordy, pkg.multi = rnd.sample(middle, 3)
    for p in paths:
        count = 28 if p == pkg.longest else rnd.randint(3, 6)
        pkg.modules[p] = [(next(names), rnd.randint(0, 3)) for _ in range(count)]
        pkg.comments[p] = 40 if p == pkg.wordy else rnd.randint(0, 3)
    for ifs, p in zip(ODD_IFS, rnd.sample([p for p in middle if p != pkg.longest], len(ODD_IFS)), strict=True):
        i = rnd.randrange(len(pkg.modules[p]))
        name = pkg.modules[p][i][0]
        pkg.modules[p][i] = (name, ifs)
        pkg.odd[ifs + 1] = name
    return pkg


def _asks(pkg: Package) -> list[Ask]:
    note = "the capture's record of the package it wrote (a function's complexity is its if count plus one)"
    top = max(pkg.odd)
    asks = [Ask("most_complex", "extreme", "extreme", (pkg.odd[top],), note,
                ("Which function has the highest cyclomatic complexity?", "What's the most complex function here?"),
                ("cc", "json"))]
    for cc, name in pkg.odd.items():
        if cc != top:
            asks.append(Ask(f"complexity_{cc}", "named", "named_item", (name,), note,
                            (f"Which function has a complexity of {cc}?", f"Name the function radon scores at {cc}."),
                            ("cc", "json")))
    lines = "the capture's record of the lines it wrote"
    asks += [Ask("most_comments", "extreme", "extreme", (pkg.wordy,), lines,
                 ("Which module has the most comment lines?", "What file is the most heavily commented?"), ("raw",)),
             Ask("longest", "extreme", "extreme", (pkg.longest,), lines,
                 ("Which module is the longest?", "What file has the most lines of code?"), ("raw",)),
             Ask("multi", "named", "named_item", (pkg.multi,), lines,
                 ("Which module holds a multi-line string?", "What file is the only one with multi-line strings?"),
                 ("raw",))]
    return asks


def build(work: Path) -> list[dict[str, Any]]:
    rnd = random.Random(1906)
    pkg = plan(rnd)
    radon = pinned_tool(work / "tool", RADON, "radon")
    src = work / "src"
    (src / "ledger").mkdir(parents=True)
    (src / "ledger" / "__init__.py").write_text("")
    for p in pkg.modules:
        (src / p).write_text(pkg.text(p, rnd))
    commands = {"cc": "radon cc -s ledger", "json": "radon cc -s -j ledger", "raw": "radon raw -s ledger"}
    env = {"PATH": f"{radon.parent}:/usr/bin:/bin", "LC_ALL": "C.UTF-8", "NO_COLOR": "1"}
    return shell_cases(SOURCE, commands, _asks(pkg), cwd=src, env=env, json_outputs=("json",))
