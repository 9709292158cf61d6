"""Runtime reports of GCC's undefined-behaviour sanitizer: a program built with ``gcc -g -O0
-fsanitize=undefined`` run plainly (``./fees 2>&1``: one ``fees.c:LINE:COL: runtime error: ...``
line for each place that misbehaved, in the order they ran, a memory note under a misaligned
load; ~175 lines, ~18 kB) and with ``UBSAN_OPTIONS=print_stacktrace=1`` (each error followed by
its symbolized stack: ``#0 0x... in fee_137 fees.c:412``, then ``main`` and libc's start frames;
~1,190 lines, ~73 kB; the build folder's temporary path stands in the ``_start`` frame, no fact
in it), of a fee calculator the capture writes: ~170 one-line fee functions, each called once
from ``main`` with an argument that overflows its arithmetic.

Most functions overflow a signed ``int`` by adding, subtracting or multiplying a constant of
their own; seven in the middle misbehave otherwise, once each: a shift exponent too large, a
left shift of a negative value, INT_MIN negated, an array indexed past its end, an invalid
``_Bool`` loaded, a variable-length array of non-positive size, an ``int`` loaded from a
misaligned address. Facts come from the capture's own record of the program it wrote (which
function, on which line, does what with which operands), never from the sanitizer's text; a fact
is kept only where it stands once (a line stands again in the stack's first frame, so the stack
form is asked for functions). Held out (issue 33, nineteenth round): dev holds a compiler's
warnings and Valgrind's memory-error reports, but no sanitizer's runtime reports.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ._asked import Ask, shell_cases
from ._run import run

SOURCE = "ubsan_reports"
COUNT = 170
COMMANDS = {"plain": "./fees 2>&1", "stack": "UBSAN_OPTIONS=print_stacktrace=1 ./fees 2>&1"}
# The odd functions: body, the argument main passes, and how a question names what goes wrong.
ODD = {
    "shift_big": ("return 1 << x;", "37", ("Where does a shift use an exponent too large for an int?",
                                          "Which spot shifts by more bits than an int holds?")),
    "shift_neg": ("return x << 2;", "-5", ("Where is a negative value shifted left?",
                                          "Which place left-shifts a negative number?")),
    "neg_min": ("return -x;", "-2147483647 - 1", ("Where is INT_MIN negated?",
                                                  "Which spot negates the most negative int?")),
    "bounds": ("struct { int a[8]; int tail[8]; } t = {{0}, {0}}; return t.a[x];", "9",
               ("Where is an int[8] indexed past its end?", "Which access reads beyond an 8-element array?")),
    "bool": ("unsigned char raw = (unsigned char)x; _Bool b; memcpy(&b, &raw, 1); return b ? 1 : 0;", "7",
             ("Where is an invalid _Bool value loaded?", "Which spot reads a bool holding neither 0 nor 1?")),
    "vla": ("int n = x - 5; int v[n]; return (int)sizeof v;", "2",
            ("Where does a variable-length array get a non-positive size?",
             "Which place declares a VLA with a bound below one?")),
    "misaligned": ("char buf[16] = {0}; int *p = (int *)(buf + x); return *p;", "1",
                   ("Where is an int loaded from a misaligned address?",
                    "Which spot reads an int without 4-byte alignment?")),
}


@dataclass
class Program:
    """The capture's record: the source, each function's line, operands and odd kind."""

    text: str = ""
    line: dict[str, int] = field(default_factory=dict)  # function -> line of its body
    overflow: dict[str, str] = field(default_factory=dict)  # function -> "x op c" as evaluated
    odd: dict[str, str] = field(default_factory=dict)  # odd kind -> function


def _routine(rnd: random.Random) -> tuple[str, str, str]:
    """An overflowing body, the argument, and the operands as evaluated (``x op c``)."""
    op = rnd.choice("+-*")
    if op == "+":
        x, c = rnd.randint(9000, 19000), rnd.randint(2147475000, 2147483000)
    elif op == "-":
        x, c = -rnd.randint(9000, 19000), rnd.randint(2147475000, 2147483000)
    else:
        x, c = rnd.randint(50000, 90000), rnd.randint(50000, 90000)
    return f"return x {op} {c};", str(x), f"{x} {op} {c}"


def write_program(rnd: random.Random) -> Program:
    names = [f"fee_{n:03d}" for n in rnd.sample(range(100, 1000), COUNT)]
    spots = rnd.sample(range(COUNT // 4, COUNT * 3 // 4), len(ODD))
    prog = Program(odd={what: names[i] for what, i in zip(ODD, spots, strict=True)})
    kind = {f: what for what, f in prog.odd.items()}
    bodies, args = {}, {}
    for f in names:
        if f in kind:
            bodies[f], args[f], _ = ODD[kind[f]]
        else:
            bodies[f], args[f], prog.overflow[f] = _routine(rnd)
    # Prototypes, then main, then one function a line: every line asked about has three digits.
    lines = ["#include <string.h>", ""] + [f"int {f}(int x);" for f in names] + ["", "int main(void)", "{",
                                                                                  "    unsigned s = 0;"]
    lines += [f"    s ^= (unsigned){f}({args[f]});" for f in names] + ["    return (int)(s & 0u);", "}", ""]
    for f in names:
        prog.line[f] = len(lines) + 1
        lines.append(f"int {f}(int x) {{ {bodies[f]} }}")
    assert 100 <= min(prog.line.values()) and max(prog.line.values()) < 1000
    prog.text = "\n".join(lines) + "\n"
    return prog


def _asks(prog: Program, rnd: random.Random) -> list[Ask]:
    note = "the capture's record of the program it wrote"
    asks = []
    for what, f in prog.odd.items():
        w = ODD[what][2]
        asks.append(Ask(f"{what}_line", "named", "named_item", (f"fees.c:{prog.line[f]}",), note,
                        (f"{w[0]} Give the file:line.", f"{w[1]} (fees.c and line number)"), ("plain",)))
        asks.append(Ask(f"{what}_function", "named", "named_item", (f,), note,
                        (f"{w[0]} Which function?", f"{w[1]} Name the function."), ("stack",)))
    middle = [f for f in list(prog.overflow)[COUNT // 4:COUNT * 3 // 4]]
    for f in rnd.sample(middle, 3):
        asks.append(Ask(f"operands_{prog.line[f]}", "named", "named_item", (prog.overflow[f],), note,
                        (f"What operands overflowed at fees.c:{prog.line[f]}?",
                         f"Which arithmetic overflowed on line {prog.line[f]} of fees.c?"), ("plain",)))
    for f in rnd.sample(middle, 3):
        asks.append(Ask(f"operands_{f}", "named", "named_item", (prog.overflow[f],), note,
                        (f"Which operands overflowed in {f}?", f"What did {f} overflow computing?"), ("stack",)))
    return asks


def build(work: Path) -> list[dict[str, Any]]:
    rnd = random.Random(1903)
    prog = write_program(rnd)
    (work / "fees.c").write_text(prog.text)
    env = {"PATH": "/usr/bin:/bin", "LC_ALL": "C"}
    run(["gcc", "-g", "-O0", "-fsanitize=undefined", f"-fdebug-prefix-map={work}=.", "fees.c", "-o", "fees"],
        cwd=work, env=env)
    return shell_cases(SOURCE, COMMANDS, _asks(prog, rnd), cwd=work, env=env)
