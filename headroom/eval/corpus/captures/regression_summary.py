"""A fitted linear model's report, as statsmodels 0.14 prints it: ``python fit_model.py`` (an
ordinary-least-squares fit's ``summary()``: a two-column header of fit statistics, one row a
regressor with its coefficient, standard error, t, p and interval, then the residual tests;
~85 lines, ~7 kB) and ``python fit_model.py --summary2`` (``summary2()``: the same fit in
another layout, the header as ``key: value`` pairs; ~80 lines, ~5.5 kB), of a weekly sales
table the capture writes (``sales.csv``, 900 rows): units sold against sixty standardised
drivers, each with an effect the capture planted.

In the middle of the table, one driver has a negative effect, one far the largest, one none at
all (its p-value large). Facts come from the capture's own record of the effects it planted,
checked against ``numpy.linalg.lstsq`` on the same rows (signs, the largest, t-statistics) in
the capture's process, never from statsmodels' text; a fact is kept only where it stands once.
statsmodels 0.14.5 from PyPI in a throwaway venv. Held out (issue 33, twenty-fourth round): dev
holds CSV profiles and a classifier's per-class report (known gaps), but no regression fit.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from ._asked import Ask, shell_cases
from ._run import pinned_tool

SOURCE = "regression_summary"
RELEASE = "statsmodels==0.14.5"
CHANNELS = ("radio", "print", "search", "social", "email", "outdoor", "catalog", "affiliate", "video", "podcast")
METRICS = ("spend", "reach", "clicks", "visits", "orders", "leads")
ROWS = 900
ENV = {"PATH": "/usr/bin:/bin", "LC_ALL": "C", "PYTHONHASHSEED": "0", "OPENBLAS_NUM_THREADS": "1"}
SCRIPT = '''"""Weekly sales model: units sold against the marketing drivers."""
import sys

import pandas as pd
import statsmodels.formula.api as smf

data = pd.read_csv("sales.csv")
drivers = [c for c in data.columns if c != "units_sold"]
fit = smf.ols("units_sold ~ " + " + ".join(drivers), data=data).fit()
print(fit.summary2() if "--summary2" in sys.argv else fit.summary())
'''


def plan(rnd: random.Random) -> dict[str, float]:
    """The capture's record: each driver's planted effect (units a standard deviation)."""
    names = [f"{c}_{m}" for c in CHANNELS for m in METRICS]
    rnd.shuffle(names)
    effects = [round(v * 0.5, 1) for v in rnd.sample(range(4, 90), len(names))]  # 2.0 .. 44.5, all apart
    beta = dict(zip(names, effects, strict=True))
    middle = names[len(names) // 4: 3 * len(names) // 4]
    neg, zero, top = rnd.sample(middle, 3)
    beta[neg], beta[zero], beta[top] = -beta[neg], 0.0, 60.0
    return beta


def rows(beta: dict[str, float], rnd: random.Random) -> list[list[float]]:
    out = []
    for _ in range(ROWS):
        x = [rnd.gauss(0, 1) for _ in beta]
        y = 500 + sum(b * v for b, v in zip(beta.values(), x, strict=True)) + rnd.gauss(0, 3)
        out.append([*x, y])
    return out


def check(beta: dict[str, float], data: list[list[float]]) -> None:
    """The planted effects as numpy's least squares reads the rows back: signs, the largest, and
    t-statistics (the zero effect insignificant, every other far from zero)."""
    import numpy as np

    a = np.array(data)
    x = np.column_stack([np.ones(len(a)), a[:, :-1]])
    y = a[:, -1]
    coef, res, *_ = np.linalg.lstsq(x, y, rcond=None)
    sigma2 = res[0] / (len(y) - x.shape[1])
    se = np.sqrt(np.diag(sigma2 * np.linalg.inv(x.T @ x)))
    t = dict(zip(beta, (coef / se)[1:], strict=True))
    est = dict(zip(beta, coef[1:], strict=True))
    assert all(abs(est[n] - b) < 0.5 for n, b in beta.items())
    zero = next(n for n, b in beta.items() if b == 0.0)
    assert abs(t[zero]) < 2.5 and all(abs(v) > 8 for n, v in t.items() if n != zero)


def _asks(beta: dict[str, float], rnd: random.Random) -> list[Ask]:
    note = "the capture's record of the effects it planted, checked with numpy.linalg.lstsq"
    names = list(beta)
    neg = next(n for n in names if beta[n] < 0)
    zero = next(n for n in names if beta[n] == 0.0)
    top = max(names, key=beta.get)
    asks = [Ask("negative", "named", "named_item", (neg,), note,
                ("Which driver lowers units sold?", "What regressor has a negative coefficient?")),
            Ask("insignificant", "named", "named_item", (zero,), note,
                ("Which driver has no significant effect?", "What regressor's p-value is far above 0.05?")),
            Ask("largest", "extreme", "extreme", (top,), note,
                ("Which driver has the largest effect on units sold?", "What regressor has the biggest coefficient?"))]
    plain = [n for n in names[len(names) // 5: 4 * len(names) // 5] if n not in (neg, zero, top)]
    for n in rnd.sample(plain, 6):
        asks.append(Ask(f"effect_{n}", "named", "named_item", (n,), note,
                        (f"Which driver's coefficient is about {beta[n]}?",
                         f"What regressor has an estimated effect near {beta[n]} units?")))
    return asks


def build(work: Path) -> list[dict[str, Any]]:
    rnd = random.Random(2406)
    beta = plan(rnd)
    data = rows(beta, rnd)
    check(beta, data)
    py = pinned_tool(work, RELEASE, "python")
    job = work / "model"
    job.mkdir()
    (job / "fit_model.py").write_text(SCRIPT)
    lines = [",".join([*beta, "units_sold"])] + [",".join(f"{v:.4f}" for v in r) for r in data]
    (job / "sales.csv").write_text("\n".join(lines) + "\n")
    commands = {"summary": f"{py} fit_model.py", "summary2": f"{py} fit_model.py --summary2"}
    cases = shell_cases(SOURCE, commands, _asks(beta, rnd), cwd=job, env=ENV, least=12)
    for c in cases:  # the agent typed python, not the throwaway venv's path
        c["tool_arguments"]["command"] = c["tool_arguments"]["command"].replace(str(py), "python")
    return cases
