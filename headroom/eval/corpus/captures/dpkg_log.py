"""Debian's package manager log, /var/log/dpkg.log, as this machine's image build left it
(about 5,000 lines: unpack, configure, status and trigger events for every package)."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ..cases import LogLine, as_json, as_text, fact, make_case
from ..facts import spread
from ..questions import choose, pick

SOURCE = "dpkg_log"
LOG = Path("/var/log/dpkg.log")
_LINE = re.compile(r"^(\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}) (\S+) ?(.*)$")


def parse(text: str) -> list[LogLine]:
    return [LogLine(raw, m.group(1), "", m.group(2), m.group(3))
            for raw in text.splitlines() if (m := _LINE.match(raw))]


def build(work: Path) -> list[dict[str, Any]]:
    lines = parse(LOG.read_text())
    text, js = as_text(lines), as_json(lines)
    text_args = {"command": "cat /var/log/dpkg.log"}
    json_args = {"url": "http://inventory.internal/api/hosts/build-01/dpkg-events"}
    out = []
    # Named item: asked by package name, answered by the version that reached "installed".
    installed = [ln for ln in lines if ln.component == "status" and ln.message.startswith("installed ")]
    for k, ln in enumerate(spread(installed[len(installed) // 3: 2 * len(installed) // 3], 2)):
        pkg = ln.message.split()[1].split(":")[0]
        for form, content, tool, args in (("text", text, "bash", text_args), ("json", js, "http_get", json_args)):
            sid = f"named_{k}_{form}"
            q = choose(f"{SOURCE}/{sid}", (f"Which version of {pkg} did dpkg leave installed?",
                                           f"What version number does the {pkg} package have after this run?"))
            out.append(make_case(SOURCE, sid, form, tool, args, "named", q, content,
                                 [fact(ln.message, "named_item", f"'status installed' line of {pkg}")]))
    # Change: upgrades carry old and new versions.
    upgrades = [ln.message for ln in lines if ln.component == "upgrade"]
    for form, content, tool, args in (("text", text, "bash", text_args), ("json", js, "http_get", json_args)):
        sid = f"upgrades_{form}"
        q = choose(f"{SOURCE}/{sid}", ("Which packages were upgraded, and from which version to which?",
                                       "List the package upgrades in this log with their old and new versions."))
        out.append(make_case(SOURCE, sid, form, tool, args, "change", q, content,
                             [fact(m, "change", "an 'upgrade' event (package, old, new version)")
                              for m in spread(sorted(set(upgrades), key=upgrades.index), 12)]))
    out.append(make_case(SOURCE, "last_text", "text", "bash", text_args, "last", pick("last", f"{SOURCE}/last", "dpkg log"),
                         text, [fact(lines[-1].message, "last_state", "message of the last line")]))
    return out
