"""Header include trees as GCC prints them: ``gcc -H -fsyntax-only`` (one line per header
the preprocessor opens, dots for its depth, the system headers among the project's; a
few hundred lines for one source file, then the headers it thinks lack include guards)
and ``gcc -MM`` (one make rule per source file: the object, the source and every project
header it reads, continued over backslash lines), over a C project the capture writes:
36 guarded headers in four folders, each including a few later ones and perhaps a system
header, and six source files each including some of them.

A few headers differ in one way each: one alone includes ``<pthread.h>``, one
``<sys/socket.h>``, one ``<zlib.h>``, one ``<sqlite3.h>``. Facts come from the capture's own
record of the project it wrote (which header includes which), followed the way the
preprocessor reads it (in order, a guarded header opened once), never from GCC's text: the
deepest header of a source's tree, the header that includes a named system header, the
only object that depends on a named header, the object depending on the most or fewest
headers. A fact is kept only where its text stands once in the output. Held out (issue 33,
tenth round): no dev source holds include trees or make dependency rules.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from ._asked import Ask, shell_cases

SOURCE = "include_trees"
ENV = {"PATH": "/usr/bin:/bin", "LC_ALL": "C"}
FOLDERS = ("core", "net", "db", "util")
STEMS = ("alloc", "log", "clock", "config", "error", "hash", "queue", "buffer", "socket", "http", "tls", "retry",
         "router", "codec", "pool", "schema", "query", "cursor", "migrate", "index", "locks", "strings", "path",
         "json", "archive", "metrics", "trace", "cache", "session", "auth", "mail", "report", "plugin", "signal",
         "timer", "table")
SYSTEM = ("stdint.h", "stddef.h", "stdio.h", "string.h", "errno.h", "time.h", "stdlib.h")
RARE = {"locks": "pthread.h", "socket": "sys/socket.h", "archive": "zlib.h", "cursor": "sqlite3.h"}
SOURCES = ("main", "worker", "admin", "importer", "mailer", "reindex")
TREES = ("main", "worker", "mailer", "admin", "reindex")  # the sources whose include tree is printed


def project() -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """(header -> the includes it writes, in order; source -> its includes), paths as the
    ``#include "..."`` lines spell them (``<...>`` for system headers). Four subsystems of
    nine headers; the db headers form one chain (the deepest tree), the others link a header
    to the next of its folder about half of the time and now and then to another folder."""
    rnd = random.Random(1011)
    names = [f"shop/{FOLDERS[n % 4]}/{stem}.h" for n, stem in enumerate(STEMS)]
    folder = {f: [m for m in names if m.split("/")[1] == f] for f in FOLDERS}
    headers: dict[str, list[str]] = {}
    for name in names:
        mates = folder[name.split("/")[1]]
        at = mates.index(name)
        nxt = mates[at + 1:at + 2]
        own = nxt if name.startswith("shop/db/") or rnd.random() < 0.5 else []
        if rnd.random() < 0.2:
            other = [m for m in names if m.split("/")[1] not in (name.split("/")[1], "db")]
            own = [*own, rnd.choice(other)]
        system = [f"<{rnd.choice(SYSTEM)}>"] if rnd.random() < 0.5 else []
        stem = name.split("/")[2][:-2]
        headers[name] = own + system + ([f"<{RARE[stem]}>"] if stem in RARE else [])
    sources = {src: rnd.sample(names, 2) for src in SOURCES}
    sources["main"] = [folder[f][0] for f in FOLDERS] + sources["main"]  # the entry reads every subsystem
    return headers, sources


def header_text(name: str, includes: list[str]) -> str:
    guard = name.upper().replace("/", "_").replace(".", "_")
    lines = [f"#ifndef {guard}", f"#define {guard}"]
    lines += [f"#include {i}" if i.startswith("<") else f'#include "{i}"' for i in includes]
    lines += [f"int {guard.lower()}_ready(void);", "#endif", ""]
    return "\n".join(lines)


def first_depths(headers: dict[str, list[str]], includes: list[str]) -> dict[str, int]:
    """Each project header a source reads, at the depth of its first opening (guards: once)."""
    depth: dict[str, int] = {}

    def visit(name: str, level: int) -> None:
        if name in depth:
            return
        depth[name] = level
        for inc in headers[name]:
            if not inc.startswith("<"):
                visit(inc, level + 1)

    for inc in dict.fromkeys(includes):
        visit(inc, 1)
    return depth


def on_disk(name: str) -> str:
    return f"include/{name}"


def _asks(headers: dict[str, list[str]], sources: dict[str, list[str]]) -> list[Ask]:
    reads = {src: first_depths(headers, inc) for src, inc in sources.items()}
    note = "the capture's record of the project's includes, read in order, guarded headers once"
    asks = []
    for src in TREES:
        tree, output = reads[src], f"tree_{src}"
        deepest = max(tree.values())
        if list(tree.values()).count(deepest) == 1:
            asks.append(Ask("deepest", "extreme", "extreme", (on_disk(max(tree, key=tree.get)),), note,
                            (f"Which of our headers is nested deepest when {src}.c is compiled?",
                             f"What's the most deeply nested project header in {src}.c's include tree?"),
                            (output,)))
        for stem, system in RARE.items():
            owner = next(h for h in headers if f"<{system}>" in headers[h])
            if owner in tree:
                asks.append(Ask(f"pulls_{stem}", "named", "named_item", (on_disk(owner),), note,
                                (f"Which of our headers pulls in {system}?", f"Where does {system} come in from?"),
                                (output,)))
    counts = {src: len(r) for src, r in reads.items()}
    ranked = sorted(counts, key=counts.get)
    if counts[ranked[-1]] > counts[ranked[-2]]:
        asks.append(Ask("most_headers", "extreme", "extreme", (f"{ranked[-1]}.o",), note,
                        ("Which object file depends on the most headers?",), ("deps",)))
    if counts[ranked[0]] < counts[ranked[1]]:
        asks.append(Ask("fewest_headers", "extreme", "extreme", (f"{ranked[0]}.o",), note,
                        ("Which object depends on the fewest of our headers?",), ("deps",)))
    lonely = [h for h in headers if sum(h in r for r in reads.values()) == 1]
    users = {h: next(src for src, r in reads.items() if h in r) for h in sorted(lonely)}
    # At most two headers per object, so the answers are not all one object.
    picked = [h for h in users if list(users.values())[:list(users).index(h) + 1].count(users[h]) <= 2]
    for n, header in enumerate(picked[:6]):
        user = users[header]
        asks.append(Ask(f"only_user_{n}", "named", "named_item", (f"{user}.o",), note,
                        (f"Which object file needs {header}?", f"What gets rebuilt when {header} changes?"),
                        ("deps",)))
    return asks


def write_project(work: Path, headers: dict[str, list[str]], sources: dict[str, list[str]]) -> None:
    for name, includes in headers.items():
        path = work / on_disk(name)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(header_text(name, includes))
    (work / "src").mkdir()
    for src, includes in sources.items():
        body = "".join(f'#include "{i}"\n' for i in includes)
        (work / "src" / f"{src}.c").write_text(f"{body}\nint {src}_entry(void) {{ return 0; }}\n")


def build(work: Path) -> list[dict[str, Any]]:
    headers, sources = project()
    write_project(work, headers, sources)
    commands = {f"tree_{src}": f"gcc -H -fsyntax-only -Iinclude src/{src}.c 2>&1" for src in TREES}
    commands["deps"] = "gcc -MM -Iinclude src/*.c"
    return shell_cases(SOURCE, commands, _asks(headers, sources), cwd=work, env=ENV)
