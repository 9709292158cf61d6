"""A CSV profiler's column statistics as csvkit's ``csvstat`` prints them: per column a numbered,
quoted heading over an indented block (type, nulls, unique values, smallest and largest, sum,
mean, median, deviation, decimal places, the most common values with their counts; ~750 lines,
~20 kB) and ``csvstat --csv`` (one row a column; ~50 lines, ~5 kB), of a warehouse's shipment export the
capture writes: ~420 rows of 48 columns (amounts, weights, counts, dates, carriers, depots).
csvkit 2.0.1 runs from a throwaway venv (PyPI at build time).

Each numeric column is drawn from a range of its own; in the middle columns one row carries a
value far above the rest, one column alone has blank cells, and three text columns each lead
with one value. Facts come from the capture's own record of the rows it wrote (Python's ``max``,
``min`` and ``collections.Counter`` over those rows), never from csvstat's text; a fact is kept
only where it stands once. Held out (issue 33, twentieth round): dev holds CSV files themselves
and frequency counts (``sort | uniq -c``), but no per-column profile of a table.
"""

from __future__ import annotations

import csv
import random
from collections import Counter
from pathlib import Path
from typing import Any

from ._asked import Ask, shell_cases
from ._run import pinned_tool

SOURCE = "csv_stats"
CSVKIT = "csvkit==2.0.1"
MEASURES = ("gross", "net", "tax", "duty", "freight", "insurance", "rebate", "deposit", "surcharge", "handling",
            "fuel", "storage", "customs", "toll", "packing", "pallet", "levy", "escrow", "penalty", "bonus", "credit",
            "refund", "cod", "fx", "return", "relabel", "repack", "quarantine")
DATES = ("ordered_on", "packed_on", "shipped_on", "invoiced_on")
TEXTS = {"carrier": ("Kestrel Freight", "Otterline", "Bramble Post", "Harrow Cargo", "Fenwick Haul", "Lyme Express"),
         "depot": ("Aldgate", "Brixley", "Cowden", "Dunmore", "Elstow", "Farleigh", "Garnet", "Holloway"),
         "packer": ("team-amber", "team-birch", "team-cedar", "team-delta", "team-ember", "team-flint", "team-gale")}


def plan(rnd: random.Random) -> tuple[list[str], list[dict[str, str]], dict[str, Any]]:
    """The export's columns and rows, and the record of what was planted in it."""
    numeric = [f"{m}_eur" for m in MEASURES] + ["weight_kg", "volume_l", "boxes", "items", "km"]
    cols = ["shipment", *numeric[:8], "carrier", *DATES[:2], *numeric[8:16], "depot", *DATES[2:],
            *numeric[16:], "packer", "hold_reason"]
    rows: list[dict[str, str]] = []
    lows = {c: rnd.randint(1, 40) for c in numeric}
    highs = {c: lows[c] + rnd.randint(200, 900) for c in numeric}
    leads = {t: rnd.choice(v) for t, v in TEXTS.items()}
    for i in range(420):
        row = {"shipment": f"SH-{70000 + i * 7}"}
        for c in numeric:
            row[c] = str(rnd.randint(lows[c], highs[c])) if c in ("boxes", "items", "km") else \
                f"{rnd.uniform(lows[c], highs[c]):.2f}"
        for n, c in enumerate(DATES):
            row[c] = f"2026-{n * 2 + 3:02d}-{rnd.randint(1, 28):02d}"
        for t, values in TEXTS.items():
            row[t] = leads[t] if rnd.random() < 0.3 else rnd.choice(values)
        row["hold_reason"] = ""
        rows.append(row)
    record: dict[str, Any] = {"leads": leads, "odd_max": {}, "blank": "hold_reason"}
    # One outsized value in each of six middle numeric columns, in a middle row.
    for c in rnd.sample(numeric[4:18], 6):
        r = rows[rnd.randrange(120, 300)]
        r[c] = f"{highs[c] * 9 + rnd.randint(11, 99)}.{rnd.randint(10, 99)}" if c not in ("boxes", "items", "km") \
            else str(highs[c] * 9 + rnd.randint(11, 99))
        record["odd_max"][c] = r[c]
    for i in rnd.sample(range(150, 280), 5):
        rows[i]["hold_reason"] = rnd.choice(("address check", "customs query", "damaged label"))
    return cols, rows, record


def facts(cols: list[str], rows: list[dict[str, str]]) -> dict[str, Any]:
    """What a second reader of the rows finds: each column's largest and smallest number and
    earliest and latest date, the text columns' commonest value, the one column with blanks."""
    out: dict[str, Any] = {"max": {}, "min": {}, "first": {}, "last": {}, "mode": {}}
    for c in cols:
        vals = [r[c] for r in rows if r[c] != ""]
        if c.endswith(("_eur", "_kg", "_l")) or c in ("boxes", "items", "km"):
            nums = sorted(vals, key=float)
            out["max"][c], out["min"][c] = nums[-1], nums[0]
        elif c in DATES:
            out["first"][c], out["last"][c] = min(vals), max(vals)
        elif c in TEXTS:
            (top, n), (_, m) = Counter(vals).most_common(2)
            if n > m:
                out["mode"][c] = top
    out["blank"] = [c for c in cols if any(r[c] == "" for r in rows)]
    return out


def _plain(value: str) -> str:
    """A decimal as csvstat writes it (agate's Decimal, trailing zeros of the fraction dropped)."""
    return value.rstrip("0").rstrip(".") if "." in value else value


def _asks(found: dict[str, Any], record: dict[str, Any]) -> list[Ask]:
    note = "the capture's record of the rows it wrote (max over the column's values)"
    asks = []
    for c in record["odd_max"]:
        asks.append(Ask(f"max_{c}", "named", "named_item", (_plain(found["max"][c]),), note,
                        (f"What is the largest value in the {c} column?", f"Max of {c} in this export?")))
    for c in sorted(found["min"])[::5]:
        asks.append(Ask(f"min_{c}", "named", "named_item", (_plain(found["min"][c]),),
                        "the capture's record of the rows it wrote (min over the column's values)",
                        (f"What's the smallest {c} value?", f"Minimum of the {c} column?"), ("text",)))
    for c in DATES[1:3]:
        asks.append(Ask(f"last_{c}", "named", "named_item", (found["last"][c],),
                        "the capture's record of the rows it wrote (the latest date in the column)",
                        (f"What is the latest {c} date?", f"Most recent date in {c}?"), ("text",)))
    for c, top in found["mode"].items():
        asks.append(Ask(f"mode_{c}", "named", "named_item", (top,),
                        "the capture's record of the rows it wrote (collections.Counter's commonest value)",
                        (f"Which {c} value occurs most often?", f"Most common {c}?"), ("text",)))
    asks.append(Ask("blank_column", "named", "named_item", tuple(found["blank"]),
                    "the capture's record of the rows it wrote (the only column with empty cells)",
                    ("Which column contains null values?", "What column has missing values?"), ("text",)))
    return asks


def build(work: Path) -> list[dict[str, Any]]:
    rnd = random.Random(2001)
    cols, rows, record = plan(rnd)
    found = facts(cols, rows)
    assert found["blank"] == [record["blank"]] and set(found["mode"]) <= set(TEXTS)
    assert all(found["max"][c] == v for c, v in record["odd_max"].items())
    tool = pinned_tool(work / "tool", CSVKIT, "csvstat")
    data = work / "data"
    data.mkdir()
    with (data / "shipments.csv").open("w", newline="") as fh:
        w = csv.DictWriter(fh, cols)
        w.writeheader()
        w.writerows(rows)
    commands = {"text": "csvstat shipments.csv", "csv": "csvstat --csv shipments.csv"}
    env = {"PATH": f"{tool.parent}:/usr/bin:/bin", "LC_ALL": "C.UTF-8"}
    return shell_cases(SOURCE, commands, _asks(found, record), cwd=data, env=env)
