"""A shared library's exported symbols checked against its package's symbols file, as Debian's
``dpkg-gensymbols`` does in a package build: ``dpkg-gensymbols -v3.0 -plibledger2
-elibledger.so.2 -Idebian/libledger2.symbols -Olibledger2.symbols`` (warnings, then a unified
diff of the symbols file: new symbols as ``+`` lines at the new version, vanished ones as
``#MISSING: 3.0#`` lines; ~200 lines, ~6 kB) and the same with ``-c0 -q -O`` (``-q``: no diff, the whole new
symbols file on stdout, one ``symbol@Base version`` line a symbol; ~570 lines, ~17 kB), of a C library
the capture writes and builds with ``gcc -shared`` and the symbols file it wrote for the last
release: ~560 functions in eight modules, each with the version that introduced it.

Since that release the capture removed ten functions (in the middle of the file) and added
two functions to each module; the new ones are asked about (a vanished one stands twice in the
diff and not at all in the listing). Facts come
from the capture's own record of the library and the symbols file it wrote, checked against
``nm -D`` on the built library, never from dpkg-gensymbols' text; a fact is kept only where it
stands once. Held out (issue 33, twenty-fourth round): dev holds ELF symbol tables, DWARF, link
maps and diffs of files and trees, but no package symbols check.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from ._asked import Ask, shell_cases
from ._run import run

SOURCE = "symbols_check"
MODULES = ("ledger", "tariff", "payout", "escrow", "rebate", "voucher", "parcel", "quota")
VERBS = ("open", "close", "post", "void", "hold", "release", "tally", "stamp", "route", "match", "expire", "renew",
         "split", "merge", "flag", "clear", "rank", "seal", "probe", "lift", "trim", "weigh", "sort", "scan",
         "pack", "ship", "bill", "lock", "sync", "dump", "load", "save", "copy", "move", "mark", "swap", "pull",
         "push", "read", "peek")
OBJECTS = ("entry", "batch", "account", "period", "report")
VERSIONS = ("2.0", "2.1", "2.2", "2.3", "2.4", "2.5", "2.6", "2.7", "2.8", "2.9")
ENV = {"PATH": "/usr/bin:/bin", "LC_ALL": "C"}
CHECK = "dpkg-gensymbols -v3.0 -plibledger2 -elibledger.so.2 -Idebian/libledger2.symbols"
COMMANDS = {"diff": f"{CHECK} -Olibledger2.symbols", "listing": f"{CHECK} -c0 -q -O"}


def plan(rnd: random.Random) -> dict[str, Any]:
    """The capture's record: the last release's symbols with their versions, the removed, the added."""
    names = [f"{m}_{o}_{v}" for m in MODULES for o in OBJECTS for v in VERBS]
    rnd.shuffle(names)
    old = {n: rnd.choice(VERSIONS) for n in names[:560]}
    ordered = sorted(old)  # the symbols file's order
    removed = rnd.sample(ordered[len(ordered) // 5: 4 * len(ordered) // 5], 10)
    spare = names[560:]
    added = {m: [n for n in spare if n.startswith(f"{m}_")][:2] for m in MODULES}
    return {"old": old, "removed": removed, "added": added}


def write(p: dict[str, Any], work: Path) -> list[str]:
    """The C source and last release's symbols file; the functions the library now exports."""
    exported = sorted((set(p["old"]) - set(p["removed"])) | {n for pair in p["added"].values() for n in pair})
    body = "".join(f"int {n}(int x) {{ return x + {i}; }}\n" for i, n in enumerate(exported))
    (work / "ledger.c").write_text(body)
    (work / "debian").mkdir()
    lines = ["libledger.so.2 libledger2 #MINVER#"] + [f" {n}@Base {p['old'][n]}" for n in sorted(p["old"])]
    (work / "debian" / "libledger2.symbols").write_text("\n".join(lines) + "\n")
    return exported


def dynamic_symbols(lib: Path) -> set[str]:
    """Defined functions in the dynamic symbol table, as nm reads it."""
    out = run(["nm", "-D", "--defined-only", str(lib)], env=ENV).stdout
    return {parts[2] for parts in (ln.split() for ln in out.splitlines()) if len(parts) == 3 and parts[1] == "T"}


def _asks(p: dict[str, Any]) -> list[Ask]:
    note = "the capture's record of the library and the symbols file it wrote; nm -D on the built library"
    asks = []
    # a vanished symbol stands twice in the diff (its - line and its #MISSING line) and not at all
    # in the listing, so only the new ones are asked about
    for m, pair in p["added"].items():
        asks.append(Ask(f"new_{m}", "named", "named_item", tuple(pair), note,
                        (f"Which new symbols appeared in the {m} module?", f"What functions did the {m} module gain?")))
    return asks


def build(work: Path) -> list[dict[str, Any]]:
    rnd = random.Random(2405)
    p = plan(rnd)
    exported = write(p, work)
    run(["gcc", "-shared", "-fPIC", "-O0", "-Wl,-soname,libledger.so.2", "-o", "libledger.so.2", "ledger.c"],
        cwd=work, env=ENV)
    assert dynamic_symbols(work / "libledger.so.2") == set(exported)
    # exit status 1 reports the differences, not a failure; warnings go to stderr, as a build shows them
    cmds = {k: f"{v} 2>&1" for k, v in COMMANDS.items()}
    cases = shell_cases(SOURCE, cmds, _asks(p), cwd=work, env=ENV, least=12, check=False)
    for c in cases:
        c["tool_arguments"]["command"] = c["tool_arguments"]["command"].removesuffix(" 2>&1")
    return cases
