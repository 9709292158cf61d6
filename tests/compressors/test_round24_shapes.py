"""Round 24's misses, read by class (issue 33, twentieth session), on the output of a real
Python run of a script this test writes; the facts are the test's own record of it.

- A line of a stack trace that the question names (the exception it asks about) brings its
  trace whole: the frames above the exception say which function raised it, and where every
  failure logs a trace of the same length, the named one must outrank the others.
"""

from __future__ import annotations

import random
import subprocess
import sys

from .tool_rounds import tool_round

_KINDS = ["ValueError", "KeyError", "LookupError", "RuntimeError", "TimeoutError", "ConnectionError"]
_ODD = ["PermissionError", "OverflowError", "IsADirectoryError"]


def _logged_failures(tmp_path) -> tuple[str, dict[str, str]]:
    """The log of a batch job the test writes: ninety jobs, each a function of its own that
    fails, logged with its traceback; three raise an exception type no other does. Returns
    the output and each odd type -> the function that raised it."""
    rng = random.Random(24)
    names = [f"load_{a}_{b}" for a in ("north", "south", "east", "west", "inner", "outer")
             for b in ("depot", "yard", "dock", "silo", "shed", "pier", "bay", "barn", "mill", "lot",
                       "pen", "quay", "rack", "vault", "wharf")]
    rng.shuffle(names)
    odd = dict(zip(_ODD, rng.sample(range(20, 70), len(_ODD)), strict=True))
    raised: dict[str, str] = {}
    lines = ["import logging, sys", "logging.basicConfig(stream=sys.stdout, format='%(levelname)s %(name)s: %(message)s')",
             "log = logging.getLogger('batch')", "def check(kind, message):", "    raise kind(message)"]
    calls = []
    for k, fn in enumerate(names):
        kind = next((t for t, at in odd.items() if at == k), rng.choice(_KINDS))
        if kind in _ODD:
            raised[kind] = fn
        lines += [f"def {fn}():", f"    return check({kind}, 'row {rng.randrange(1000, 9999)} refused')"]
        calls.append(fn)
    lines += [f"for n, job in enumerate([{', '.join(calls)}], 1):", "    try:", "        job()",
              "    except Exception:", "        log.exception('job %d of %d failed', n, 90)"]
    script = tmp_path / "batch.py"
    script.write_text("\n".join(lines) + "\n")
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, check=True).stdout
    return out, raised


def test_a_named_exception_brings_its_trace(tmp_path):
    text, raised = _logged_failures(tmp_path)
    assert text.count("Traceback (most recent call last):") == 90
    for kind, fn in raised.items():
        for question in (f"What function failed with {kind}?", f"Which job raised a {kind}?"):
            out = tool_round("python batch.py", text, question)
            assert len(out) < 0.7 * len(text)
            lines = out.splitlines()
            at = next(k for k, ln in enumerate(lines) if ln.startswith(f"{kind}:"))
            assert any(f"in {fn}" in ln for ln in lines[max(0, at - 8):at]), question
