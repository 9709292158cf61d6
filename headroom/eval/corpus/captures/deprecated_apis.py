"""A JDK deprecation scan as ``jdeprscan`` prints it: ``jdeprscan --release 17 shop.jar`` (a
``Jar file`` heading, then one line a use: ``class shop/billing/Ledger uses deprecated method
java/lang/Integer::<init>(I)V (forRemoval=true)``; ~170 lines, ~15 kB) and ``jdeprscan --release
17 --for-removal shop.jar`` (only the APIs marked for removal; ~55 lines, ~5 kB), of a jar the capture
writes and compiles (``javac --release 17``): ~120 classes in eight packages, each calling one or
two of some twenty deprecated JDK APIs (boxed-type constructors, ``Date`` getters,
``Observable``, ``Thread`` and security-manager methods) drawn by seed.

In the middle, five classes (among the jar's sorted classes) each call a deprecated API no other class calls. Facts come from the
capture's own record of the sources it wrote (which class calls which API, and whether that API
is marked for removal), never from jdeprscan's text; a fact is kept only where it stands once.
Held out (issue 33, twentieth round): dev holds ``javap`` class dumps and compilers' warnings by
file and line, but no scan of compiled classes for deprecated API uses.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from ._asked import Ask, shell_cases
from ._run import run

SOURCE = "deprecated_apis"
PACKAGES = ("billing", "catalog", "fulfil", "ledger", "payouts", "pricing", "returns", "stock")
NOUNS = ("Invoice", "Batch", "Quote", "Voucher", "Rebate", "Slip", "Credit", "Tariff", "Margin", "Deposit", "Charge",
         "Grant", "Hold", "Lot", "Rate", "Refund")
ROLES = ("Builder", "Checker", "Exporter", "Importer", "Merger", "Planner", "Router", "Scorer")
# Common deprecated calls: (expression, the API as jdeprscan names it, marked for removal).
COMMON = (("new Integer(7).intValue()", "method java/lang/Integer::<init>(I)V", True),
          ("new Long(7L).intValue()", "method java/lang/Long::<init>(J)V", True),
          ("new Double(7.0).intValue()", "method java/lang/Double::<init>(D)V", True),
          ("new java.util.Date().getYear()", "method java/util/Date::getYear()I", False),
          ("new java.util.Date().getMonth()", "method java/util/Date::getMonth()I", False),
          ("new java.util.Date().getHours()", "method java/util/Date::getHours()I", False),
          ("Character.isSpace('x') ? 1 : 0", "method java/lang/Character::isSpace(C)Z", False))
# Each called by one class only, in the middle of the jar.
RARE = (("new Short((short) 7).intValue()", "method java/lang/Short::<init>(S)V", True),
        ("new Boolean(true).hashCode()", "method java/lang/Boolean::<init>(Z)V", True),
        ("new java.util.Observable().countObservers()", "class java/util/Observable", False),
        ("System.getSecurityManager() == null ? 1 : 0", "method java/lang/System::getSecurityManager()Ljava/lang/SecurityManager;", True),
        ("Thread.currentThread().countStackFrames()", "method java/lang/Thread::countStackFrames()I", True))


def plan(rnd: random.Random) -> dict[str, list[int]]:
    """Class path (``shop/billing/InvoiceBuilder``) -> indexes into COMMON (and -1 - k for RARE[k])."""
    names = [f"shop/{p}/{n}{r}" for p in PACKAGES for n in NOUNS for r in ROLES]
    classes = sorted(rnd.sample(names, 120))
    calls = {c: rnd.sample(range(len(COMMON)), rnd.choice((1, 2))) for c in classes}
    for k, c in enumerate(rnd.sample(classes[40:80], len(RARE))):
        calls[c] = [-1 - k]
    return calls


def source(path: str, uses: list[int]) -> str:
    pkg, name = path.rsplit("/", 1)
    exprs = [COMMON[i][0] if i >= 0 else RARE[-1 - i][0] for i in uses]
    body = " + ".join(f"({e})" for e in exprs)
    return (f"package {pkg.replace('/', '.')};\n\npublic class {name} {{\n"
            f"    @SuppressWarnings(\"removal\")\n    public int run() {{ return {body}; }}\n}}\n")


def _asks(calls: dict[str, list[int]]) -> list[Ask]:
    note = "the capture's record of the classes it wrote and the deprecated API each calls"
    asks = []
    for path, uses in calls.items():
        if uses[0] >= 0:
            continue
        _, api, removal = RARE[-1 - uses[0]]
        only = () if removal else ("all",)
        asks.append(Ask(f"user_{path.rsplit('/', 1)[1]}", "named", "named_item", (path,), note,
                        (f"Which class uses the deprecated {api.split()[-1]}?",
                         f"What class calls {api.split()[-1]}, which is deprecated?"), only))
        asks.append(Ask(f"api_{path.rsplit('/', 1)[1]}", "named", "named_item", (api.split()[-1],), note,
                        (f"Which deprecated API does {path} use?", f"What deprecated call is in {path}?"), only))
    return asks


def build(work: Path) -> list[dict[str, Any]]:
    rnd = random.Random(2004)
    calls = plan(rnd)
    src, classes = work / "src", work / "classes"
    for path, uses in calls.items():
        f = src / f"{path}.java"
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text(source(path, uses))
    run(["javac", "--release", "17", "-nowarn", "-d", str(classes), *map(str, sorted(src.rglob("*.java")))])
    run(["jar", "cf", str(work / "shop.jar"), "-C", str(classes), "."])
    commands = {"all": "jdeprscan --release 17 shop.jar", "removal": "jdeprscan --release 17 --for-removal shop.jar"}
    env = {"PATH": "/usr/bin:/bin", "LC_ALL": "C"}
    return shell_cases(SOURCE, commands, _asks(calls), cwd=work, env=env, least=10)
