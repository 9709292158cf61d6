"""``dpkg -s`` of installed Debian packages: RFC 822 control stanzas (``Package:``,
``Installed-Size:``, ``Depends:``, a folded ``Description:``, ``Homepage:`` ...), one per
package, as an agent reads them when it checks what a package is and needs.

Facts come from ``dpkg-query -W -f`` (the same database, fields asked for by name, one
line per package), never from reading the stanzas back, and are used only where their
text occurs once in the output. No dev source asks for these fields: ``dpkg_log`` and
``aligned_tables`` hold versions, which are left out here. Held out (issue 33): a kind
of output no dev source has.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ..cases import fact, make_case
from ..facts import spread
from ..questions import choose
from ._run import run

SOURCE = "dpkg_status"
PER_OUTPUT = 30
FIELDS = ("Package", "Installed-Size", "Homepage", "Depends")


def _installed() -> list[dict[str, str]]:
    fmt = "\t".join(f"${{{f}}}" for f in FIELDS) + "\n"
    rows = []
    for line in run(["dpkg-query", "-W", "-f", fmt]).stdout.splitlines():
        parts = line.split("\t")
        if len(parts) == len(FIELDS):
            rows.append(dict(zip(FIELDS, parts)))
    return sorted(rows, key=lambda r: r["Package"])


def _cases(name: str, pkgs: list[dict[str, str]]) -> list[dict[str, Any]]:
    cmd = ["dpkg", "-s", *(p["Package"] for p in pkgs)]
    text = run(cmd, env={**os.environ, "LC_ALL": "C"}).stdout
    args = {"command": " ".join(cmd)}
    out = []

    def add(sid: str, intent: str, wordings: tuple[str, ...], fact_text: str, kind: str, note: str) -> None:
        sid = f"{name}_{sid}"
        q = choose(f"{SOURCE}/{sid}", wordings)
        out.append(make_case(SOURCE, sid, "text", "bash", args, intent, q, text,
                             [fact(fact_text, kind, note, basis="independent")]))

    def once(s: str) -> bool:  # the fact's own text names one stanza ("Installed-Size: 109" is in "...: 1093")
        return text.count(s) == 1

    sized = [p for p in pkgs if p["Installed-Size"].isdigit() and once(f"Installed-Size: {p['Installed-Size']}")]
    for k, p in enumerate(spread(sized[1::2], 2)):
        add(f"size_{k}", "named", (f"How much disk space does {p['Package']} take once installed?",
                                   f"What is the installed size of the {p['Package']} package?"),
            f"Installed-Size: {p['Installed-Size']}", "named_item", f"dpkg-query Installed-Size of {p['Package']}")
    homes = [p for p in pkgs if p["Homepage"] and once(p["Homepage"]) and p["Package"] not in p["Homepage"]]
    for k, p in enumerate(spread(homes, 2)):
        add(f"homepage_{k}", "named", (f"Where is the upstream project of {p['Package']} hosted?",
                                       f"What is the homepage of {p['Package']}?"),
            p["Homepage"], "named_item", f"dpkg-query Homepage of {p['Package']}")
    deps = [p for p in pkgs if len(p["Depends"]) >= 12 and once(p["Depends"])]
    for k, p in enumerate(spread(deps[::-1], 2)):
        add(f"depends_{k}", "named", (f"What does {p['Package']} depend on?",
                                      f"Which packages must be installed for {p['Package']}?"),
            p["Depends"], "named_item", f"dpkg-query Depends of {p['Package']}")
    biggest = max(pkgs, key=lambda p: int(p["Installed-Size"] or 0))
    if sum(p["Installed-Size"] == biggest["Installed-Size"] for p in pkgs) == 1 and once(f"Package: {biggest['Package']}"):
        add("largest", "extreme", ("Which of these packages takes the most disk space?",
                                   "What is the biggest package in this list once installed?"),
            f"Package: {biggest['Package']}", "extreme",
            f"dpkg-query: the largest Installed-Size ({biggest['Installed-Size']} KiB)")
    return out


def build(work: Path) -> list[dict[str, Any]]:
    rows = [r for r in _installed() if r["Installed-Size"].isdigit()]
    half = len(rows) // 2
    out = _cases("first_half", spread(rows[:half], PER_OUTPUT)) + _cases("second_half", spread(rows[half:], PER_OUTPUT))
    assert len(out) >= 10, "too few dpkg status cases"
    return out
