"""Python's ``trace`` module run on a nightly job the capture writes: ``--count --summary
--missing`` (the per-module summary table, then each module's annotated listing: every line with
the number of times it ran, ``>>>>>>`` before lines that never did) and ``--trackcalls`` (the
calling relationships, caller ``->`` callee, grouped by file).

The job's driver calls each of ~120 one-line functions in three modules a number of times of its
own; in the middle of each module one function is never called, and some billing functions hand
their work to one stock helper each. Facts come from the capture's record of the job it wrote
(how often it calls a named function, the function it leaves out, the helper a named function
calls), never from trace's text; a fact is kept only where its text stands once in the output.
Held out (issue 33, thirteenth round): dev's coverage reports give per-file percentages and
missed line ranges, no dev source an execution-count listing or a call-relationship trace.
"""

from __future__ import annotations

import random
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ._asked import Ask, shell_cases

SOURCE = "trace_counts"
ENV = {"PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin", "LC_ALL": "C"}
MODULES = ("stock", "billing", "mailer")
VERBS = ("reserve", "release", "count", "audit", "settle", "refund", "notify", "queue", "render", "sync", "close",
         "open", "merge", "check")
NOUNS = ("slot", "batch", "ledger", "digest", "bounce", "invoice", "credit", "pallet", "receipt", "reminder",
         "shelf", "payout")
NEVER_AT = 19  # the function of each module the driver leaves out, in the middle of its file
COMMANDS = {
    # trace names a module's listing after its full path (cov/tmp.<folder>.stock.cover), hence the globs.
    "counts": "python3 -m trace --count --summary --missing -C cov nightly.py && tail -n +1 cov/*.stock.cover "
              "cov/*.billing.cover cov/*.mailer.cover",
    "calls": "python3 -m trace --trackcalls nightly.py",
}


@dataclass
class Job:
    """What the capture wrote: each module's functions and how the driver calls them."""

    functions: dict[str, list[str]] = field(default_factory=dict)  # module -> functions in file order
    runs: dict[str, int] = field(default_factory=dict)  # "module.function" -> calls by the driver
    helpers: dict[str, str] = field(default_factory=dict)  # "billing.f" -> "stock.g" it calls once per run
    never: dict[str, str] = field(default_factory=dict)  # module -> the function never called


def write_job(work: Path, rnd: random.Random) -> Job:
    job = Job()
    names = iter(rnd.sample([f"{v}_{n}" for v in VERBS for n in NOUNS], 120))
    counts = iter(rnd.sample(range(103, 998), 120))
    for mod in MODULES:
        job.functions[mod] = [next(names) for _ in range(40)]
        job.never[mod] = job.functions[mod][NEVER_AT]
    # Six stock functions (not the one never called) are helpers: each called by one billing function.
    spare = [f for f in job.functions["stock"] if f != job.never["stock"]]
    callers = [f for f in job.functions["billing"] if f != job.never["billing"]]
    for caller, helper in zip(callers[6:36:5], spare[7:37:5]):
        job.helpers[f"billing.{caller}"] = f"stock.{helper}"
    for mod, funcs in job.functions.items():
        body = ["import stock", ""] if mod == "billing" else []
        for k, fn in enumerate(funcs):
            helper = job.helpers.get(f"{mod}.{fn}")
            value = f"{helper}(x) + {k}" if helper else f"x * {k + 2}"
            body += ["", f"def {fn}(x):", f"    return {value}"]
            if fn != job.never[mod] and f"{mod}.{fn}" not in job.helpers.values():
                job.runs[f"{mod}.{fn}"] = next(counts)
        (work / f"{mod}.py").write_text("\n".join(body) + "\n")
    driver = ["import billing", "import mailer", "import stock", "", "", "def main():"]
    for qual, times in job.runs.items():
        driver += [f"    for n in range({times}):", f"        {qual}(n)"]
    (work / "nightly.py").write_text("\n".join([*driver, "", "", "main()"]) + "\n")
    return job


def _asks(job: Job) -> list[Ask]:
    note = "the capture's record of the job it wrote"
    asks = []
    for mod in MODULES:
        asks.append(Ask(f"never_{mod}", "named", "named_item", (job.never[mod],), note,
                        (f"Which function in {mod}.py never ran?", f"What in {mod} did the nightly job not reach?"),
                        ("counts",)))
    busiest = max(job.runs, key=job.runs.get)
    asks.append(Ask("busiest", "extreme", "extreme", (busiest.split(".")[1],), note,
                    ("Which function ran the most times?", "What was the hottest function in the job?"), ("counts",)))
    plain = [q for q in job.runs if q not in job.helpers]
    for n, qual in enumerate(plain[9:109:12]):
        asks.append(Ask(f"runs_{qual.replace('.', '_')}", "named", "named_item", (str(job.runs[qual]),), note,
                        (f"How many times did {qual} run?", f"How often was {qual} called during the job?"),
                        ("counts",)))
    for n, (caller, helper) in enumerate(job.helpers.items()):
        if n % 2 == 0:
            asks.append(Ask(f"helper_{caller.split('.')[1]}", "named", "named_item", (helper,), note,
                            (f"Which stock function does {caller} call?",
                             f"What does {caller} hand its work to in stock?"), ("calls",)))
    return asks


def build(work: Path) -> list[dict[str, Any]]:
    job = write_job(work, random.Random(1303))
    return shell_cases(SOURCE, COMMANDS, _asks(job), cwd=work, env=ENV)
