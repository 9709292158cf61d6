"""Test collections as pytest reports them without running anything: ``pytest --collect-only``
(the tree of ``<Dir>``, ``<Module>``, ``<Class>`` and ``<Function>`` nodes, parametrized
cases with their ids) and ``pytest --collect-only -q`` (one node id a line) of a suite the
capture writes (~24 modules in six folders, three classes of tests each plus module-level
tests; ~430 items), with no header so no temporary path shows.

Facts come from the capture's record of the suite it wrote (which class and module hold a
test, which cases a parametrized test has), never from pytest's text; a fact is kept only
where it stands once. Held out (issue 33, sixteenth round): dev holds pytest runs, their JSON
reports and doctest transcripts, but no collection tree or node-id listing.
"""

from __future__ import annotations

import random
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ._asked import Ask, shell_cases

SOURCE = "pytest_collections"
FOLDERS = ("billing", "catalog", "checkout", "ledger", "search", "shipping")
TOPICS = ("refunds", "rounding", "limits", "exports", "caching", "retries", "paging", "locales", "imports",
          "audits", "quotas", "webhooks")
ADJECTIVES = ("Partial", "Late", "Bulk", "Nightly", "Manual", "Foreign", "Stale", "Empty", "Nested", "Signed",
              "Pending", "Expired", "Duplicate", "Frozen", "Split", "Merged", "Legacy", "Draft")
NOUNS = ("Orders", "Invoices", "Carts", "Tokens", "Batches", "Accounts", "Parcels", "Coupons", "Ledgers", "Queries")
VERBS = ("accepts", "rejects", "rounds", "retries", "skips", "merges", "splits", "caches", "expires", "logs")
OBJECTS = ("zero", "negative", "unicode", "huge", "empty", "duplicate", "expired", "partial", "nested", "late")
FLAGS = ("--collect-only --no-header -p no:cacheprovider tests")
COMMANDS = {"tree": f"python -m pytest {FLAGS}", "ids": f"python -m pytest {FLAGS} -q"}


@dataclass
class Suite:
    """The capture's record: module path -> class -> test names; module-level tests; the
    cases of the one parametrized test."""

    classes: dict[str, dict[str, list[str]]] = field(default_factory=dict)
    loose: dict[str, str] = field(default_factory=dict)  # module path -> its one test outside a class
    param_test: str = ""
    param_ids: tuple[str, ...] = ()


def plan_suite(rnd: random.Random) -> Suite:
    suite = Suite()
    class_names = iter(rnd.sample([f"Test{a}{n}" for a in ADJECTIVES for n in NOUNS], 6 * 4 * 3))
    test_names = iter(rnd.sample([f"test_{v}_{o}_{t}" for v in VERBS for o in OBJECTS for t in TOPICS], 600))
    for folder in FOLDERS:
        for topic in rnd.sample(TOPICS, 4):
            module = f"tests/{folder}/test_{folder}_{topic}.py"
            suite.classes[module] = {next(class_names): [next(test_names) for _ in range(rnd.randrange(4, 8))]
                                     for _ in range(3)}
            suite.loose[module] = next(test_names)
    middle = list(suite.classes)[8:16]
    holder = suite.classes[rnd.choice(middle)]
    suite.param_test = rnd.choice(holder[rnd.choice(sorted(holder))])
    suite.param_ids = ("chf-5dp", "jpy-0dp", "kwd-3dp")
    return suite


def module_text(suite: Suite, module: str) -> str:
    lines = ["import pytest", ""]
    lines += [f"def {suite.loose[module]}():", "    assert True", ""]
    for cls, tests in suite.classes[module].items():
        lines.append(f"class {cls}:")
        for t in tests:
            if t == suite.param_test:
                lines.append(f"    @pytest.mark.parametrize('digits', [5, 0, 3], ids={list(suite.param_ids)!r})")
                lines += [f"    def {t}(self, digits):", "        assert digits >= 0"]
            else:
                lines += [f"    def {t}(self):", "        assert True"]
        lines.append("")
    return "\n".join(lines)


def write_suite(work: Path, suite: Suite) -> None:
    work.mkdir(parents=True, exist_ok=True)
    (work / "pytest.ini").write_text("[pytest]\ntestpaths = tests\n")
    for module in suite.classes:
        path = work / module
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(module_text(suite, module))


def _asks(suite: Suite, rnd: random.Random) -> list[Ask]:
    note = "the capture's record of the suite it wrote"
    middle = list(suite.classes)[6:18]
    owner = {t: (m, c) for m in middle for c, ts in suite.classes[m].items() for t in ts if t != suite.param_test}
    picked = rnd.sample(sorted(owner), 7)
    asks = [Ask(f"class_of_{t}", "named", "named_item", (owner[t][1],), note,
                (f"Which test class is {t} defined in?", f"What class holds {t}?"), ("tree",)) for t in picked[:3]]
    asks += [Ask(f"module_of_{cls}", "named", "named_item", (Path(m).name,), note,
                 (f"Which test file defines {cls}?", f"Where does {cls} live, which module?"), ("tree",))
             for m, cls in ((owner[t][0], owner[t][1]) for t in picked[3:5])]
    asks += [Ask(f"loose_{Path(m).stem}", "named", "named_item", (suite.loose[m],), note,
                 (f"Which test in {Path(m).name} sits outside any class?",
                  f"What's the module-level test in {Path(m).name}?"), ("tree",)) for m in rnd.sample(middle, 2)]
    asks.append(Ask("param_cases", "named", "named_item", suite.param_ids, note,
                    (f"Which parameter cases does {suite.param_test} run?",
                     f"List the ids {suite.param_test} is parametrized with.")))
    asks += [Ask(f"node_id_{t}", "named", "named_item", (f"{owner[t][0]}::{owner[t][1]}::{t}",), note,
                 (f"What node id do I pass to run just {t}?", f"Give me the full pytest id of {t}."), ("ids",))
             for t in picked[:2] + picked[5:]]
    return asks


def build(work: Path) -> list[dict[str, Any]]:
    rnd = random.Random(1602)
    suite = plan_suite(rnd)
    root = work / "shop"  # the tree's top node is named after the root folder: a fixed name
    write_suite(root, suite)
    # No third-party plugins: their warnings would name the venv's absolute path.
    env = {"PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin", "LC_ALL": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1",
           "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"}
    return shell_cases(SOURCE, COMMANDS, _asks(suite, rnd), cwd=root, env=env)
