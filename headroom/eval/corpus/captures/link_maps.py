"""GNU ld's link map (``gcc -Wl,-Map=...``, with and without ``--cref``) of a small C service the
capture writes: 30 modules of functions and tables, half of them in a static archive, so the
map holds the archive members pulled in (and which symbol pulled each), the memory layout of
every input section, the symbols' addresses and the discarded sections.

Two modules differ, both in the middle of the list: one table is far larger than any other, one
module holds the only large zero-filled buffer. Facts come from another reader of the same
state: nm reading the linked executable (a symbol's address and size) and the capture's own
record of what it wrote (the largest table's name, the buffer's), never from ld's text; a fact is kept only
where its text stands once in the output. Held out (issue 33, twelfth round): no dev source
holds a linker map.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from ._asked import Ask, shell_cases
from ._elf import symbols
from ._run import run

SOURCE = "link_maps"
ENV = {"PATH": "/usr/bin:/bin", "LC_ALL": "C"}
PARTS = ("ledger", "quote", "basket", "coupon", "parcel", "refund", "invoice", "shelf", "carrier", "rating",
         "session", "profile", "notify", "export", "importer", "report", "pricing", "taxes", "stock", "media",
         "audit", "cache", "search", "routing", "billing", "label", "webhook", "payout", "returns", "vendor")
# Modules linked through the archive (every other one); the rest are objects on the command line.
ARCHIVED = PARTS[1::2]
# The odd ones, in the middle of the list.
BIGGEST_TABLE = "shelf"       # a table of 9000 ints; every other table has under 400
ZERO_BUFFER = "routing"       # the only large .bss buffer
LINK = "gcc -O1 -o shopd main.o {objs} -L. -lshop"
COMMANDS = {
    "map": f"{LINK} -Wl,-Map=shopd.map && cat shopd.map",
    "cref": f"{LINK} -Wl,-Map=shopd-cref.map -Wl,--cref && cat shopd-cref.map",
}


def module_source(part: str, rnd: random.Random) -> tuple[str, list[str]]:
    """A module's C text and its functions' names."""
    size = 9000 if part == BIGGEST_TABLE else rnd.randint(40, 380)
    lines = [f"int {part}_table[{size}] = {{{rnd.randint(1, 99)}, {rnd.randint(1, 99)}}};"]
    if part == ZERO_BUFFER:
        lines.append(f"char {part}_scratch[262144];")
    functions = [f"{part}_{verb}" for verb in rnd.sample(("open", "close", "apply", "check", "flush", "load"), 3)]
    lines += [f"int {f}(int x) {{ return x * {rnd.randint(2, 9)} + {part}_table[{n}]; }}"
              for n, f in enumerate(functions)]
    return "\n".join(lines) + "\n", functions


def write_service(work: Path, rnd: random.Random) -> dict[str, list[str]]:
    """Each module's C file and object, the archive of every other one, and a main calling one
    function of each (so every archive member is pulled in by main); each module's functions."""
    calls, written = [], {}
    for part in PARTS:
        src, functions = module_source(part, rnd)
        (work / f"{part}.c").write_text(src)
        calls.append(functions[0])
        written[part] = functions
    decls = "".join(f"int {c}(int);\n" for c in calls)
    body = " + ".join(f"{c}({n})" for n, c in enumerate(calls))
    (work / "main.c").write_text(f"{decls}int main(void) {{ return ({body}) & 1; }}\n")
    for name in ("main", *PARTS):
        shell_run(work, f"gcc -O1 -c {name}.c")
    shell_run(work, "ar rcs libshop.a " + " ".join(f"{p}.o" for p in ARCHIVED))
    return written


def shell_run(work: Path, cmd: str) -> None:
    run(["bash", "-c", cmd], cwd=work, env=ENV)


def _asks(work: Path, written: dict[str, list[str]]) -> list[Ask]:
    shell_run(work, LINK.format(objs=" ".join(f"{p}.o" for p in PARTS if p not in ARCHIVED)))
    by_name = {s.name: s for s in symbols(work / "shopd")}
    nm = "nm reading the linked executable"
    record = "the capture's record of the modules it wrote"
    asks = [
        Ask("biggest_table", "extreme", "extreme", (f"{BIGGEST_TABLE}_table",), record,
            ("Which table takes the most space in the data section?", "What's the largest initialised array?"),
            ("map",)),
        Ask("zero_buffer", "extreme", "extreme", (f"{ZERO_BUFFER}_scratch",), record,
            ("Which symbol is the big zero-filled buffer?",), ("map",)),
        Ask("biggest_size", "extreme", "extreme", (f"0x{by_name[f'{BIGGEST_TABLE}_table'].size:x}",), nm,
            ("How many bytes (hex) does the largest table take?",), ("map", "cref")),
    ]
    # A module's second function: its address is not its section's start, which the map prints too.
    for n, part in enumerate(PARTS[8:22]):
        sym = written[part][1]
        asks.append(Ask(f"addr_{part}", "named", "named_item", (f"0x{by_name[sym].address}",), nm,
                        (f"At what address does {sym} end up?", f"Where is {sym} placed in memory?"),
                        (("map", "cref")[n % 2],)))
    return asks


def build(work: Path) -> list[dict[str, Any]]:
    written = write_service(work, random.Random(1201))
    objs = " ".join(f"{p}.o" for p in PARTS if p not in ARCHIVED)
    commands = {name: cmd.format(objs=objs) for name, cmd in COMMANDS.items()}
    asks = _asks(work, written)
    return shell_cases(SOURCE, commands, asks, cwd=work, env=ENV)
