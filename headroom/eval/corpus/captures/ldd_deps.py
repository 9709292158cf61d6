"""Shared-library dependency listings as glibc's ``ldd`` prints them: ``ldd *`` (a
``name:`` header, then one ``soname => path (address)`` line per library the program loads,
directly or through another) and ``ldd -v *`` (the same with each object's symbol-version
requirements after it), over a folder of links to ~25 programs Debian installs and one
program the capture compiles.

Most programs load the same handful of libraries; a few load libraries no other program in
the folder does, one is a Perl script (``not a dynamic executable``), and the compiled one
needs a library the capture built and then deleted (``=> not found``). Facts come from
another reader of the same files, never from ``ldd``'s text: the ``NEEDED`` entries of each
ELF file's dynamic section as ``readelf -d`` prints them, followed recursively through the
library folders (the program whose closure alone holds a library, the program with the
most libraries), the first bytes of each file (the one that is no ELF file), and the
capture's own record (the library it deleted). A fact is kept only where its text stands
once in the output. Held out (issue 33, sixth round): no dev source holds ``ldd`` output.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path
from typing import Any

from ..cases import fact, make_case
from ..questions import choose
from ._run import run

SOURCE = "ldd_deps"
PROGRAMS = ("curl", "ssh", "git", "openssl", "gpg", "sqlite3", "psql", "redis-cli", "file", "xz", "zstd",
            "tar", "perl", "lsof", "strace", "ip", "ss", "top", "ps", "findmnt", "lsblk", "gzip", "make",
            "wget", "jq")
LIB_DIRS = (Path("/lib/x86_64-linux-gnu"), Path("/usr/lib/x86_64-linux-gnu"), Path("/lib64"))
NEEDED = re.compile(r"\(NEEDED\)\s+Shared library: \[([^\]]+)\]")
MISSING = "libspoolq.so.1"
BUILT = "spoolctl"


def needed(path: Path) -> list[str]:
    """The ``NEEDED`` sonames of an ELF file's dynamic section (``readelf -d``)."""
    out = run(["readelf", "-d", str(path)], env={"LC_ALL": "C", "PATH": "/usr/bin:/bin"}, check=False).stdout
    return NEEDED.findall(out)


def closure(path: Path) -> set[str] | None:
    """Every soname ``path`` loads, following ``NEEDED`` through the library folders;
    ``None`` when a needed library is in none of them."""
    seen: set[str] = set()
    todo = needed(path)
    while todo:
        soname = todo.pop()
        if soname in seen:
            continue
        seen.add(soname)
        found = next((d / soname for d in LIB_DIRS if (d / soname).exists()), None)
        if found is None:
            return None
        todo.extend(needed(found))
    return seen


def is_elf(path: Path) -> bool:
    with open(path, "rb") as f:
        return f.read(4) == b"\x7fELF"


def build_missing(work: Path, bins: Path) -> None:
    """A program needing a library the capture then deletes."""
    (work / "q.c").write_text("int spoolq_depth(void) { return 3; }\n")
    (work / "main.c").write_text("int spoolq_depth(void);\nint main(void) { return spoolq_depth(); }\n")
    run(["gcc", "-shared", "-fPIC", "-o", str(work / MISSING), f"-Wl,-soname,{MISSING}", str(work / "q.c")])
    run(["gcc", "-o", str(bins / BUILT), str(work / "main.c"), str(work / MISSING)])
    (work / MISSING).unlink()


def build(work: Path) -> list[dict[str, Any]]:
    bins = work / "bin"
    bins.mkdir()
    present = [p for p in PROGRAMS if shutil.which(p)]
    if len(present) < 15:
        raise RuntimeError(f"needs at least 15 of {PROGRAMS} installed")
    for p in present:
        (bins / p).symlink_to(Path(shutil.which(p)).resolve())
    build_missing(work, bins)
    names = sorted([*present, BUILT])
    elf = {n: is_elf(bins / n) for n in names}
    libs = {n: closure(bins / n) for n in names if elf[n]}
    complete = {n: c for n, c in libs.items() if c is not None}
    holders: dict[str, list[str]] = {}
    for n, c in complete.items():
        for so in c:
            holders.setdefault(so, []).append(n)
    alone = sorted((so, h[0]) for so, h in holders.items() if len(h) == 1)
    most = max(complete, key=lambda n: len(complete[n]))
    assert sum(len(c) == len(complete[most]) for c in complete.values()) == 1
    not_elf = [n for n in names if not elf[n]]
    assert [n for n, c in libs.items() if c is None] == [BUILT]
    asked: list[tuple[str, str, tuple[str, ...], list[dict[str, str]]]] = [
        ("missing_library", "named", ("Which library could not be found?", "Is any shared library missing? Which?"),
         [fact(MISSING, "named_item", "the capture built it, linked against it and deleted it",
               basis="independent")]),
        ("broken_program", "named", ("Which program will fail to start because of a missing library?",
                                     "Which of these executables has an unresolved dependency?"),
         [fact(f"{BUILT}:", "named_item", "readelf -d NEEDED names a library in no library folder",
               basis="independent")]),
        ("most_libraries", "extreme", ("Which program loads the most shared libraries?",
                                       "Which binary here has the largest dependency closure?"),
         [fact(f"{most}:", "extreme", f"NEEDED closure through readelf -d ({len(complete[most])} libraries)",
               basis="independent")]),
    ]
    if len(not_elf) == 1:
        asked.append(("not_elf", "named", ("Which of these is not a dynamically linked executable?",
                                           "Which file did ldd refuse because it is no ELF program?"),
                      [fact(f"{not_elf[0]}:", "named_item", "its first bytes are not the ELF magic",
                            basis="independent")]))
    # a few libraries only one program loads, each asked by its soname (spread over the list)
    spread = [p for p in alone if p[1] != most][:: max(1, len(alone) // 5)][:5]
    for so, prog in spread:
        asked.append((f"loads_{so.split('.so')[0]}", "named",
                      (f"Which program here loads {so}?", f"Which of these binaries depends on {so}?"),
                      [fact(f"{prog}:", "named_item", "the only program whose NEEDED closure holds it",
                            basis="independent")]))
    out = []
    for output, flags in (("plain", []), ("verbose", ["-v"])):
        content = run(["ldd", *flags, *names], cwd=bins, check=False,
                      env={"PATH": "/usr/bin:/bin", "LC_ALL": "C"}).stdout
        args = {"command": f"cd /opt/tools/bin && ldd {' '.join(flags)} *".replace("  ", " ")}
        for scen, intent, wordings, facts in asked:
            lines = content.splitlines()
            # a program is answered by its header line, kept where it is that line and stands
            # once in the output (``-v`` also names programs inside its version lists)
            facts = [f for f in facts if content.count(f["text"]) == 1
                     and (not f["text"].endswith(":") or f["text"] in lines)]
            if not facts:
                continue
            sid = f"{output}_{scen}"
            out.append(make_case(SOURCE, sid, "text", "bash", args, intent, choose(f"{SOURCE}/{sid}", wordings),
                                 content, facts))
    assert len(out) >= 10, f"too few {SOURCE} cases: {len(out)}"
    return out
