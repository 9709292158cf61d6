"""Line-coverage reports as coverage.py 7.6.1 writes them: ``coverage report -m`` (an
aligned table, one row per file with statements, misses, percentage and the missed line
ranges, then a ``TOTAL`` row) and ``coverage json`` (per file: executed, missing and
excluded line arrays, a summary object, and per-function and per-class sub-reports),
after a small driver program ran under ``coverage run --source`` over copies of the
shared venv's ``sortedcontainers`` and ``tenacity``.

The driver uses sorted lists and dicts a little (never sorted sets) and retries a few
failing calls with tenacity's stop and wait strategies, so most files are partly covered,
a few not imported at all and a few fully. Facts come from another reader of the same
data file, never from the reports: coverage's own ``Coverage.analysis2`` API (each file's
statements and missed lines) run in the same throwaway venv; the answer is the file's path
as the report names it. A fact is kept only where its text stands once in the output. Held
out (issue 33, sixth round): no dev source holds coverage reports.
"""

from __future__ import annotations

import json
import shutil
from importlib import metadata
from pathlib import Path
from typing import Any

from ..cases import fact, make_case
from ..questions import choose
from ._run import pinned_tool, run

SOURCE = "coverage_report"
RELEASE = "coverage==7.6.1"
PACKAGES = ("sortedcontainers", "tenacity")
DRIVER = """\
from sortedcontainers import SortedDict, SortedList
import tenacity

sl = SortedList(range(0, 400, 7))
sl.add(5)
sl.discard(14)
print(sl.bisect_left(100), sl[3], sl.index(21))
sd = SortedDict({"b": 2, "a": 1})
sd["c"] = 3
print(list(sd.keys()), sd.peekitem(0))

calls = {"n": 0}


@tenacity.retry(stop=tenacity.stop_after_attempt(4), wait=tenacity.wait_fixed(0), reraise=True)
def flaky():
    calls["n"] += 1
    if calls["n"] < 3:
        raise ConnectionError("not yet")
    return calls["n"]


print(flaky())
"""
ANALYSE = """\
import json, os, sys
import coverage
cov = coverage.Coverage(data_file=sys.argv[1])
cov.load()
out = {}
for path in cov.get_data().measured_files():
    _, statements, _, missing, _ = cov.analysis2(path)
    out[os.path.relpath(path)] = {"statements": sorted(statements), "missing": sorted(missing)}
json.dump(out, sys.stdout)
"""


NAMED_MISSING = ("tenacity/nap.py", "tenacity/before.py", "tenacity/stop.py", "sortedcontainers/sortedset.py")


def ranges(stat: dict[str, list[int]]) -> str:
    """Missed lines as ``a-b, c`` runs: a run is missed statements with no executed statement
    between them (lines that are no statement do not break it)."""
    miss, out, run_ = set(stat["missing"]), [], []
    for line in stat["statements"]:
        if line in miss:
            run_.append(line)
        elif run_:
            out.append(run_)
            run_ = []
    if run_:
        out.append(run_)
    return ", ".join(f"{r[0]}-{r[-1]}" if len(r) > 1 else f"{r[0]}" for r in out)


def _unique(values, value) -> bool:
    return sum(v == value for v in values) == 1


def build(work: Path) -> list[dict[str, Any]]:
    tool = pinned_tool(work, RELEASE, "coverage")
    src = work / "src"
    for pkg in PACKAGES:
        dist = metadata.distribution(pkg)
        shutil.copytree(Path(dist.locate_file(pkg)), src / pkg, ignore=shutil.ignore_patterns("__pycache__"))
    (work / "driver.py").write_text(DRIVER)
    env = {"PATH": "/usr/bin:/bin", "PYTHONPATH": "src", "LC_ALL": "C", "COVERAGE_FILE": ".coverage"}
    run([str(tool), "run", f"--source={','.join(PACKAGES)}", "driver.py"], cwd=work, env=env)
    (work / "analyse.py").write_text(ANALYSE)
    stats = json.loads(run([str(tool.parent / "python"), "analyse.py", ".coverage"], cwd=work, env=env).stdout)
    text = run([str(tool), "report", "-m"], cwd=work, env=env).stdout
    run([str(tool), "json", "-o", "coverage.json"], cwd=work, env=env)
    js = (work / "coverage.json").read_text()
    stats = {f: {"statements": len(s["statements"]), "missing": len(s["missing"]), "ranges": ranges(s)}
             for f, s in stats.items()}
    pct = {f: (s["statements"] - s["missing"]) / s["statements"] for f, s in stats.items() if s["statements"]}
    most_missed = max(stats, key=lambda f: stats[f]["missing"])
    full = sorted(f for f, s in stats.items() if s["statements"] and not s["missing"])
    never = sorted(f for f, s in stats.items() if s["statements"] and s["missing"] == s["statements"])
    ran = {f: p for f, p in pct.items() if 0 < p < 1}
    worst_run = min(ran, key=ran.get)
    asked = []
    if _unique(ran.values(), ran[worst_run]):
        asked.append(("lowest_run", "extreme", "extreme", [worst_run],
                      "coverage analysis2: executed / statements, lowest among files that ran at all",
                      ("Of the files that ran at all, which has the lowest coverage?",
                       "Which imported module is tested the least, by percentage?")))
    if _unique([s["missing"] for s in stats.values()], stats[most_missed]["missing"]):
        asked.append(("most_missed", "extreme", "extreme", [most_missed], "coverage analysis2: most missed statements",
                      ("Which file has the most statements never run?", "Where are the most uncovered lines?")))
    if full:
        asked.append(("fully_covered", "named", "named_item", full, "coverage analysis2: no missed statement",
                      ("Which files are fully covered?", "Which modules have every statement executed?")))
    if never:
        asked.append(("never_run", "named", "named_item", never, "coverage analysis2: every statement missed",
                      ("Which files were never executed at all?", "Which modules did the run not touch at all?")))
    for f in NAMED_MISSING:
        path = next((p for p in stats if p.endswith(f)), None)
        if path and stats[path]["missing"]:
            asked.append((f"missing_{f.split('/')[-1].removesuffix('.py')}", "named", "named_item",
                          [stats[path]["ranges"]],
                          "coverage analysis2: missed statements, runs of consecutive statements joined",
                          (f"Which lines of {path} were never run?", f"What does the report list as missing in {path}?")))
    out = []
    for form, content, command in (("text", text, "coverage report -m"),
                                   ("json", js, "coverage json -o coverage.json && cat coverage.json")):
        args = {"command": command}
        for scen, intent, kind, answers, note, wordings in asked:
            facts = [fact(a, kind, note, basis="independent") for a in answers
                     if content.count(a) == 1 and a not in wordings[0] + wordings[1]]
            if len(facts) != len(answers):
                continue
            sid = f"{form}_{scen}"
            out.append(make_case(SOURCE, sid, form, "bash", args, intent, choose(f"{SOURCE}/{sid}", wordings),
                                 content, facts))
    assert len(out) >= 10, f"too few {SOURCE} cases: {len(out)}"
    return out
