"""``python -X importtime`` of heavy imports in the shared venv: CPython's own per-module
import timings (self and cumulative microseconds, the module indented by nesting), the
output an agent gets when it asks why a program starts slowly. Text as CPython wrote it to
stderr, and the same rows as the JSON a profiling API would return."""

from __future__ import annotations

import json
import re
import sys
from pathlib import Path
from typing import Any

from ..cases import fact, make_case
from ..questions import choose
from ._run import run

SOURCE = "python_importtime"

# What is imported per capture: a large tree (scikit-learn pulls numpy and scipy) and a
# small one (an HTTP client), so both a long and a short table are in the corpus.
IMPORTS = {"sklearn": "import sklearn.linear_model", "httpx": "import httpx"}
_ROW = re.compile(r"import time:\s+(\d+) \|\s+(\d+) \|( *)(\S.*)$")


def rows_of(text: str) -> list[dict[str, Any]]:
    """The timing rows (the header line has no numbers), each with its line as written."""
    out = []
    for line in text.splitlines():
        m = _ROW.match(line)
        if m:
            out.append({"self_us": int(m[1]), "cumulative_us": int(m[2]), "depth": (len(m[3]) - 1) // 2,
                        "package": m[4], "line": line})
    return out


def _named(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """A module to ask about by name: nested (not a top-level import), imported once, and
    in the middle of the cumulative ranking, so neither extreme answers for it."""
    names = [r["package"] for r in rows]
    nested = [r for r in rows if r["depth"] >= 2 and names.count(r["package"]) == 1 and "." in r["package"]]
    nested.sort(key=lambda r: (r["cumulative_us"], r["package"]))
    return nested[len(nested) // 2]


def build(work: Path) -> list[dict[str, Any]]:
    out = []
    for name, statement in IMPORTS.items():
        # -X importtime writes to stderr; a fresh interpreter, bytecode already compiled.
        run([sys.executable, "-c", statement])
        text = run([sys.executable, "-X", "importtime", "-c", statement], cwd=work).stderr
        text = "".join(ln + "\n" for ln in text.splitlines() if ln.startswith("import time:"))
        rows = rows_of(text)
        js = json.dumps([{k: r[k] for k in ("self_us", "cumulative_us", "depth", "package")} for r in rows])
        slowest = max(rows, key=lambda r: (r["cumulative_us"], r["package"]))
        heaviest_self = max(rows, key=lambda r: (r["self_us"], r["package"]))
        named = _named(rows)
        asks = [
            ("slowest_total", "extreme", slowest, "largest cumulative time",
             ("Which import took the longest in total, counting everything it pulled in?",
              "Overall, which module was the most expensive to import, dependencies included?")),
            ("slowest_self", "extreme", heaviest_self, "largest self time",
             ("Which single module spent the most time importing itself, not counting its dependencies?",
              "Ignoring what they import in turn, which module's own import was slowest?")),
            ("named", "named", named, "the named module's row",
             (f"How long did `{named['package']}` take to import, including its dependencies?",
              f"What were the self and cumulative import times of `{named['package']}`?")),
        ]
        for scen, intent, row, note, wordings in asks:
            kind = "extreme" if intent == "extreme" else "named_item"
            for form, content in (("text", text), ("json", js)):
                if form == "json" and intent == "named":
                    continue  # the JSON rows answer a lookup with the name the question already says
                sid = f"{name}_{scen}_{form}"
                q = choose(f"{SOURCE}/{sid}", wordings)
                if form == "text":
                    facts = [fact(row["line"], kind, f"{note}: the row as CPython wrote it")]
                else:
                    # Each fact must name this row alone: the name only where no other
                    # module's name contains it ("httpx" is inside "httpx._client").
                    value = str(row["cumulative_us"] if scen == "slowest_total" else row["self_us"])
                    facts = [fact(t, kind, f"{note}: {what} (occurs once)")
                             for t, what in ((row["package"], "the module's name"), (value, "its microseconds"))
                             if content.count(t) == 1]
                tool, args = (("bash", {"command": f"python -X importtime -c '{statement}'"}) if form == "text"
                              else ("http_get", {"url": f"http://profiler.internal/api/importtime?stmt={name}"}))
                out.append(make_case(SOURCE, sid, form, tool, args, intent, q, content, facts))
    return out
