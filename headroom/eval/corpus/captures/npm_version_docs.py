"""``npm view <package>@<range> --json`` against the configured registry: an array with
one full version document per matching release (16-21 of them, 160-380 kB), each with
``dist``, ``repository``, ``maintainers``/``contributors``, dependency maps, and the
package's whole ``time`` map and ``versions`` list repeated in every item, as npm prints
them. Asked which release declares the most or fewest dependencies, dev dependencies,
keywords, published files or scripts (the length of that field), as someone choosing a version
would; the answer is the release's ``_id`` (``name@version``). Only extremes held by one
release become cases. Chosen over ``npm view <package> --json`` (the ``npm_view``
source), which is one document, not a listing."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from ._extremes import extreme_case
from ._run import run

SOURCE = "npm_version_docs"
RANGES = (("express", ">=4.19.0"), ("body-parser", ">=1.19.0"), ("webpack-dev-server", ">=5.0.0"))
_ENV = {**os.environ, "NO_COLOR": "1", "npm_config_loglevel": "error", "npm_config_update_notifier": "false"}

# (field, largest): wordings; {p} is the package.
_QUESTIONS = {
    ("dependencies", True): ("Which {p} release has the most dependencies?",
                             "Among these {p} versions, which one declares the largest number of dependencies?"),
    ("dependencies", False): ("Which {p} release has the fewest dependencies?",
                              "Which of these {p} versions depends on the least number of packages?"),
    ("devDependencies", True): ("Which {p} version has the most dev dependencies?",
                                "Which release of {p} lists the highest number of devDependencies?"),
    ("devDependencies", False): ("Which {p} version has the fewest dev dependencies?",),
    ("keywords", True): ("Which {p} release has the most keywords?",),
    ("files", True): ("Which {p} version lists the most files to publish?",),
    ("scripts", True): ("Which {p} release defines the most npm scripts?",),
    ("scripts", False): ("Which {p} release defines the fewest scripts?",
                         "Which version of {p} has the smallest number of scripts in its package.json?"),
}


def _count(field: str):
    def value(doc: dict) -> int | None:
        v = doc.get(field)
        return len(v) if isinstance(v, (dict, list)) else None
    return value


def build(work: Path) -> list[dict[str, Any]]:
    out = []
    for pkg, rng in RANGES:
        spec = f"{pkg}@{rng}"
        content = run(["npm", "view", spec, "--json", "--color=false"], cwd=work, env=_ENV, timeout=120).stdout
        docs = json.loads(content)
        args = {"command": f"npm view '{spec}' --json"}
        for (field, largest), wordings in _QUESTIONS.items():
            sid = f"{pkg}_{field}_{'most' if largest else 'fewest'}"
            case = extreme_case(SOURCE, sid, items=docs, value=_count(field), largest=largest, name=lambda d: d["_id"],
                                wordings=tuple(w.format(p=pkg) for w in wordings), content=content, tool_name="bash",
                                args=args, note=f"{'most' if largest else 'fewest'} {field} entries")
            if case is not None:
                out.append(case)
    return out
