"""Debian's /var/log/alternatives.log of this machine's image build: every
``update-alternatives`` call and which target each link group ended up pointing to."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from ..cases import LogLine, as_json, as_text, fact, make_case
from ..facts import spread
from ..questions import choose, pick

SOURCE = "alternatives_log"
LOG = Path("/var/log/alternatives.log")
_LINE = re.compile(r"^(update-alternatives) (\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}): (.*)$")
_POINT = re.compile(r"^link group (\S+) updated to point to (\S+)$")


def build(work: Path) -> list[dict[str, Any]]:
    lines = [LogLine(raw, m.group(2), "", m.group(1), m.group(3))
             for raw in LOG.read_text().splitlines() if (m := _LINE.match(raw))]
    text, js = as_text(lines), as_json(lines)
    forms = (("text", text, "bash", {"command": "cat /var/log/alternatives.log"}),
             ("json", js, "http_get", {"url": "http://inventory.internal/api/hosts/build-01/alternatives"}))
    points = [(m.group(1), ln.message) for ln in lines if (m := _POINT.match(ln.message))]
    # Only groups updated once: the answer is then one line, not the latest of several.
    once = [(g, msg) for g, msg in points if sum(1 for h, _ in points if h == g) == 1]
    out = []
    for k, (group, msg) in enumerate(spread(once[1:-1], 2)):
        for form, content, tool, args in forms:
            sid = f"group_{k}_{form}"
            q = choose(f"{SOURCE}/{sid}", (f"Where does the {group} alternative point now?",
                                           f"Which binary did update-alternatives select for the {group} link group?"))
            out.append(make_case(SOURCE, sid, form, tool, args, "named", q, content,
                                 [fact(msg, "named_item", f"the 'link group {group} updated' line")]))
    form, content, tool, args = forms[0]
    out.append(make_case(SOURCE, "last_text", form, tool, args, "last", pick("last", f"{SOURCE}/last", "alternatives log"),
                         content, [fact(lines[-1].message, "last_state", "message of the last line")]))
    return out
