"""``pip inspect`` of the shared venv (pip's JSON report of installed distributions and
their metadata), with each distribution's long ``description`` dropped: it is the README
of the package and made the report 1.7 MB."""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

from ..cases import fact, make_case
from ..facts import spread
from ..questions import choose
from ._run import run

SOURCE = "pip_inspect"


def build(work: Path) -> list[dict[str, Any]]:
    report = json.loads(run([sys.executable, "-m", "pip", "inspect", "--disable-pip-version-check"]).stdout)
    for dist in report["installed"]:
        dist["metadata"].pop("description", None)
    report["installed"].sort(key=lambda d: d["metadata"]["name"].lower())
    content = json.dumps(report, indent=1)
    args = {"command": "pip inspect"}
    dists = report["installed"]

    def marker(d):  # the dist-info folder name carries name and version, once per distribution
        return Path(d["metadata_location"]).name

    out = []
    for k, d in enumerate(spread(dists[10:-10], 2)):
        name = d["metadata"]["name"]
        sid = f"version_{k}"
        q = choose(f"{SOURCE}/{sid}", (f"Which version of {name} does this report show, and where is it installed?",
                                       f"Find {name} in the report: what version is it?"))
        out.append(make_case(SOURCE, sid, "json", "bash", args, "named", q, content,
                             [fact(marker(d), "named_item", f"dist-info folder of {name}")]))
    heavy = max(dists, key=lambda d: len(d["metadata"].get("requires_dist", [])))
    n = len(heavy["metadata"]["requires_dist"])
    q = choose(f"{SOURCE}/most_deps", ("Which installed distribution declares the most requirements?",
                                       "Which package has the longest requires_dist list?"))
    out.append(make_case(SOURCE, "most_deps", "json", "bash", args, "extreme", q, content,
                         [fact(marker(heavy), "extreme", f"most requires_dist entries ({n})")]))
    return out
