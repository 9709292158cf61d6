"""``pytest -v`` runs of test suites that real packages ship in their wheels: a passing
run (networkx's algorithm tests) and a failing one (jsonschema's tests, whose optional
test dependency and test-suite checkout are missing here, so collection errors)."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

from ..cases import fact, make_case
from ..facts import json_safe, kinds_of
from ..questions import pick
from ._run import run

SOURCE = "pytest_run"
NX_TESTS = ("test_clique.py", "test_bridges.py", "test_cycles.py", "test_dag.py", "test_matching.py",
            "test_simple_paths.py")
_SUMMARY = re.compile(r"^=+ (.*\d+ (?:passed|failed|errors?).*?) in [\d.]+s")


def _pytest(work: Path, cwd: Path, *targets: str) -> str:
    ini = work / "pytest.ini"
    ini.write_text("[pytest]\n")  # keeps any enclosing project's pytest settings out of the run
    cmd = [sys.executable, "-m", "pytest", "-v", "-rfEs", "-p", "no:cacheprovider", "-p", "no:asyncio",
           "-c", str(ini), "--rootdir", str(cwd), "--continue-on-collection-errors", *targets]
    return run(cmd, check=False, cwd=cwd).stdout


def _summary_fact(text: str) -> dict[str, str]:
    line = next(m.group(1) for ln in reversed(text.splitlines()) if (m := _SUMMARY.match(ln)))
    return fact(line, "last_state", "pytest's final summary line (counts, without the duration)")


def build(work: Path) -> list[dict[str, Any]]:
    import jsonschema
    import networkx

    out = []
    nx_dir = Path(networkx.__file__).parent / "algorithms" / "tests"
    passing = _pytest(work, nx_dir, *NX_TESTS)
    args = {"command": "python -m pytest -v " + " ".join(NX_TESTS)}
    out.append(make_case(SOURCE, "networkx_last", "text", "run_tests", args, "last",
                         pick("last", f"{SOURCE}/networkx_last", "test run"), passing, [_summary_fact(passing)]))
    js_dir = Path(jsonschema.__file__).parent
    failing = _pytest(work, js_dir.parent, "jsonschema/tests")
    args = {"command": "python -m pytest -v jsonschema/tests"}
    lines = failing.splitlines()
    problems = [ln[1:].strip() for ln in lines if ln.startswith("E ")]
    summary = [t for ln in lines if ln.startswith(("FAILED ", "ERROR ")) and (t := json_safe(ln))]
    facts = [fact(t, "error", "an 'E' line of a failure or collection error; one per template")
             for t in kinds_of(problems, (failing,))]
    facts += [fact(t, "error", "a FAILED/ERROR line of pytest's short summary") for t in dict.fromkeys(summary)]
    out.append(make_case(SOURCE, "jsonschema_errors", "text", "run_tests", args, "errors",
                         pick("errors", f"{SOURCE}/jsonschema_errors", "test run"), failing, facts))
    out.append(make_case(SOURCE, "jsonschema_last", "text", "run_tests", args, "last",
                         pick("last", f"{SOURCE}/jsonschema_last", "test run"), failing, [_summary_fact(failing)]))
    return out
