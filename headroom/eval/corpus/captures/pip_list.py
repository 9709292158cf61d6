"""``pip list`` of the shared venv, as its column text and as ``--format json``."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from ..cases import fact, make_case
from ..facts import spread
from ..questions import choose
from ._run import run

SOURCE = "pip_list"


def build(work: Path) -> list[dict[str, Any]]:
    pip = [sys.executable, "-m", "pip", "list", "--disable-pip-version-check"]
    text, js = run(pip).stdout, run([*pip, "--format", "json"]).stdout
    rows = json.loads(js)
    # Lookups need an answer that names one row: a version string found once in each form.
    unique = [r for r in rows if text.count(r["version"]) == 1 and js.count(f'"{r["version"]}"') == 1
              and len(r["version"]) >= 4]
    out = []
    for k, r in enumerate(spread(unique[len(unique) // 4:], 2)):
        for form, content in (("text", text), ("json", js)):
            sid = f"version_{k}_{form}"
            q = choose(f"{SOURCE}/{sid}", (f"Which version of {r['name']} is installed in this environment?",
                                           f"What release of the {r['name']} distribution do we have?"))
            args = {"command": "pip list" + (" --format json" if form == "json" else "")}
            out.append(make_case(SOURCE, sid, form, "bash", args, "named", q, content,
                                 [fact(r["version"], "named_item", f"version column of {r['name']}")]))
    return out
