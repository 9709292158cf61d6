"""pydoc's text pages (``python3 -m pydoc``: NAME, DESCRIPTION, CLASSES with their methods,
FUNCTIONS with signatures and docstrings, DATA, FILE) of three modules of a fulfilment package
the capture writes: ~80 functions and four classes each, every parameter with a default, ~18
module constants.

In the middle of each module: one coroutine, one function with far the most parameters, one
deprecated function (its docstring names the release), one class with an alternative
constructor. Facts come from the capture's record of the modules it wrote (a named function's
default, a constant's value, the odd function's name), never from pydoc's text; a fact is kept
only where its text stands once in the output. Held out (issue 33, thirteenth round): no dev
source holds a documentation generator's page of a module (dev's ``man_pages`` are groff's
rendering of manual pages).
"""

from __future__ import annotations

import random
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ._asked import Ask, shell_cases

SOURCE = "pydoc_pages"
ENV = {"PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin", "LC_ALL": "C", "PYTHONPATH": "."}
MODULES = ("rates", "carriers", "labels")
VERBS = ("quote", "split", "merge", "check", "price", "route", "weigh", "pack", "hold", "release", "count", "score")
NOUNS = ("parcel", "pallet", "zone", "lane", "slot", "tariff", "manifest", "label", "depot", "courier", "batch",
         "surcharge", "window", "crate")
PARAMS = ("limit", "timeout", "retries", "margin", "weight", "batch_size", "rounding", "threshold", "window",
          "grace")
COMMANDS = {name: f"python3 -m pydoc fulfil.{name}" for name in MODULES}


@dataclass
class Module:
    """What the capture wrote into one module."""

    name: str
    functions: dict[str, dict[str, str]] = field(default_factory=dict)  # name -> param -> default as written
    constants: dict[str, str] = field(default_factory=dict)
    odd: dict[str, str] = field(default_factory=dict)  # what is odd -> function or method name
    deprecated_in: str = ""


def module(name: str, rnd: random.Random, numbers) -> tuple[Module, str]:
    """One module's record and source; the odd functions are the 38th to the 42nd written (pydoc lists
    them by name, so they land anywhere)."""
    m = Module(name)
    names = [f"{v}_{n}" for v, n in rnd.sample([(v, n) for v in VERBS for n in NOUNS], 80)]
    lines = [f'"""Fulfilment {name}: helpers the depot services share."""', ""]
    for c in rnd.sample(("MAX_PARCEL_GRAMS", "DEFAULT_ZONE_COUNT", "LABEL_DPI", "PALLET_LIMIT", "CUTOFF_MINUTE",
                         "DEPOT_CAPACITY", "RETRY_CEILING", "MANIFEST_PAGE", "SLOT_LENGTH", "CRATE_VOLUME",
                         "TARIFF_YEAR", "COURIER_QUOTA", "WEIGH_TOLERANCE", "BATCH_WINDOW", "LANE_COUNT",
                         "GRACE_SECONDS", "ZONE_SURCHARGE", "HOLD_DAYS"), 18):
        m.constants[c] = str(next(numbers))
        lines.append(f"{c} = {m.constants[c]}")
    for n, fn in enumerate(names):
        params = {p: str(next(numbers)) for p in rnd.sample(PARAMS, 10 if n == 39 else rnd.randint(1, 3))}
        m.functions[fn] = params
        head = "async def" if n == 37 else "def"
        doc = f"{fn.replace('_', ' ').capitalize()}."
        if n == 41:
            m.deprecated_in = f"{rnd.randint(2, 5)}.{rnd.randint(10, 40)}.{rnd.randint(1, 9)}"
            doc = f"Deprecated since {m.deprecated_in}; kept for old callers."
        signature = ", ".join(f"{p}={v}" for p, v in params.items())
        lines += ["", "", f"{head} {fn}(item, {signature}):", f'    """{doc}"""', "    return item"]
        if n == 40:
            lines += _classes(m, rnd, numbers)
    m.odd = {**m.odd, "coroutine": names[37], "most_params": names[39], "deprecated": names[41]}
    return m, "\n".join(lines) + "\n"


def _classes(m: Module, rnd: random.Random, numbers) -> list[str]:
    """Four small classes; the second offers an alternative constructor (a classmethod)."""
    out = []
    for n, cls in enumerate(rnd.sample(("Quote", "Manifest", "Courier", "Slot", "Depot", "Lane"), 4)):
        out += ["", "", f"class {cls}{m.name.capitalize()}:", f'    """A {cls.lower()} of the {m.name} service."""',
                "", f"    def __init__(self, size={next(numbers)}):", "        self.size = size"]
        if n == 1:
            ctor = rnd.choice(("from_manifest", "from_row", "from_label", "parse"))
            m.odd["classmethod"] = ctor
            m.odd["class"] = f"{cls}{m.name.capitalize()}"
            out += ["", "    @classmethod", f"    def {ctor}(cls, text):", '        """Build one from its text."""',
                    "        return cls(len(text))"]
    return out


def _asks(modules: list[Module]) -> list[Ask]:
    note = "the capture's record of the modules it wrote"
    asks = []
    for m in modules:
        only = (m.name,)
        asks += [
            Ask("coroutine", "named", "named_item", (m.odd["coroutine"],), note,
                (f"Which function in fulfil.{m.name} is async?", "Which of these helpers is a coroutine?"), only),
            Ask("most_params", "extreme", "extreme", (m.odd["most_params"],), note,
                ("Which function takes the most keyword arguments?",), only),
            Ask("deprecated", "named", "named_item", (m.deprecated_in,), note,
                (f"Since which release has {m.odd['deprecated']} been deprecated?",), only),
        ]
        funcs = list(m.functions.items())
        for fn, params in funcs[30 + 10 * MODULES.index(m.name):][:1]:
            param = next(iter(params))
            asks.append(Ask(f"default_{fn}", "named", "named_item", (params[param],), note,
                            (f"What's the default {param} of {fn}?",
                             f"If I call {fn} without {param}, what value does it get?"), only))
        const = sorted(m.constants)[5 + 3 * MODULES.index(m.name)]
        asks.append(Ask("classmethod", "named", "named_item", (m.odd["classmethod"],), note,
                        (f"How else can I build a {m.odd['class']}, besides calling it?",), only))
        asks.append(Ask("const", "named", "named_item", (m.constants[const],), note,
                        (f"What is {const} set to in fulfil.{m.name}?",), only))
    return asks


def build(work: Path) -> list[dict[str, Any]]:
    rnd = random.Random(1302)
    numbers = iter(rnd.sample(range(1013, 9973), 1500))
    (work / "fulfil").mkdir()
    (work / "fulfil" / "__init__.py").write_text('"""Fulfilment helpers."""\n')
    modules = []
    for name in MODULES:
        m, text = module(name, rnd, numbers)
        (work / "fulfil" / f"{name}.py").write_text(text)
        modules.append(m)
    return shell_cases(SOURCE, COMMANDS, _asks(modules), cwd=work, env=ENV)
