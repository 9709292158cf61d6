"""``pytest --json-report`` (the pytest-json-report plugin, pinned, in a throwaway venv)
over test modules the ``toolz`` wheel ships: a report object whose ``tests`` array holds
one object per test with ``setup``, ``call`` and ``teardown`` sub-objects (duration,
outcome), next to the environment and collectors. Asked which test was slowest (or
fastest) to run or to set up: the field is nested (``call.duration``,
``setup.duration``), the answer the ``nodeid`` holding the extreme, as pytest measured it."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from ._extremes import extreme_case
from ._run import pinned_tool, run

SOURCE = "pytest_report_json"
RUNS = (("dicttoolz_functoolz", ("test_dicttoolz.py", "test_functoolz.py")),
        ("itertoolz", ("test_itertoolz.py",)))

_QUESTIONS = {
    ("call", True): ("Which test took the longest to run?",
                     "What was the slowest test in this run (its call phase)?",
                     "Which test's call had the highest duration?"),
    ("call", False): ("Which test ran the fastest?",
                      "Which test had the shortest call duration?"),
    ("setup", True): ("Which test had the slowest setup?",
                      "Where did setup take the longest? Name the test."),
}


def _phase_duration(phase: str):
    def value(test: dict) -> float | None:
        part = test.get(phase)
        return part.get("duration") if isinstance(part, dict) else None
    return value


def build(work: Path) -> list[dict[str, Any]]:
    pytest = pinned_tool(work, "pytest-json-report==1.5.0", "pytest")
    run([str(pytest.parent / "pip"), "install", "--disable-pip-version-check", "-q", "toolz==1.0.0"], timeout=600)
    site = next((work / "venv" / "lib").glob("python3*/site-packages"))
    out = []
    for name, modules in RUNS:
        report = work / f"{name}.json"
        cmd = [str(pytest), "-q", "-p", "no:cacheprovider", "--json-report", f"--json-report-file={report}",
               "--json-report-indent=1", *(f"toolz/tests/{m}" for m in modules)]
        run(cmd, cwd=site, check=False, timeout=600)
        content = report.read_text()
        tests = json.loads(content)["tests"]
        args = {"command": " ".join(["pytest", *cmd[1:]]).replace(str(report), f"{name}.json") + f" && cat {name}.json"}
        for (phase, largest), wordings in _QUESTIONS.items():
            sid = f"{name}_{phase}_{'slowest' if largest else 'fastest'}"
            case = extreme_case(SOURCE, sid, items=tests, value=_phase_duration(phase), largest=largest,
                                name=lambda t: t["nodeid"], wordings=wordings, content=content, tool_name="bash",
                                args=args, note=f"{'largest' if largest else 'smallest'} {phase}.duration")
            if case is not None:
                out.append(case)
    return out
