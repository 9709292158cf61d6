"""Whitespace-aligned tables printed by real programs: ``dpkg -l`` and ``ls -l`` of this
machine's own packages and ``/usr/bin``.

The facts come from the system, not from reading the table back: package versions from
``dpkg-query -W``, file sizes from ``os.lstat``. A fact is used only where its text occurs
once in the output, so it names one row.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ..cases import fact, make_case
from ..facts import spread
from ..questions import choose
from ._run import run

SOURCE = "aligned_tables"
LISTED_DIR = "/usr/bin"


def _dpkg_cases() -> list[dict[str, Any]]:
    # A fixed width, so the capture does not depend on the terminal it ran in.
    text = run(["dpkg", "-l"], env={**os.environ, "COLUMNS": "160"}).stdout
    listed = run(["dpkg-query", "-W", "-f", "${Package}\t${Version}\n"]).stdout.splitlines()
    versions = [ln.split("\t") for ln in listed if ln.count("\t") == 1]
    unique = [(p, v) for p, v in versions if len(v) >= 5 and text.count(v) == 1 and p in text]
    out = []
    for k, (pkg, version) in enumerate(spread(unique, 3)):
        sid = f"dpkg_version_{k}"
        q = choose(f"{SOURCE}/{sid}", (f"Which version of the {pkg} package is installed?",
                                       f"What {pkg} release does this system have?",
                                       f"Is {pkg} installed, and at what version?"))
        out.append(make_case(SOURCE, sid, "text", "bash", {"command": "dpkg -l"}, "named", q, text,
                             [fact(version, "named_item", f"dpkg-query version of {pkg}")]))
    return out


def _ls_cases() -> list[dict[str, Any]]:
    # ls's default time style, as an agent runs it ("Nov 23 17:10", or the year when old).
    text = run(["ls", "-l", LISTED_DIR], env={**os.environ, "LC_ALL": "C"}).stdout
    sizes = {}
    for entry in os.scandir(LISTED_DIR):
        sizes[entry.name] = os.lstat(entry.path).st_size
    by_size = sorted(sizes.items(), key=lambda kv: kv[1])

    def once(size: int) -> bool:
        return text.count(f" {size} ") == 1

    out = []
    largest = by_size[-1]
    if once(largest[1]):
        sid = "ls_largest"
        q = choose(f"{SOURCE}/{sid}", (f"Which file in {LISTED_DIR} takes the most disk space, and how much?",
                                       f"What is the biggest program in {LISTED_DIR}?"))
        out.append(make_case(SOURCE, sid, "text", "bash", {"command": f"ls -l {LISTED_DIR}"}, "extreme", q, text,
                             [fact(f" {largest[1]} ", "extreme", f"size of {largest[0]}, the largest entry")]))
    named = [(n, s) for n, s in by_size[len(by_size) // 3:] if s >= 10_000 and once(s) and len(n) >= 4
             and text.count(f" {n}\n") == 1]
    for k, (name, size) in enumerate(spread(named, 2)):
        sid = f"ls_size_{k}"
        q = choose(f"{SOURCE}/{sid}", (f"How large is the {name} executable?",
                                       f"What size does ls report for {name}?"))
        out.append(make_case(SOURCE, sid, "text", "bash", {"command": f"ls -l {LISTED_DIR}"}, "named", q, text,
                             [fact(f" {size} ", "named_item", f"os.lstat size of {name}")]))
    return out


def build(work: Path) -> list[dict[str, Any]]:
    return _dpkg_cases() + _ls_cases()
