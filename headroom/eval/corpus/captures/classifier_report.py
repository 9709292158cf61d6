"""A classifier's evaluation report as scikit-learn prints it: ``python evaluate.py`` printing
``classification_report(y_true, y_pred, digits=3)`` (one row a class: precision, recall, F1,
support, then the averages; ~150 lines, ~8 kB) and ``python evaluate.py --json`` (the same
report as ``output_dict=True``, dumped as indented JSON; ~870 lines, ~21 kB), of a product
categoriser's predictions on a test set the capture writes (``labels.csv``: true and predicted
category per row).

Most of the 140 categories are recalled fairly well (60-95 %); each has a support no other has,
one category is recalled perfectly, and one is never predicted at all, both drawn from the middle
third of the categories (scikit-learn lists classes by name, so where they stand is their names'
order). Facts come
from the capture's own record of the labels it wrote (``collections.Counter`` of the true
labels, the hits it planted), never from scikit-learn's text; a fact is kept only where it
stands once. Held out (issue 33, twenty-third round): dev holds data profiles (``csvstat``),
test runs and coverage, but no model's evaluation report.
"""

from __future__ import annotations

import csv
import random
import sys
from collections import Counter
from pathlib import Path
from typing import Any

from ._asked import Ask, shell_cases

SOURCE = "classifier_report"
AISLES = ("garden", "kitchen", "office", "outdoor", "pet", "bath", "toy", "auto", "craft", "sport")
ITEMS = ("hoses", "kettles", "staplers", "tents", "leashes", "towels", "puzzles", "wipers", "yarn", "rackets",
         "planters", "blenders", "binders", "lanterns", "collars", "mats", "kites", "mirrors", "glue", "helmets")
SCRIPT = """import csv, json, sys
from sklearn.metrics import classification_report
rows = list(csv.DictReader(open("labels.csv")))
y_true = [r["true"] for r in rows]
y_pred = [r["predicted"] for r in rows]
if "--json" in sys.argv:
    print(json.dumps(classification_report(y_true, y_pred, output_dict=True, zero_division=0), indent=2))
else:
    print(classification_report(y_true, y_pred, digits=3, zero_division=0))
"""


def plan(rnd: random.Random) -> tuple[list[tuple[str, str]], str, str]:
    """The rows (true, predicted), the best-recalled category, the never-predicted one."""
    cats = rnd.sample([f"{a}_{i}" for a in AISLES for i in ITEMS], 140)
    supports = rnd.sample(range(30, 400), len(cats))
    middle = cats[len(cats) // 3: 2 * len(cats) // 3]
    best, unseen = rnd.sample(middle, 2)
    rows = []
    for cat, n in zip(cats, supports, strict=True):
        # an exact number of hits, so each recall is what the capture planted, not a draw's luck
        hits = n if cat == best else 0 if cat == unseen else round(n * rnd.uniform(0.6, 0.95))
        wrong = [c for c in cats if c not in (cat, unseen)]
        rows += [(cat, cat)] * hits + [(cat, rnd.choice(wrong)) for _ in range(n - hits)]
    rnd.shuffle(rows)
    return rows, best, unseen


def recalls(rows: list[tuple[str, str]]) -> dict[str, float]:
    """Each category's share of its rows predicted right, from the rows themselves."""
    total, right = Counter(t for t, _ in rows), Counter(t for t, p in rows if t == p)
    return {c: right[c] / n for c, n in total.items()}


def _asks(rows: list[tuple[str, str]], best: str, unseen: str, rnd: random.Random) -> list[Ask]:
    note = "the capture's record of the labels it wrote (Counter of the true labels, the hits it planted)"
    rec = recalls(rows)
    high = sorted(rec, key=rec.get, reverse=True)
    assert high[0] == best and rec[best] - rec[high[1]] >= 0.04 and unseen not in {p for _, p in rows}
    asks = [Ask("best_recall", "extreme", "extreme", (best,), note,
                ("Which category has the highest recall?", "What class does the model recall best?")),
            Ask("never_predicted", "named", "named_item", (unseen,), note,
                ("Which category is never predicted (precision zero)?",
                 "What class did the model not predict even once?"))]
    support = Counter(t for t, _ in rows)
    for cat in rnd.sample(sorted(c for c in support if c not in (best, unseen)), 8):
        asks.append(Ask(f"support_{cat}", "named", "named_item", (cat,), note,
                        (f"Which category has a support of {support[cat]}?",
                         f"What class has exactly {support[cat]} test samples?")))
    return asks


def build(work: Path) -> list[dict[str, Any]]:
    rnd = random.Random(2302)
    rows, best, unseen = plan(rnd)
    with (work / "labels.csv").open("w", newline="") as f:
        w = csv.writer(f)
        w.writerow(("true", "predicted"))
        w.writerows(rows)
    (work / "evaluate.py").write_text(SCRIPT)
    py = sys.executable
    commands = {"text": f"{py} evaluate.py", "json": f"{py} evaluate.py --json"}
    env = {"PATH": "/usr/bin:/bin", "LC_ALL": "C", "PYTHONWARNINGS": "ignore"}
    out = shell_cases(SOURCE, commands, _asks(rows, best, unseen, rnd), cwd=work, env=env,
                      json_outputs=("json",), least=12)
    # the agent typed ``python``, not this machine's interpreter path
    for c in out:
        c["tool_arguments"]["command"] = c["tool_arguments"]["command"].replace(py, "python")
    return out
