"""``cProfile`` of a real program (``pip list`` over the shared venv): the command's own
output followed by the profile table, as ``python -m cProfile -s <key>`` prints it, once
sorted by internal time and once by cumulative time (where the busiest and the most
called functions are not at the top). Facts come from the saved profile through
``pstats``, not from the text."""

from __future__ import annotations

import io
import pstats
import sys
from pathlib import Path
from typing import Any

from ..cases import fact, make_case
from ..questions import choose
from ._run import run

SOURCE = "python_cprofile"
SORTS = {"tottime": "internal time", "cumulative": "cumulative time"}


def profile_text(prof: Path, program_output: str, sort: str) -> tuple[str, pstats.Stats]:
    """The program's output and the table ``python -m cProfile -s <sort>`` would print
    (directories stripped, as it does), and the stats it was printed from."""
    buf = io.StringIO()
    stats = pstats.Stats(str(prof), stream=buf).strip_dirs()
    stats.sort_stats(sort).print_stats()
    return program_output + buf.getvalue(), stats


def _label(func: tuple[str, int, str]) -> str:
    return pstats.func_std_string(func)


def build(work: Path) -> list[dict[str, Any]]:
    prof = work / "pip_list.prof"
    listing = run([sys.executable, "-m", "cProfile", "-o", str(prof), "-m", "pip", "list",
                   "--disable-pip-version-check"], cwd=work).stdout
    out = []
    for sort, said in SORTS.items():
        text, stats = profile_text(prof, listing, sort)
        rows = stats.stats  # func -> (primitive calls, total calls, tottime, cumtime, callers)
        labels = {f: _label(f) for f in rows}
        # A function's label must name its row alone (a label can be part of another's).
        unique = {f for f, lab in labels.items() if text.count(lab) == 1}
        busiest = max(unique, key=lambda f: (rows[f][2], labels[f]))
        most_called = max(unique, key=lambda f: (rows[f][1], labels[f]))
        # A function asked by name: from the middle of the call-count ranking, defined in
        # Python (a file and line), so neither extreme answers for it.
        mid = sorted((f for f in unique if f[1] > 0 and rows[f][1] >= 10), key=lambda f: (rows[f][1], labels[f]))
        named = mid[len(mid) // 2]
        asks = [
            ("busiest", "extreme", busiest, "largest internal time (tottime)",
             ("Which function spent the most time in its own code, not counting the functions it called?",
              "Where was the most time spent, excluding time inside callees?")),
            ("most_called", "extreme", most_called, "largest call count (ncalls)",
             ("Which function was called the most times?",
              "What got invoked most often during this run?")),
            ("named", "named", named, "the named function's row",
             (f"How many times was `{named[2]}` in {named[0]} called, and how long did it take?",
              f"What are the call count and timings of `{named[2]}` ({named[0]})?")),
        ]
        for scen, intent, func, note, wordings in asks:
            sid = f"pip_list_{sort}_{scen}"
            q = choose(f"{SOURCE}/{sid}", wordings)
            kind = "extreme" if intent == "extreme" else "named_item"
            out.append(make_case(SOURCE, sid, "text", "bash",
                                 {"command": f"python -m cProfile -s {sort} -m pip list"}, intent, q, text,
                                 [fact(labels[func], kind, f"{note}, from the saved profile via pstats "
                                                           f"(table sorted by {said})")]))
    return out
