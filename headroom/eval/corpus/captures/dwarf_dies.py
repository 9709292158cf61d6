"""Debugging information as binutils prints it: ``readelf --debug-dump=info`` and ``objdump
--dwarf=info`` (the DWARF 5 tree of debugging entries: one ``<depth><offset>: Abbrev Number``
line a DIE, its attributes indented under it; ~4,000 lines), of an object file the capture
generates in C and compiles with ``gcc -g -O0`` (the build folder mapped to ``.``, so no
temporary path is printed).

The C file holds a dozen enums, ~30 structs and ~60 small functions. Most are alike: enum
values counting up from 0, members and parameters with names many others share (``id``,
``ctx``, ``flags`` ...); a few in the middle differ in one way each: enumerators given values
of their own, a struct member that is a bit-field of a width no other has, functions whose
parameters bear names no other has. Facts come from the capture's own record of the
declarations it wrote, never from the dump's text; a fact is kept only where it stands once.
Held out (issue 33, eighteenth round): dev holds ELF headers, sections and symbols (``readelf
-a``) and disassembly, but no DWARF entry tree.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ._asked import Ask, shell_cases
from ._run import run

SOURCE = "dwarf_dies"
NOUNS = ("order", "invoice", "parcel", "refund", "ledger", "coupon", "basket", "tariff", "voucher", "payout",
         "manifest", "pallet", "route", "quote", "rebate", "escrow")
MEMBERS = ("id", "count", "flags", "total", "owner", "next", "state", "weight")
PARAMS = ("ctx", "n", "flags", "buf", "len")
COMMANDS = {"readelf": "readelf --debug-dump=info shop.o", "objdump": "objdump --dwarf=info shop.o"}


@dataclass
class Decls:
    """The capture's record of the odd declarations: enumerator -> value, bit-field -> (struct,
    width), function -> its parameter names."""

    values: dict[str, int] = field(default_factory=dict)
    bitfields: dict[str, tuple[str, int]] = field(default_factory=dict)
    params: dict[str, tuple[str, ...]] = field(default_factory=dict)


def _enums(rnd: random.Random, decls: Decls) -> list[str]:
    out = []
    odd_enums = set(rnd.sample(range(4, 8), 3))
    for e, noun in enumerate(NOUNS[:12]):
        names = [f"{noun.upper()}_{w}" for w in ("NEW", "OPEN", "HELD", "DONE", "VOID", "LATE")]
        vals = list(range(len(names)))
        if e in odd_enums:
            k = rnd.randrange(len(names))
            vals[k] = rnd.randint(40_000, 60_000)
            decls.values[names[k]] = vals[k]
        body = ", ".join(f"{n} = {v}" for n, v in zip(names, vals, strict=True))
        out.append(f"enum {noun}_state {{ {body} }};\nenum {noun}_state {noun}_initial = {names[0]};")
    return out


def _structs(rnd: random.Random, decls: Decls) -> list[str]:
    out, structs = [], [f"{a}_{b}" for a in NOUNS[:10] for b in ("head", "row", "slot")]
    odd = set(rnd.sample(range(len(structs) // 3, len(structs) * 2 // 3), 3))
    widths = iter(rnd.sample(range(9, 15), 3))
    for i, name in enumerate(structs):
        members = [f"    int {m};" for m in rnd.sample(MEMBERS, 4)]
        if i in odd:
            member, width = f"{name.split('_')[0]}_mark_{rnd.choice('xyz')}", next(widths)
            members.append(f"    unsigned {member} : {width};")
            decls.bitfields[member] = (name, width)
        out.append(f"struct {name} {{\n" + "\n".join(members) + f"\n}};\nstruct {name} {name}_zero;")
    return out


def _functions(rnd: random.Random, decls: Decls) -> list[str]:
    out = []
    names = [f"{verb}_{noun}" for noun in NOUNS for verb in ("load", "check", "post", "drop")]
    odd = set(rnd.sample(range(len(names) // 3, len(names) * 2 // 3), 4))
    suffixes = iter(rnd.sample(("quorum", "horizon", "epsilon", "gradient"), 4))
    for i, name in enumerate(names):
        params = rnd.sample(PARAMS, 3)
        if i in odd:
            params[rnd.randrange(3)] = f"{name.split('_')[1][:4]}_{next(suffixes)}"
            decls.params[name] = tuple(params)
        sig = ", ".join(f"long {p}" for p in params)
        out.append(f"long {name}({sig}) {{ return {' + '.join(params)}; }}")
    return out


def write_source(path: Path, rnd: random.Random) -> Decls:
    decls = Decls()
    enums, structs, functions = _enums(rnd, decls), _structs(rnd, decls), _functions(rnd, decls)
    # The enums among the structs, so that their odd values sit inside the tree, not at its head.
    half = len(structs) // 2
    parts = structs[:half] + enums + structs[half:] + functions
    path.write_text("\n".join(parts) + "\n")
    return decls


def _asks(decls: Decls) -> list[Ask]:
    note = "the capture's record of the declarations it wrote"
    asks = [Ask(f"value_{name.lower()}", "named", "named_item", (str(v),), note,
                (f"What value does the enumerator {name} have?", f"What's {name} defined as, numerically?"))
            for name, v in decls.values.items()]
    for member, (struct, width) in decls.bitfields.items():
        asks.append(Ask(f"bitfield_{struct}", "named", "named_item", (member,), note,
                        (f"Which member of struct {struct} is a {width}-bit field?",
                         f"struct {struct} has a bit-field of width {width}: what's the member called?")))
    for fn, params in decls.params.items():
        odd = next(p for p in params if "_" in p)
        pos = ("first", "second", "third")[params.index(odd)]
        asks.append(Ask(f"param_{fn}", "named", "named_item", (odd,), note,
                        (f"What is the {pos} parameter of {fn} called?",
                         f"Name of {fn}'s {pos} argument, per the debug info?")))
    return asks


def build(work: Path) -> list[dict[str, Any]]:
    decls = write_source(work / "shop.c", random.Random(1803))
    env = {"PATH": "/usr/bin:/bin", "LC_ALL": "C"}
    run(["gcc", "-g", "-O0", "-c", f"-fdebug-prefix-map={work}=.", "shop.c", "-o", "shop.o"], cwd=work, env=env)
    return shell_cases(SOURCE, COMMANDS, _asks(decls), cwd=work, env=env)
