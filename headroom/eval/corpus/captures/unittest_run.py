"""``python -m unittest -v`` of CPython's own shipped test modules (a test framework other
than pytest): a passing run with skips (csv, shlex, textwrap, difflib) and a failing one
(sysconfig, site, posix, locale, ...: run from inside a virtual environment, two of
test_sysconfig's venv-scheme tests fail for real)."""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any

from ..cases import fact, make_case
from ..facts import json_safe, kinds_of, spread
from ..questions import choose, pick
from ._run import run

SOURCE = "unittest_run"
PASSING = ("test.test_csv", "test.test_shlex", "test.test_textwrap", "test.test_difflib")
FAILING = ("test.test_sysconfig", "test.test_site", "test.test_getpass", "test.test_posix", "test.test_locale",
           "test.test_gettext", "test.test_mimetypes")
_SKIP = re.compile(r" \.\.\. skipped ")
_OUTCOME = re.compile(r"^(?:OK|FAILED)(?: \(.*\))?$")


def _unittest(work: Path, modules: tuple[str, ...]) -> str:
    # unittest writes its verbose report to stderr; the working directory is a scratch one.
    return run([sys.executable, "-m", "unittest", "-v", *modules], check=False, cwd=work, timeout=600).stderr


def _outcome(text: str) -> dict[str, str]:
    line = next(ln for ln in reversed(text.splitlines()) if _OUTCOME.match(ln))
    return fact(line, "last_state", "unittest's closing OK/FAILED line with its counts")


def _failures(text: str) -> list[str]:
    """The FAIL/ERROR headers and, per template, the exception line each traceback ends with."""
    blocks = text.split("=" * 70 + "\n")[1:]
    heads = [b.splitlines()[0] for b in blocks if b.startswith(("FAIL: ", "ERROR: "))]
    last_lines = [next(ln for ln in reversed(b.split("-" * 70)[1].splitlines()) if ln.strip()) for b in blocks
                  if b.startswith(("FAIL: ", "ERROR: ")) and "-" * 70 in b]
    return [t for h in heads if (t := json_safe(h))] + kinds_of(last_lines, (text,))


def build(work: Path) -> list[dict[str, Any]]:
    passing, failing = _unittest(work, PASSING), _unittest(work, FAILING)
    out = []
    for name, text, modules in (("passing", passing, PASSING), ("failing", failing, FAILING)):
        args = {"command": "python -m unittest -v " + " ".join(modules)}
        out.append(make_case(SOURCE, f"{name}_last", "text", "run_tests", args, "last",
                             pick("last", f"{SOURCE}/{name}_last", "test run"), text, [_outcome(text)]))
        skips = [t for ln in text.splitlines() if _SKIP.search(ln) and (t := json_safe(ln))
                 and text.count(t) == 1]
        if skips:
            q = choose(f"{SOURCE}/{name}_skipped", ("Which tests did not run, and why?",
                                                     "List the tests the runner left out, with the reason given."))
            out.append(make_case(SOURCE, f"{name}_skipped", "text", "run_tests", args, "one_off", q, text,
                                 [fact(t, "one_off", "a test reported as skipped, with its reason")
                                  for t in spread(skips, 20)]))
    out.append(make_case(SOURCE, "failing_errors", "text", "run_tests",
                         {"command": "python -m unittest -v " + " ".join(FAILING)}, "errors",
                         pick("errors", f"{SOURCE}/failing_errors", "test run"), failing,
                         [fact(t, "error", "a FAIL/ERROR header or the exception a traceback ends with")
                          for t in _failures(failing)]))
    return out
