"""A failed link as the GNU linkers report it: ``gcc -o settled obj/...`` with GNU ld (per
function an ``in function `name':`` heading, then one ``file.c:LINE: undefined reference to
`symbol'`` line a missing call, and ``multiple definition of`` / ``first defined here`` pairs;
~220 lines, ~16 kB) and the same link with ``-fuse-ld=gold`` (one ``file.c:LINE: error:
undefined reference to 'symbol'`` line a missing call, no function named; ~130 lines, ~9 kB),
of a C settlement service the capture writes and compiles with ``-g`` from relative paths: 28
modules of small functions calling, ~120 times, a vendor FX library's
functions that the link line leaves out.

Each missing symbol is called from one line of one function; in the middle, one function calls
far more missing symbols than any other, and three functions are defined in two modules each.
Facts come from the capture's own record of the code it wrote (which function calls which
symbol on which line, where each duplicate was first written), never from the linkers' text; a
fact is kept only where it stands once. Held out (issue 33, twenty-second round): dev holds
compiler diagnostics (gcc warnings), sanitizer and valgrind reports and link maps of a
successful link, but no failed link's undefined and duplicate symbols.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ._asked import Ask, shell_cases
from ._run import run

SOURCE = "link_errors"
AREAS = ("billing", "refunds", "payouts", "ledger", "pricing", "customs", "treasury")
PARTS = ("intake", "rules", "export", "sweep")
VERBS = ("accrue", "book", "clear", "derive", "fold", "grade", "hedge", "index", "judge", "lodge", "mark",
         "net", "offset", "pace", "quell", "rebase", "sift", "tally", "vouch", "weigh")
NOUNS = ("accrual", "basket", "coupon", "docket", "escrow", "folio", "gilt", "haircut", "invoice", "journal",
         "kiosk", "levy", "mandate", "notional", "outlay", "parcel", "quota", "rebate", "surplus", "tranche")
FX = ("quote", "spread", "swap", "forward", "pip", "tenor", "cross", "fixing", "pivot", "drift", "ladder", "basis",
      "corridor", "strike", "carry", "skew")
FX_VERBS = ("fetch", "lock", "roll", "price", "hedge", "settle", "probe", "warm", "purge", "shift")
HUB_CALLS = 9  # the one function calling far more missing symbols than any other (others call at most 2)
DUPLICATES = 3
BUILD_DIR = "/srv/settled"


@dataclass
class Func:
    name: str
    calls: list[str] = field(default_factory=list)  # missing symbols, one a line
    lines: dict[str, int] = field(default_factory=dict)  # missing symbol -> its line in the file


@dataclass
class Program:
    """The capture's record: modules in link order, their functions, the duplicates."""

    modules: dict[str, list[Func]] = field(default_factory=dict)  # "area/part.c" -> functions
    dups: dict[str, tuple[str, str]] = field(default_factory=dict)  # name -> (first file, second file)
    first_line: dict[str, int] = field(default_factory=dict)  # duplicate -> its line in the first file
    hub: str = ""

    def caller(self, symbol: str) -> tuple[str, Func]:
        return next((path, f) for path, fs in self.modules.items() for f in fs if symbol in f.calls)


def plan(rnd: random.Random) -> Program:
    prog = Program()
    paths = [f"{a}/{p}.c" for a, p in rnd.sample([(a, p) for a in AREAS for p in PARTS], len(AREAS) * len(PARTS))]
    names = iter(rnd.sample([f"{v}_{n}" for v in VERBS for n in NOUNS], len(VERBS) * len(NOUNS)))
    missing = iter(rnd.sample([f"fx_{v}_{n}" for v in FX_VERBS for n in FX], len(FX_VERBS) * len(FX)))
    for p in paths:
        prog.modules[p] = [Func(next(names)) for _ in range(rnd.randint(5, 8))]
    middle = paths[len(paths) // 3: 2 * len(paths) // 3]
    hub_path = rnd.choice(middle)
    hub = rnd.choice(prog.modules[hub_path])
    prog.hub = hub.name
    hub.calls = [next(missing) for _ in range(HUB_CALLS)]
    for p in paths:
        for f in prog.modules[p]:
            if f is not hub and rnd.random() < 0.5:
                f.calls = [next(missing) for _ in range(rnd.choice((1, 1, 2)))]
    # three functions written twice: a first module in the middle, a second later on
    for first in rnd.sample([p for p in middle if p != hub_path], DUPLICATES):
        later = rnd.choice(paths[paths.index(first) + 1:])
        name = next(names)
        prog.dups[name] = (first, later)
    return prog


def source_text(prog: Program, path: str) -> str:
    """The module's C text; records each missing call's line and each duplicate's first line."""
    out = ["/* settlement service: generated module */", "#include <stddef.h>", ""]
    for f in prog.modules[path]:
        out += [f"extern long {s}(long);" for s in f.calls]
    out.append("")
    for f in prog.modules[path]:
        out += [f"long {f.name}(long x)", "{", "    long total = x;"]
        for s in f.calls:
            out.append(f"    total += {s}(total);")
            f.lines[s] = len(out)
        out += ["    return total;", "}", ""]
    for name, (first, later) in prog.dups.items():
        if path in (first, later):
            # the brace on the name's line: the line the debug information gives the definition
            out.append(f"long {name}(long x) {{")
            if path == first:
                prog.first_line[name] = len(out)
            out += [f"    return x + {len(out)};", "}", ""]
    return "\n".join(out) + "\n"


def _asks(prog: Program, rnd: random.Random) -> list[Ask]:
    note = "the capture's record of the code it wrote (which function calls which missing symbol on which line)"
    asks = [Ask("busiest_function", "extreme", "extreme", (prog.hub,), note,
                ("Which function has the most undefined references?",
                 "What function is missing the most symbols at link time?"), ("ld",))]
    callers = [s for fs in prog.modules.values() for f in fs if f.name != prog.hub and len(f.calls) == 1
               for s in f.calls]
    for s in rnd.sample(callers, 8):
        path, f = prog.caller(s)
        asks.append(Ask(f"caller_{s}", "named", "named_item", (f.name,), note,
                        (f"Which function calls the undefined `{s}`?", f"Who references {s}, which the link lacks?"),
                        ("ld",)))
    for s in rnd.sample([s for s in callers], 8):
        path, f = prog.caller(s)
        asks.append(Ask(f"line_{s}", "named", "named_item", (f"{path}:{f.lines[s]}",), note,
                        (f"Where in the source is the unresolved {s} called?",
                         f"Which file and line reference {s}?"), ("gold",)))
    for name, (first, _) in prog.dups.items():
        asks.append(Ask(f"first_{name}", "named", "named_item", (f"{BUILD_DIR}/{first}:{prog.first_line[name]}",), note,
                        (f"Where was {name} first defined?", f"Which file and line hold the earlier {name}?"),
                        ("ld",)))
    return asks


def build(work: Path) -> list[dict[str, Any]]:
    rnd = random.Random(2201)
    prog = plan(rnd)
    src = work / "src"
    objs = []
    for path in prog.modules:
        (src / path).parent.mkdir(parents=True, exist_ok=True)
        (src / path).write_text(source_text(prog, path))
        obj = "obj/" + path.replace("/", "_").replace(".c", ".o")
        (src / "obj").mkdir(exist_ok=True)
        # the build folder's path is mapped to a fixed one, so GNU ld's file names do not name the temporary folder
        run(["gcc", "-g", "-O0", f"-fdebug-prefix-map={src}={BUILD_DIR}", "-c", path, "-o", obj], cwd=src)
        objs.append(obj)
    (src / "main.c").write_text("int main(void) { return 0; }\n")
    run(["gcc", "-g", "-c", "main.c", "-o", "obj/main.o"], cwd=src)
    link = "gcc -o settled obj/main.o " + " ".join(objs)
    commands = {"ld": f"{link} 2>&1", "gold": f"{link} -fuse-ld=gold 2>&1"}
    env = {"PATH": "/usr/bin:/bin", "LC_ALL": "C"}
    return shell_cases(SOURCE, commands, _asks(prog, rnd), cwd=src, env=env, check=False)
