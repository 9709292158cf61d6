"""A C compiler's warnings: ``gcc -Wall -Wextra -Wshadow -Wconversion -fsyntax-only``
over the C sources of two real sdists (psutil's Linux extension, simplejson's speedups)
against this interpreter's headers, as gcc's text diagnostics and as its JSON
diagnostics (``-fdiagnostics-format=json``, one array per translation unit, joined)."""

from __future__ import annotations

import json
import os
import re
import sys
import sysconfig
import tarfile
from collections import Counter
from pathlib import Path
from typing import Any

from ..cases import fact, make_case
from ..facts import json_safe, kinds_of, one_offs
from ..questions import choose, pick
from ._run import run

SOURCE = "gcc_warnings"
SDISTS = ("psutil==6.1.0", "simplejson==3.19.3")
WARNINGS = ("-Wall", "-Wextra", "-Wshadow", "-Wconversion")
_DIAG = re.compile(r"^(?P<file>[^:\s]+\.[ch]):\d+:\d+: (?P<kind>warning|error): (?P<msg>.*?)(?: \[-W[\w=-]+\])?$")


def _sources(work: Path) -> tuple[Path, list[str], list[str]]:
    """The unpacked sdists, the translation units (relative to ``work``) and the defines."""
    run([sys.executable, "-m", "pip", "download", "--no-deps", "--no-binary", ":all:", "-d", str(work), *SDISTS],
        timeout=600)
    for sdist in work.glob("*.tar.gz"):
        with tarfile.open(sdist) as tar:
            tar.extractall(work, filter="data")
    psutil = next(p for p in work.glob("psutil-*") if p.is_dir()).name
    units = [f"{psutil}/psutil/{n}" for n in ("_psutil_common.c", "_psutil_linux.c", "_psutil_posix.c")]
    units += sorted(str(p.relative_to(work)) for p in (work / psutil / "psutil" / "arch" / "linux").glob("*.c"))
    units.append(f"{next(p for p in work.glob('simplejson-*') if p.is_dir()).name}/simplejson/_speedups.c")
    # What psutil's setup.py defines on Linux; without them its headers take other branches.
    return work, units, ["-DPSUTIL_LINUX=1", "-DPSUTIL_VERSION=610", f"-I{work / psutil}"]


def build(work: Path) -> list[dict[str, Any]]:
    work, units, defines = _sources(work)
    gcc = ["gcc", *WARNINGS, "-fsyntax-only", f"-I{sysconfig.get_paths()['include']}", *defines]
    env = {**os.environ, "LC_ALL": "C"}  # plain ASCII quotes in the messages
    text = run([*gcc, *units], check=False, cwd=work, env=env).stderr.replace(str(work) + "/", "")
    diags: list[Any] = []
    for unit in units:  # gcc writes one JSON array per line (per translation unit)
        err = run([*gcc, "-fdiagnostics-format=json", unit], check=False, cwd=work, env=env).stderr
        diags += [d for ln in err.split("\n") if ln.strip() for d in json.loads(ln)]
    js = json.dumps(diags).replace(str(work) + "/", "")
    both = (text, js)
    found = [m for ln in text.splitlines() if (m := _DIAG.match(ln))]
    msgs = [m["msg"] for m in found]
    worst, n = Counter(m["file"] for m in found).most_common(1)[0]
    cmd = "gcc " + " ".join(WARNINGS) + " -fsyntax-only " + " ".join(units)
    facts_by_intent = {
        "one_off": [fact(t, "one_off", "warning message whose template occurs once") for t in one_offs(msgs, both)],
        "errors": [fact(t, "warning", "gcc warning; one per template") for t in kinds_of(msgs, both)],
    }
    out = []
    for form, content, args in (("text", text, {"command": cmd}),
                                ("json", js, {"command": cmd + " -fdiagnostics-format=json"})):
        for intent, facts in facts_by_intent.items():
            sid = f"{form}_{intent}"
            out.append(make_case(SOURCE, sid, form, "bash", args, intent,
                                 pick(intent, f"{SOURCE}/{sid}", "compiler output"), content, facts))
        sid = f"{form}_worst"
        q = choose(f"{SOURCE}/{sid}", ("Which source file produced the most compiler warnings?",
                                       "Where are the warnings concentrated: which C file has the most?"))
        if json_safe(worst) == worst:
            out.append(make_case(SOURCE, sid, form, "bash", args, "extreme", q, content,
                                 [fact(worst, "extreme", f"file with the most warnings ({n})")]))
    return out
