"""Installed-distribution reports as ``pip show`` prints them: ``pip show -f`` (the
metadata header, then every installed file, ``__pycache__`` entries and the dist-info
included) and ``pip show -v`` (classifiers, entry points, project URLs), each over four
distributions of the shared venv separated by ``---``.

Facts come from other readers of the same installation, never from pip's text:
``importlib.metadata`` (each distribution's own ``Version`` and ``Summary``, and the
distributions whose ``Requires-Dist`` names one of them, for ``Required-by``) and
``os.stat`` of each installed file (the largest file of a distribution). A fact is kept
only where its text stands once in the output. Held out (issue 33, fifth round): no dev
source holds a per-distribution report (``pip_list`` is a one-line-per-package table,
``pip_inspect`` pip's JSON report).
"""

from __future__ import annotations

import re
import sys
from importlib import metadata
from pathlib import Path
from typing import Any

from ..cases import fact, make_case
from ..questions import choose
from ._run import run

SOURCE = "pip_show"
DISTS = ("idna", "click", "sortedcontainers", "tenacity")
OUTPUTS = {"files": ["-f"], "verbose": ["-v"]}


def _norm(name: str) -> str:
    return re.sub(r"[-_.]+", "-", name).lower()


def largest_file(dist: str) -> str:
    """The installed file of ``dist`` with the most bytes, as its RECORD names it."""
    d = metadata.distribution(dist)
    sized = [(Path(d.locate_file(f)).stat().st_size, str(f)) for f in d.files or ()
             if Path(d.locate_file(f)).is_file()]
    return max(sized)[1]


def required_by(dist: str) -> list[str]:
    """Installed distributions whose ``Requires-Dist`` names ``dist`` outside any extra
    (a requirement only an optional extra brings is no dependency of the installation)."""
    want = _norm(dist)
    out = set()
    for d in metadata.distributions():
        for req in d.requires or ():
            if "extra" in req.partition(";")[2]:
                continue
            m = re.match(r"\s*([A-Za-z0-9][A-Za-z0-9._-]*)", req)
            if m and _norm(m.group(1)) == want:
                out.add(d.metadata["Name"])
    return sorted(out)


def build(work: Path) -> list[dict[str, Any]]:
    present = [d for d in DISTS if _present(d)]
    if len(present) < 3:
        raise RuntimeError(f"needs at least three of {DISTS} installed")
    out = []
    for output, flags in OUTPUTS.items():
        cmd = [sys.executable, "-m", "pip", "show", *flags, *present]
        content = run(cmd, env={"PATH": "/usr/bin:/bin", "PIP_DISABLE_PIP_VERSION_CHECK": "1"}).stdout
        args = {"command": f"pip show {' '.join(flags)} {' '.join(present)}"}
        for dist in present:
            meta = metadata.metadata(dist)
            asked: list[tuple[str, str, tuple[str, ...], list[dict[str, str]]]] = []
            if output == "files":
                asked.append(("largest_file", "extreme",
                              (f"Which installed file of {dist} is the largest?",
                               f"What is the biggest file the {dist} distribution put on disk?"),
                              [fact(largest_file(dist), "extreme", "os.stat of each file in the RECORD",
                                    basis="independent")]))
            else:
                asked.append(("summary", "named",
                              (f"How does {dist} describe itself in one line?",
                               f"What is the one-line summary of the {dist} package?"),
                              [fact(meta["Summary"], "named_item", "importlib.metadata Summary",
                                    basis="independent")]))
            asked.append(("version", "named",
                          (f"Which version of {dist} is installed?", f"What {dist} release does this environment have?"),
                          [fact(meta["Version"], "named_item", "importlib.metadata Version", basis="independent")]))
            users = required_by(dist)
            if users:
                asked.append(("required_by", "named",
                              (f"Which installed packages depend on {dist}?",
                               f"What else in this environment requires {dist}?"),
                              [fact(u, "named_item", "importlib.metadata Requires-Dist of every distribution",
                                    basis="independent") for u in users]))
            for scen, intent, wordings, facts in asked:
                facts = [f for f in facts if content.count(f["text"]) == 1 and f["text"] not in args["command"]]
                if not facts:
                    continue
                sid = f"{output}_{dist}_{scen}"
                out.append(make_case(SOURCE, sid, "text", "bash", args, intent, choose(f"{SOURCE}/{sid}", wordings),
                                     content, facts))
    assert len(out) >= 8, f"too few pip_show cases: {len(out)}"
    return out


def _present(dist: str) -> bool:
    try:
        metadata.distribution(dist)
    except metadata.PackageNotFoundError:
        return False
    return True
