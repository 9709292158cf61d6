"""A batch job failing in many places at once, as Python 3.11 reports an exception group: ``python
sync_catalog.py`` (the uncaught ``ExceptionGroup`` drawn as nested boxes: one box a region's
group, inside it one numbered box a failed supplier with its traceback, a few with a chained
cause; ~700 lines, ~38 kB) and ``python sync_catalog.py --log`` (the same failures caught and
logged one by one with ``logging``'s ``exc_info``: a flat run of plain tracebacks; ~630 lines,
~28 kB), of a catalogue sync the capture writes: ten regions of eleven suppliers pulled concurrently, each gathering
its suppliers' pulls and raising the failures as one group.

Facts come from the capture's own record of the script it wrote (which supplier function fails,
in which region, with which exception type and message), never from the traceback text; a fact
is kept only where it stands once. Every supplier has a function of its own and a message of its
own; most fail with ``ValueError``, ``LookupError`` or ``ConnectionError``, and in the middle a few
with a type no other has. The script runs from a fixed folder, ``/tmp/catalog-sync`` (the
traceback prints real paths), removed afterwards. Held out (issue 33, twenty-fourth round): dev holds logs, thread dumps
and backtraces, test reports and sanitizer reports, but no Python exception group.
"""

from __future__ import annotations

import json
import random
import shutil
import sys
from pathlib import Path
from typing import Any

from ._asked import Ask, shell_cases

SOURCE = "exception_groups"
REGIONS = ("nordic", "iberia", "benelux", "alpine", "baltic", "adriatic", "balkan", "celtic", "danube", "aegean")
FIRST = ("amber", "basalt", "copper", "drift", "ember", "flint", "granite", "harbor", "ivory", "juniper", "kiln",
         "lumen", "marble", "nickel", "ochre", "pewter", "quarry", "rustic", "slate", "timber")
SECOND = ("goods", "supply", "trading", "works", "depot", "imports", "wholesale", "mills")
COMMON = ("ValueError", "LookupError", "ConnectionError")
ODD = ("PermissionError", "ZeroDivisionError", "OverflowError", "NotImplementedError", "FileNotFoundError")
JOB = Path("/tmp/catalog-sync")
ENV = {"PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8", "PYTHONHASHSEED": "0"}

SCRIPT = '''"""Catalogue sync: every region pulls its suppliers' price lists concurrently."""
import asyncio
import builtins
import json
import logging
import sys

PLAN = json.loads(open("plan.json").read())


def check(sup):
    if sup["cause"]:
        try:
            raise ConnectionResetError(sup["cause"])
        except ConnectionResetError as exc:
            raise getattr(builtins, sup["type"])(sup["message"]) from exc
    if sup["type"]:
        raise getattr(builtins, sup["type"])(sup["message"])
    return sup["rows"]

{functions}

async def sync_region(region):
    pulls = [globals()["pull_" + s["name"]](s) for s in PLAN[region]]
    results = await asyncio.gather(*pulls, return_exceptions=True)
    errors = [r for r in results if isinstance(r, Exception)]
    if errors:
        raise ExceptionGroup(f"region {{region}}: {{len(errors)}} of {{len(pulls)}} suppliers failed", errors)
    return sum(results)


async def main():
    results = await asyncio.gather(*(sync_region(r) for r in PLAN), return_exceptions=True)
    groups = [r for r in results if isinstance(r, BaseException)]
    if groups:
        raise ExceptionGroup(f"catalogue sync failed in {{len(groups)}} regions", groups)


def leaves(group):
    for exc in group.exceptions:
        yield from leaves(exc) if isinstance(exc, BaseExceptionGroup) else [exc]


if __name__ == "__main__":
    if "--log" in sys.argv:
        logging.basicConfig(format="%(levelname)s %(name)s: %(message)s")
        log = logging.getLogger("sync")
        try:
            asyncio.run(main())
        except ExceptionGroup as eg:
            found = list(leaves(eg))
            for n, exc in enumerate(found, 1):
                log.error("pull %d of %d failed", n, len(found), exc_info=exc)
            sys.exit(1)
    else:
        asyncio.run(main())
'''


def plan(rnd: random.Random) -> dict[str, list[dict[str, Any]]]:
    """The capture's record: each region's suppliers, and how each one fails (if it does)."""
    names = rnd.sample([f"{a}_{b}" for a in FIRST for b in SECOND], 110)
    out: dict[str, list[dict[str, Any]]] = {}
    for i, region in enumerate(REGIONS):
        sups = []
        for name in names[i * 11:(i + 1) * 11]:
            fails = rnd.random() < 0.75
            sku = f"{rnd.choice('ABCDEFGHKMNPRSTVWXZ')}{rnd.choice('ABCDEFGHKMNPRSTVWXZ')}-{rnd.randint(1000, 9999)}"
            sups.append({"name": name, "rows": rnd.randint(40, 900), "cause": "",
                         "type": rnd.choice(COMMON) if fails else "",
                         "message": f"price list row for sku {sku} rejected" if fails else ""})
        out[region] = sups
    middle = [s for r in REGIONS[3:7] for s in out[r] if s["type"]]
    for sup, kind in zip(rnd.sample(middle, len(ODD)), ODD, strict=True):
        sup["type"] = kind
    for sup in rnd.sample([s for s in middle if s["type"] in COMMON], 4):
        sup["type"], sup["cause"] = "RuntimeError", f"peer reset while reading {sup['name']}.csv"
    most = max(REGIONS, key=lambda r: sum(1 for s in out[r] if s["type"]))
    assert sorted(sum(1 for s in out[r] if s["type"]) for r in REGIONS)[-2] < \
        sum(1 for s in out[most] if s["type"]), "the busiest region must stand alone"
    return out


def script(p: dict[str, list[dict[str, Any]]]) -> str:
    functions = "\n".join(f"async def pull_{s['name']}(sup):\n    await asyncio.sleep(0)\n    return check(sup)\n\n"
                          for r in p for s in p[r])
    return SCRIPT.format(functions=functions)


def _asks(p: dict[str, list[dict[str, Any]]], rnd: random.Random) -> list[Ask]:
    note = "the capture's record of the script it wrote: which supplier fails, where and how"
    failed = [s for r in REGIONS for s in p[r] if s["type"]]
    asks = []
    for kind in ODD:
        sup = next(s for s in failed if s["type"] == kind)
        asks.append(Ask(f"type_{kind}", "named", "named_item", (f"pull_{sup['name']}",), note,
                        (f"Which supplier pull raised {'an' if kind[0] in 'AEIOU' else 'a'} {kind}?", f"What function failed with {kind}?")))
    plain = [s for s in failed[len(failed) // 5: 4 * len(failed) // 5] if s["type"] in COMMON]
    for sup in rnd.sample(plain, 3):
        asks.append(Ask(f"message_{sup['name']}", "named", "named_item", (f"pull_{sup['name']}",), note,
                        (f"Which function raised '{sup['message']}'?", f"What pull failed with: {sup['message']}?")))
    caused = [s for s in failed if s["cause"]]
    for sup in rnd.sample(caused, 2):
        asks.append(Ask(f"cause_{sup['name']}", "named", "named_item", (sup["cause"],), note,
                        (f"What underlying error caused pull_{sup['name']} to fail?",
                         f"What was the direct cause of the failure in pull_{sup['name']}?")))
    counts = {r: sum(1 for s in p[r] if s["type"]) for r in REGIONS}
    most = max(counts, key=counts.get)
    asks.append(Ask("most", "extreme", "extreme", (most,), note,
                    ("Which region had the most failed suppliers?", "What region's group holds the most failures?")))
    return asks


def build(work: Path) -> list[dict[str, Any]]:
    rnd = random.Random(2402)
    p = plan(rnd)
    # a fixed folder, so the traceback's paths are the same on every build (not the temporary one)
    job = JOB
    shutil.rmtree(job, ignore_errors=True)
    job.mkdir()
    (job / "plan.json").write_text(json.dumps(p, indent=1))
    (job / "sync_catalog.py").write_text(script(p))
    py = sys.executable
    commands = {"group": f"{py} sync_catalog.py 2>&1", "logged": f"{py} sync_catalog.py --log 2>&1"}
    cases = shell_cases(SOURCE, commands, _asks(p, rnd), cwd=job, env=ENV, least=12, check=False)
    for c in cases:  # the agent typed python, not the build's interpreter path
        c["tool_arguments"]["command"] = c["tool_arguments"]["command"].replace(py, "python").replace(" 2>&1", "")
    shutil.rmtree(job)
    return cases
