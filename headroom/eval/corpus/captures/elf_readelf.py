"""``readelf -a -W`` of shared libraries Debian ships (zlib, expat, lz4): the ELF header,
section and program headers, the dynamic section, relocations, the dynamic symbol table
and version sections, as an agent sees them when it inspects a library.

Facts come from other programs, never from reading readelf's text back: a function's
address and size from binutils' ``nm -D`` (BFD, not readelf's own reader), a section's
size from ``objdump -h``. A fact is used only where its text occurs once in the output.
Held out (issue 33): a kind of output no dev source has.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ..cases import fact, make_case
from ..facts import spread
from ..questions import choose
from . import _elf
from ._run import run

SOURCE = "elf_readelf"
LIBRARIES = ("/usr/lib/x86_64-linux-gnu/libz.so.1.2.13", "/usr/lib/x86_64-linux-gnu/libexpat.so.1.8.10",
             "/usr/lib/x86_64-linux-gnu/liblz4.so.1.9.4")
ASKED_SECTIONS = (".rodata", ".eh_frame", ".dynsym", ".rela.dyn", ".dynstr", ".data.rel.ro")


def _cases(path: str) -> list[dict[str, Any]]:
    lib = Path(path).name.split(".so")[0]
    command = f"readelf -a -W {path}"
    text = run(["readelf", "-a", "-W", path], env={**os.environ, "LC_ALL": "C"}).stdout
    args = {"command": command}
    out = []

    def add(sid: str, intent: str, wordings: tuple[str, ...], fact_text: str, kind: str, note: str) -> None:
        sid = f"{lib}_{sid}"
        q = choose(f"{SOURCE}/{sid}", wordings)
        out.append(make_case(SOURCE, sid, "text", "bash", args, intent, q, text,
                             [fact(fact_text, kind, note, basis="independent")]))

    funcs = [f for f in _elf.functions(path, dynamic=True) if text.count(f.address) == 1]
    by_name = {}
    for f in funcs:
        by_name.setdefault(f.name.split("@")[0], f)
    named = [(n, f) for n, f in sorted(by_name.items()) if len(n) >= 6 and sum(m.startswith(n) for m in by_name) == 1]
    for k, (name, f) in enumerate(spread(named, 2)):
        add(f"address_{k}", "named", (f"At what address is {name} defined in {lib}?",
                                      f"What is the symbol value of the exported function {name}?",
                                      f"Where does {name} live in this library (its address)?"),
            f.address, "named_item", f"nm -D value of {name}")
    sized = [f for f in by_name.values() if f.size]
    largest = max(sized, key=lambda f: f.size)
    if sum(f.size == largest.size for f in sized) == 1:
        add("largest_function", "extreme", ("Which exported function is the largest, and at what address is it?",
                                            "What is the biggest function this library exports? Give its address."),
            largest.address, "extreme", f"nm -D: {largest.name.split('@')[0]}, {largest.size} bytes, the largest")
    sizes = _elf.section_sizes(path)
    for name in ASKED_SECTIONS:
        if name not in sizes:
            continue
        hexsize = f" {sizes[name]:06x} "  # readelf -S -W prints sizes as six hex digits
        if text.count(hexsize) != 1:
            continue
        add(f"section_{name.strip('.').replace('.', '_')}", "named",
            (f"How big is the {name} section of {lib}?", f"What size does the {name} section have?"),
            hexsize, "named_item", f"objdump -h size of {name}: {sizes[name]} bytes")
        break  # one section question per library
    return out


def build(work: Path) -> list[dict[str, Any]]:
    out = [c for path in LIBRARIES for c in _cases(path)]
    assert len(out) >= 8, "too few ELF cases"
    return out
