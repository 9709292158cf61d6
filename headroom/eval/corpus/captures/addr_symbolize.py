"""Code addresses turned into functions and source lines, as binutils' ``addr2line`` does for a
crash report: ``addr2line -f -e svc ADDR...`` (two lines an address: the function, then
``file:line``; ~320 lines, ~9 kB) and ``addr2line -a -f -p -e svc ADDR...`` (one line an
address: ``0x...: function at file:line``; ~160 lines, ~5.5 kB), of a C service the capture
writes and compiles with debug information (``gcc -g -O0``, the build folder mapped to
``/srv/svc`` so no temporary path is printed): 160 functions in eight source files, one address
asked per function, a few bytes into its body.

Facts come from the capture's own record of the code it wrote (each function's file and the
line its body starts on) and from ``nm`` (another program) for each function's address, never
from addr2line's text; a fact is kept only where it stands once. Held out (issue 33,
twenty-third round): dev holds ELF headers and symbols, DWARF entries, disassembly and link
maps, but no symbolization of addresses.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from ._asked import Ask, shell_cases
from ._run import run

SOURCE = "addr_symbolize"
FILES = ("ledger", "parcel", "refund", "tariff", "voucher", "pallet", "carrier", "escrow")
VERBS = ("post", "void", "hold", "release", "tally", "stamp", "route", "match", "expire", "renew", "split", "merge",
         "flag", "clear", "rank", "seal", "probe", "lift", "trim", "weigh")
ENV = {"PATH": "/usr/bin:/bin", "LC_ALL": "C"}


def plan(rnd: random.Random) -> dict[str, list[str]]:
    """Each file's functions, in the order they are written."""
    names = [f"{f}_{v}" for f in FILES for v in VERBS]
    rnd.shuffle(names)
    out: dict[str, list[str]] = {f: [] for f in FILES}
    for n in names:
        out[n.split("_")[0]].append(n)
    return out


def write(src: Path, files: dict[str, list[str]], rnd: random.Random) -> dict[str, tuple[str, int]]:
    """The C files; each function's file and the line of its first statement (the capture's record)."""
    where = {}
    for f, fns in files.items():
        lines = ["#include <stdio.h>", ""]
        for fn in fns:
            lines.append(f"int {fn}(int n)")
            lines.append("{")
            where[fn] = (f"{f}.c", len(lines) + 1)
            lines.append(f"    int acc = n * {rnd.randint(2, 97)};")
            for _ in range(rnd.randint(0, 6)):  # bodies of different lengths, so lines differ
                lines.append(f"    acc = (acc ^ {rnd.randint(1, 9999)}) + n;")
            lines += ["    return acc;", "}", ""]
        (src / f"{f}.c").write_text("\n".join(lines))
    main = ["#include <stdlib.h>"] + [f"int {fn}(int n);" for fns in files.values() for fn in fns]
    main += ["int main(int argc, char **argv)", "{", "    int s = atoi(argc > 1 ? argv[1] : \"1\");"]
    main += [f"    s += {fn}(s);" for fns in files.values() for fn in fns]
    main += ["    return s & 1;", "}", ""]
    (src / "main.c").write_text("\n".join(main))
    return where


def addresses(binary: Path) -> dict[str, int]:
    """Each function's start address, as nm reads the symbol table."""
    out = {}
    for line in run(["nm", "--defined-only", str(binary)], env=ENV).stdout.splitlines():
        addr, kind, name = line.split()
        if kind in "Tt":
            out[name] = int(addr, 16)
    return out


def build(work: Path) -> list[dict[str, Any]]:
    rnd = random.Random(2307)
    files = plan(rnd)
    src = work / "src"
    src.mkdir()
    where = write(src, files, rnd)
    c_files = [f"{f}.c" for f in FILES] + ["main.c"]
    run(["gcc", "-g", "-O0", "-fno-pie", "-no-pie", f"-fdebug-prefix-map={src}=/srv/svc", "-o", "svc", *c_files],
        cwd=src, env=ENV)
    start = addresses(src / "svc")
    # the first statement's code starts past the prologue; 8 bytes in is inside it for every body here
    order = [fn for f in FILES for fn in files[f]]
    rnd.shuffle(order)
    asked = {fn: start[fn] + 8 for fn in order}
    args = " ".join(hex(a) for a in asked.values())
    commands = {"plain": f"addr2line -f -e svc {args}", "pretty": f"addr2line -a -f -p -e svc {args}"}
    note = "the capture's record of the code it wrote; function addresses by nm"
    middle = order[len(order) // 3: 2 * len(order) // 3]
    asks = []
    for fn in rnd.sample(middle, 6):
        asks.append(Ask(f"function_{fn}", "named", "named_item", (fn,), note,
                        (f"Which function contains address {hex(asked[fn])}?",
                         f"What function does {hex(asked[fn])} resolve to?")))
    for fn in rnd.sample([f for f in middle if not any(a.scenario.endswith(f) for a in asks)], 4):
        file, line = where[fn]
        asks.append(Ask(f"line_{fn}", "named", "named_item", (f"{file}:{line}",), note,
                        (f"Which source line does address {hex(asked[fn])} map to?",
                         f"What file and line is {hex(asked[fn])} in?")))
    return shell_cases(SOURCE, commands, asks, cwd=src, env=ENV, least=12)
