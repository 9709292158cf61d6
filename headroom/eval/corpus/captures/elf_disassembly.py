"""``objdump -d --no-show-raw-insn`` of compiled extension modules installed in the shared
venv (numpy's and scipy's test and filter modules, markupsafe's speedups): x86-64
disassembly, one ``<function>:`` block after another, as an agent reads it when it
inspects what a module does.

Facts come from the symbol table through ``nm -S`` (where each function starts and how
long it is), not from reading the disassembly back; objdump writes a function's address
with all 16 digits only in its header line, so the fact names that block. Held out
(issue 33): a kind of output no dev source has.
"""

from __future__ import annotations

import os
import site
from pathlib import Path
from typing import Any

from ..cases import fact, make_case
from ..facts import spread
from ..questions import choose
from . import _elf
from ._run import run

SOURCE = "elf_disassembly"
MODULES = ("markupsafe/_speedups.cpython-311-x86_64-linux-gnu.so",
           "scipy/_lib/_test_ccallback.cpython-311-x86_64-linux-gnu.so",
           "scipy/ndimage/_rank_filter_1d.cpython-311-x86_64-linux-gnu.so",
           "numpy/_core/_umath_tests.cpython-311-x86_64-linux-gnu.so")


def _site_packages() -> Path:
    return next(Path(p) for p in site.getsitepackages() if (Path(p) / MODULES[0]).exists())


def _cases(path: Path, rel: str) -> list[dict[str, Any]]:
    module = rel.split(".cpython")[0].replace("/", ".")
    text = run(["objdump", "-d", "--no-show-raw-insn", str(path)], env={**os.environ, "LC_ALL": "C"}).stdout
    args = {"command": f"objdump -d --no-show-raw-insn {path}"}
    funcs = [f for f in _elf.functions(path) if text.count(f.address) == 1 and f"{f.address} <{f.name}>:" in text]
    out = []

    def add(sid: str, intent: str, wordings: tuple[str, ...], f: _elf.Symbol, kind: str, note: str) -> None:
        sid = f"{module.rsplit('.', 1)[-1].strip('_')}_{sid}"
        q = choose(f"{SOURCE}/{sid}", wordings)
        out.append(make_case(SOURCE, sid, "text", "bash", args, intent, q, text,
                             [fact(f.address, kind, note, basis="independent")]))

    names = [f.name for f in funcs]
    named = [f for f in funcs if len(f.name) >= 6 and sum(n.startswith(f.name) for n in names) == 1]
    for k, f in enumerate(spread(named, 2)):
        add(f"start_{k}", "named", (f"At which address does the function {f.name} start?",
                                    f"Where is {f.name} in this disassembly? I need its start address.",
                                    f"What is the entry address of {f.name} in {module}?"),
            f, "named_item", f"nm value of {f.name}")
    if len(funcs) >= 3:
        largest = max(funcs, key=lambda f: f.size or 0)
        if sum(f.size == largest.size for f in funcs) == 1:
            add("longest", "extreme", ("Which function in this module has the most code? Give its address.",
                                       "What is the longest function here, and where does it start?"),
                largest, "extreme", f"nm -S: {largest.name}, {largest.size} bytes, the longest")
    return out


def build(work: Path) -> list[dict[str, Any]]:
    root = _site_packages()
    out = [c for rel in MODULES for c in _cases(root / rel, rel)]
    assert len(out) >= 8, "too few disassembly cases"
    return out
