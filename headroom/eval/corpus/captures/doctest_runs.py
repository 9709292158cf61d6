"""Python's doctest run verbosely over two usage documents: ``python3 -m doctest -v
docs/pricing.txt`` and ``... docs/stock.txt`` (each example as ``Trying:``/``Expecting:``/``ok``,
a failure as ``Failed example:``/``Expected:``/``Got:`` under a ``File ..., line N`` header, then
the totals; ~700 lines each), of documents and modules the capture writes (~50 one-line
functions each, a section of two or three examples apiece; one example per document expects the
wrong value, one function raises on bad input). Text documents rather than docstrings: doctest
names a module by its absolute path, a text file by the path it was given.

Facts come from the capture's record of what it wrote (the value a named call is documented to
return, the value the wrong example really gets, the line that example sits on, the message a
function raises), never from doctest's text; a fact is
kept only where it stands once in its output. Held out (issue 33, fourteenth round): dev holds
pytest runs and reports, but no example-by-example transcript of documentation tests.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ._asked import Ask, shell_cases

SOURCE = "doctest_runs"
VERBS = ("apply", "round", "scale", "adjust", "convert", "estimate", "split", "cap", "merge", "weigh")
NOUNS = {"pricing": ("discount", "margin", "surcharge", "coupon", "bundle", "tariff", "rebate"),
         "stock": ("reorder", "shrinkage", "backlog", "pallet", "batch", "transfer", "reserve")}
WRONG_AT, RAISES_AT = 21, 30  # positions of the odd functions, in the middle


@dataclass
class Module:
    """A module of one-line rules and the usage document whose examples test it."""

    name: str
    code: list[str] = field(default_factory=list)
    doc: list[str] = field(default_factory=list)
    documented: dict[str, str] = field(default_factory=dict)  # "fn(a, b)" -> the documented result
    record: dict[str, str] = field(default_factory=dict)


def function(m: Module, name: str, rnd: random.Random, at: int) -> None:
    k, c = rnd.randint(3, 97), rnd.randint(101, 9973)
    m.code += [f"def {name}(quantity, units):"]
    if at == RAISES_AT:
        code = f"Q{rnd.randint(100, 999)}"
        m.record.update(raises=name, message=f"quantity must be positive ({code})")
        m.code += ["    if quantity < 0:", f"        raise ValueError({m.record['message']!r})"]
    m.code += [f"    return quantity * {k} + units * {c}", "", ""]
    title = name.replace("_", " ").capitalize()
    m.doc += [title, "-" * len(title), "", f"``{name}`` prices one order line.", ""]
    for ex in range(rnd.randint(2, 3)):
        q, u = rnd.randint(2, 400), rnd.randint(1, 60)
        call, result = f"{name}({q}, {u})", q * k + u * c
        shown = result + 1 if at == WRONG_AT and ex == 1 else result
        if shown != result:  # the document's line numbers count from 1, as doctest's do
            m.record.update(wrong_call=call, wrong_got=str(result), wrong_line=f"line {len(m.doc) + 1}")
        m.documented[call] = str(shown)
        m.doc += [f"    >>> {call}", f"    {shown}"]
    if at == RAISES_AT:
        m.doc += [f"    >>> {name}(-1, 1)", "    Traceback (most recent call last):", "    ...",
                  f"    ValueError: {m.record['message']}"]
    m.doc += [""]


def write_module(work: Path, name: str, rnd: random.Random) -> Module:
    m = Module(name, [f'"""{name.capitalize()} rules of the shop."""', "", ""],
               [f"{name.capitalize()} rules", "=" * (len(name) + 6), "", "    >>> from " + name + " import *", ""])
    names = [f"{v}_{n}" for v in VERBS for n in NOUNS[name]]
    rnd.shuffle(names)
    for at, fn in enumerate(names[:52]):
        function(m, fn, rnd, at)
    (work / f"{name}.py").write_text("\n".join(m.code))
    (work / "docs").mkdir(exist_ok=True)
    (work / "docs" / f"{name}.txt").write_text("\n".join(m.doc))
    return m


def _asks(mods: dict[str, Module], rnd: random.Random) -> list[Ask]:
    note = "the capture's record of the module it wrote"
    asks = []
    for name, m in mods.items():
        only = (name,)
        asks += [
            Ask("wrong_got", "errors", "named_item", (m.record["wrong_got"],), note,
                (f"One doctest in docs/{name}.txt fails: what value did the code actually produce?",
                 "What did the failing example really return?"), only),
            Ask("wrong_line", "errors", "named_item", (m.record["wrong_line"],), note + " (its line number)",
                (f"On which line of docs/{name}.txt is the failing example?",), only),
            Ask("message", "named", "named_item", (m.record["message"],), note,
                (f"What error message does {m.record['raises']} give for a negative quantity?",), only),
        ]
        calls = [c for c in list(m.documented)[40:110] if c != m.record["wrong_call"]]
        for call in rnd.sample(calls, 5):
            asks.append(Ask(f"doc_{call.split('(')[0]}", "named", "named_item", (m.documented[call],), note,
                            (f"What is {call} documented to return?",
                             f"According to its doctest, what does {call} give?"), only))
    return asks


def build(work: Path) -> list[dict[str, Any]]:
    rnd = random.Random(1404)
    mods = {name: write_module(work, name, rnd) for name in NOUNS}
    commands = {name: f"python3 -m doctest -v docs/{name}.txt" for name in mods}
    env = {"PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8", "HOME": "/nonexistent"}
    return shell_cases(SOURCE, commands, _asks(mods, rnd), cwd=work, env=env, check=False)
