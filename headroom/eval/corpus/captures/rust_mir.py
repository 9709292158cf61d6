"""A compiler's mid-level intermediate representation as ``rustc --emit=mir`` prints it (each
function as ``fn name(_1: T) -> U {``, its ``debug`` bindings and locals, then basic blocks
``bb0: { ... }`` of statements and terminators; ~7,300 lines), of a library crate the capture
generates: ~190 small fee functions in eight modules, at ``-C opt-level=0`` and again at
``-C opt-level=1`` (the same program after MIR's own optimisations), written to stdout (``-o -``).

Most functions are alike (add one of a few constants to a bounded amount, parameters named
``amount``, ``units``, ``cap``); a few in the middle differ in one way each: a constant no other
function adds, a multiplier no other has, a parameter with a name of its own. Facts come from the
capture's own record of the source it wrote (the constants with their type suffix as MIR writes
a literal, ``48213_u32``; the parameter names), never from the dump's text; a fact is kept only
where it stands once. Held out (issue 33, eighteenth round): dev holds Python syntax trees and
machine-code disassembly, but no compiler IR.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ._asked import Ask, shell_cases

SOURCE = "rust_mir"
MODULES = ("orders", "billing", "freight", "payroll", "customs", "escrow", "rentals", "tickets")
ROUTINE_ADDS = (100, 250, 500)
RUSTC = "rustc --edition 2021 --crate-type=lib --crate-name fees --emit=mir -o -"
COMMANDS = {"o0": f"{RUSTC} -C opt-level=0 fees.rs", "o1": f"{RUSTC} -C opt-level=1 fees.rs"}


@dataclass
class Crate:
    """The capture's record: function (module::name) -> the constant it adds, the multiplier it
    uses, or its odd parameter name, where it has one."""

    adds: dict[str, int] = field(default_factory=dict)
    multipliers: dict[str, int] = field(default_factory=dict)
    params: dict[str, str] = field(default_factory=dict)


def _function(name: str, add: int, mul: int, cap_name: str) -> str:
    return (f"    pub fn {name}(amount: u32, units: u32, {cap_name}: u32) -> u32 {{\n"
            f"        let base = amount.wrapping_mul({mul}).wrapping_add({add}_u32);\n"
            f"        if units > {cap_name} {{ base }} else {{ base.wrapping_add(units) }}\n    }}\n")


def write_crate(path: Path, rnd: random.Random) -> Crate:
    crate, chunks = Crate(), []
    names = [(m, f"fee_{m[:3]}_{k}") for m in MODULES for k in range(rnd.randint(22, 26))]
    middle = range(len(names) // 3, len(names) * 2 // 3)
    odd = rnd.sample(middle, 10)
    odd_add, odd_mul, odd_param = set(odd[:4]), set(odd[4:7]), set(odd[7:])
    multipliers = iter(rnd.sample((7919, 6841, 5477), 3))
    pieces: dict[str, list[str]] = {m: [] for m in MODULES}
    for i, (module, name) in enumerate(names):
        add, mul, cap = rnd.choice(ROUTINE_ADDS), 2, "cap"
        key = f"{module}::{name}"
        if i in odd_add:
            add = crate.adds[key] = rnd.randint(40_000, 70_000)
        if i in odd_mul:
            mul = crate.multipliers[key] = next(multipliers)
        if i in odd_param:
            cap = crate.params[key] = f"{rnd.choice(('ceiling', 'quota', 'budget'))}_{module[:3]}"
        pieces[module].append(_function(name, add, mul, cap))
    for module in MODULES:
        chunks.append(f"pub mod {module} {{\n" + "".join(pieces[module]) + "}\n")
    path.write_text("".join(chunks))
    return crate


def _asks(crate: Crate) -> list[Ask]:
    note = "the capture's record of the crate it wrote"
    asks = [Ask(f"add_{key.split('::')[1]}", "named", "named_item", (f"{v}_u32",), note,
                (f"What constant does {key} add to the amount?", f"Which literal gets added in {key}?"))
            for key, v in crate.adds.items()]
    asks += [Ask(f"mul_{key.split('::')[1]}", "named", "named_item", (f"{v}_u32",), note,
                 (f"What does {key} multiply the amount by?", f"Multiplier used in {key}?"), ("o0",))
             for key, v in crate.multipliers.items()]
    asks += [Ask(f"param_{key.split('::')[1]}", "named", "named_item", (p,), note,
                 (f"What's the third parameter of {key} named?", f"Name of the limit argument in {key}?"))
             for key, p in crate.params.items()]
    return asks


def build(work: Path) -> list[dict[str, Any]]:
    crate = write_crate(work / "fees.rs", random.Random(1804))
    env = {"PATH": f"{Path.home()}/.cargo/bin:/usr/bin:/bin", "LC_ALL": "C", "HOME": str(Path.home())}
    return shell_cases(SOURCE, COMMANDS, _asks(crate), cwd=work, env=env)
