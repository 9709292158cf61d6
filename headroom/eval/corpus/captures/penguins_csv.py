"""The Palmer penguins data as the ``palmerpenguins`` wheel ships it (the tidy
``penguins.csv`` and the LTER ``penguins-raw.csv`` with its spaced column names, quoted cells
and free-text comments), read straight from the downloaded wheel: the CSV a ``read_file``
would show, and the same rows as a JSON record array an API would return. Questions ask
for the row holding a column's largest or smallest value and for one column looked up by
key columns whose combination names exactly one row."""

from __future__ import annotations

import csv
import io
import json
import sys
import zipfile
from collections import Counter
from pathlib import Path
from typing import Any

from ..cases import fact, make_case
from ..questions import choose
from ._run import run
from ._tables import json_value, lookup_case, once

SOURCE = "penguins_csv"
RELEASE = "palmerpenguins==0.1.6"
# (file, [(column, "max"|"min")], the column naming an extreme's row, lookup key columns, looked-up column)
TABLES = (
    ("penguins.csv", (("bill_length_mm", "max"), ("body_mass_g", "min")), "island", (), ""),
    ("penguins-raw.csv", (("Delta 15 N (o/oo)", "max"), ("Flipper Length (mm)", "min")), "Individual ID",
     ("studyName", "Sample Number"), "Culmen Length (mm)"),
)
_WORDS = {"max": ("highest", "largest", "greatest"), "min": ("lowest", "smallest", "least")}


def _wheel(work: Path) -> Path:
    run([sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:", "-d", str(work), RELEASE],
        timeout=600)
    return next(work.glob("palmerpenguins-*.whl"))


def _number(cell: str) -> float | None:
    try:
        return float(cell)
    except ValueError:
        return None


def _extreme_case(name: str, rows: list[dict[str, str]], column: str, way: str, label: str,
                  forms, contents) -> list[dict[str, Any]]:
    valued = [r for r in rows if _number(r[column]) is not None]
    pick = max if way == "max" else min
    best = pick(valued, key=lambda r: _number(r[column]))
    ties = sum(1 for r in valued if _number(r[column]) == _number(best[column]))
    out = []
    for form, content, tool, args in forms:
        sid = f"{name}_{form}_{way}_{column.split()[0].lower()}"
        big, *_ = _WORDS[way]
        q = choose(f"{SOURCE}/{sid}", (f"Which row has the {big} {column}? Give its {label}.",
                                       f"Find the record with the {_WORDS[way][1]} {column} value.",
                                       f"Which penguin has the {_WORDS[way][2]} {column} in this table?"))
        facts = [fact(best[column], "extreme", f"{way} of {column}")] if once(best[column], contents) else []
        if ties == 1 and once(best[label], contents) and len(best[label]) >= 4:
            facts.append(fact(best[label], "extreme", f"{label} of the row with the {way} {column}"))
        if facts:
            out.append(make_case(SOURCE, sid, form, tool, args, "extreme", q, content, facts))
    return out


def _lookup_case(name: str, rows: list[dict[str, str]], keys: tuple[str, ...], answer: str,
                 forms, contents) -> list[dict[str, Any]]:
    combos = Counter(tuple(r[k] for k in keys) for r in rows)
    lookups = [r for r in rows if combos[tuple(r[k] for k in keys)] == 1 and once(r[answer], contents)
               and len(r[answer]) >= 3 and all(r[k] not in r[answer] for k in keys)]
    if not lookups:
        return []
    target = lookups[len(lookups) // 2]
    return [lookup_case(SOURCE, name, form, tool, args, content, target, keys, answer)
            for form, content, tool, args in forms]


def table_cases(file: str, text: str, extremes, label: str, keys: tuple[str, ...], answer: str) -> list[dict]:
    name = Path(file).stem.replace("-", "_")
    rows = list(csv.DictReader(io.StringIO(text)))
    js = json.dumps([{k: json_value(v) for k, v in r.items()} for r in rows])
    forms = (("text", text, "read_file", {"path": f"data/{file}"}),
             ("json", js, "http_get", {"url": f"http://penguins.internal/api/v1/{name}/rows"}))
    contents = (text, js)
    out = []
    for column, way in extremes:
        out += _extreme_case(name, rows, column, way, label, forms, contents)
    if keys:
        out += _lookup_case(name, rows, keys, answer, forms, contents)
    return out


def build(work: Path) -> list[dict[str, Any]]:
    wheel = zipfile.ZipFile(_wheel(work))
    out = []
    for file, extremes, label, keys, answer in TABLES:
        text = wheel.read(f"palmerpenguins/data/{file}").decode("utf-8").replace("\r\n", "\n")
        out += table_cases(file, text, extremes, label, keys, answer)
    return out
