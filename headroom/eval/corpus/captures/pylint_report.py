"""``pylint`` (pinned, in a throwaway venv) over real installed packages' code (tenacity
and sortedcontainers from the shared venv), written in one run as pylint's text report
(with its score line) and as its JSON report. A linter other than ruff: different message
shapes (``path:line:col: C0301: ... (symbol)``), module banners, a final rating."""

from __future__ import annotations

import json
import os
from collections import Counter
from pathlib import Path
from typing import Any

from ..cases import fact, make_case
from ..facts import json_safe, kinds_of, spread, unique_in
from ..questions import choose, pick
from ._run import pinned_tool, run

SOURCE = "pylint_report"
RELEASE = "pylint==3.3.1"
TARGETS = ("tenacity", "sortedcontainers")


def build(work: Path) -> list[dict[str, Any]]:
    import tenacity  # locates the shared venv's site-packages (sortedcontainers sits beside it)

    site = Path(tenacity.__file__).parents[1]
    pylint = pinned_tool(work, RELEASE, "pylint")
    txt, jsn = work / "report.txt", work / "report.json"
    # --rcfile=/dev/null: pylint's defaults, not an enclosing project's config. A fresh PYLINTHOME:
    # no "(previous run: ...)" read from the stats cache of an earlier run on this machine.
    run([str(pylint), "--rcfile=/dev/null", f"--output-format=text:{txt},json:{jsn}", "--reports=n", "--score=y",
         "--persistent=n", *TARGETS], check=False, cwd=site, timeout=900,
        env={**os.environ, "PYLINTHOME": str(work / "pylint-home")})
    text, js = txt.read_text(), jsn.read_text()
    items = json.loads(js)
    both = (text, js)
    symbols = Counter(i["symbol"] for i in items)
    rare = [f for i in items if symbols[i["symbol"]] == 1 and (f := json_safe(i["message"], 12)) and unique_in(f, both)]
    problems = kinds_of([i["message"] for i in items if i["type"] in ("error", "fatal", "warning")], both)
    worst, n = Counter(i["path"] for i in items).most_common(1)[0]
    rating = next(ln.strip() for ln in reversed(text.splitlines()) if ln.startswith("Your code has been rated"))
    cmd = "pylint --reports=n " + " ".join(TARGETS)
    out = []
    for form, content, args in (("text", text, {"command": cmd}),
                                ("json", js, {"command": cmd + " --output-format=json"})):
        sid = f"{form}_one_off"
        out.append(make_case(SOURCE, sid, form, "bash", args, "one_off", pick("one_off", f"{SOURCE}/{sid}", "lint report"),
                             content, [fact(t, "one_off", "message of a pylint symbol reported exactly once")
                                       for t in spread(rare, 25)]))
        sid = f"{form}_errors"
        out.append(make_case(SOURCE, sid, form, "bash", args, "errors", pick("errors", f"{SOURCE}/{sid}", "lint report"),
                             content, [fact(t, "warning", "error/warning-type message; one per template")
                                       for t in problems]))
        sid = f"{form}_worst"
        q = choose(f"{SOURCE}/{sid}", ("Which file collected the most pylint messages?",
                                       "If we fix one module first, which one did the linter complain about most?"))
        out.append(make_case(SOURCE, sid, form, "bash", args, "extreme", q, content,
                             [fact(worst, "extreme", f"path with the most messages ({n})")]))
    out.append(make_case(SOURCE, "text_last", "text", "bash", {"command": cmd}, "last",
                         pick("last", f"{SOURCE}/text_last", "lint run"), text,
                         [fact(rating, "last_state", "pylint's closing score line")]))
    return out
