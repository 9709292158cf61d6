"""``mypy`` (pinned, in a throwaway venv) over real installed packages' code
(python-dateutil and idna from the shared venv, copied out of site-packages), run twice: the default text report
(``--strict``; ``path:line: error: message  [code]``, ``note:`` lines, the closing "Found N errors")
and ``-O json`` (one JSON object per diagnostic, joined into one array). A type checker
beside the linters: no column, a severity word and a trailing error code."""

from __future__ import annotations

import json
import shutil
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from ..cases import fact, make_case
from ..facts import json_safe, kinds_of, spread, unique_in
from ..questions import choose, pick
from ._run import pinned_tool, run

SOURCE = "mypy_report"
RELEASE = "mypy==1.13.0"
TARGETS = ("dateutil", "idna")


def _check(mypy: Path, src: Path, work: Path, *extra: str) -> str:
    # A fresh cache per run (no results reused from the other run). The packages are
    # copied out of site-packages first: checked in place, site-packages' own
    # typing_extensions.py shadows the library module and mypy refuses to start.
    args = [str(mypy), "--strict", "--cache-dir", str(work / f"cache{len(extra)}"), "--python-executable", sys.executable,
            *extra, *TARGETS]
    return run(args, check=False, cwd=src, timeout=900).stdout


def build(work: Path) -> list[dict[str, Any]]:
    import idna  # locates the shared venv's site-packages (dateutil sits beside it)

    site = Path(idna.__file__).parents[1]
    src = work / "src"
    for t in TARGETS:
        shutil.copytree(site / t, src / t, ignore=shutil.ignore_patterns("__pycache__"))
    mypy = pinned_tool(work, RELEASE, "mypy")
    text = _check(mypy, src, work)
    items = [json.loads(ln) for ln in _check(mypy, src, work, "-O", "json").splitlines() if ln.startswith("{")]
    js = json.dumps(items, indent=1, ensure_ascii=False)
    both = (text, js)
    errors = [i for i in items if i["severity"] == "error"]
    codes = Counter(i["code"] for i in errors)
    rare = [f for i in errors if codes[i["code"]] == 1 and (f := json_safe(i["message"], 12)) and unique_in(f, both)]
    problems = kinds_of([i["message"] for i in errors], both)
    worst, n = Counter(i["file"] for i in errors).most_common(1)[0]
    summary = next(ln.strip() for ln in reversed(text.splitlines()) if ln.startswith("Found "))
    cmd = "mypy --strict " + " ".join(TARGETS)
    out = []
    for form, content, args in (("text", text, {"command": cmd}), ("json", js, {"command": cmd + " -O json"})):
        sid = f"{form}_one_off"
        out.append(make_case(SOURCE, sid, form, "bash", args, "one_off", pick("one_off", f"{SOURCE}/{sid}", "type check"),
                             content, [fact(t, "one_off", "message of a mypy error code reported exactly once")
                                       for t in spread(rare, 25)]))
        sid = f"{form}_errors"
        out.append(make_case(SOURCE, sid, form, "bash", args, "errors", pick("errors", f"{SOURCE}/{sid}", "type check"),
                             content, [fact(t, "error", "mypy error; one per template") for t in problems]))
        sid = f"{form}_worst"
        q = choose(f"{SOURCE}/{sid}", ("Which module has the most type errors?",
                                       "Where should the typing clean-up start: which file did mypy flag most?"))
        out.append(make_case(SOURCE, sid, form, "bash", args, "extreme", q, content,
                             [fact(worst, "extreme", f"file with the most errors ({n})")]))
    out.append(make_case(SOURCE, "text_last", "text", "bash", {"command": cmd}, "last",
                         pick("last", f"{SOURCE}/text_last", "type check"), text,
                         [fact(summary, "last_state", "mypy's closing summary line")]))
    return out
