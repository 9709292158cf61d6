"""CSV tables that statsmodels ships in its wheel (US macro data, the Grunfeld investment
panel, US state crime rates), read straight from the downloaded wheel: the CSV as a
``read_file`` would show it, and the same rows as a JSON record array an API would return.
Questions ask for the row holding a column's maximum and for one column looked up by
another (the table kind the server-log sources never exercise)."""

from __future__ import annotations

import csv
import io
import json
import sys
import zipfile
from pathlib import Path
from typing import Any

from ..cases import fact, make_case
from ..questions import choose
from ._run import run
from ._tables import json_value, lookup_case, once

SOURCE = "statsmodels_csv"
RELEASE = "statsmodels==0.14.4"
# (table, extreme column, the column naming the extreme's row, lookup key columns, looked-up column)
TABLES = (("macrodata/macrodata.csv", "tbilrate", "year", ("year", "quarter"), "realgdp"),
          ("grunfeld/grunfeld.csv", "invest", "firm", ("firm", "year"), "capital"),
          ("statecrime/statecrime.csv", "violent", "state", ("state",), "poverty"))


def _wheel(work: Path) -> Path:
    run([sys.executable, "-m", "pip", "download", "--no-deps", "--only-binary", ":all:", "--python-version", "3.11",
         "--platform", "manylinux2014_x86_64", "-d", str(work), RELEASE], timeout=600)
    return next(work.glob("statsmodels-*.whl"))


def _table_cases(name: str, text: str, extreme: str, label: str, keys: tuple[str, ...],
                 answer: str) -> list[dict[str, Any]]:
    raw_rows = list(csv.DictReader(io.StringIO(text)))
    js = json.dumps([{k: json_value(v) for k, v in r.items()} for r in raw_rows])
    forms = (("text", text, "read_file", {"path": f"data/{name}.csv"}),
             ("json", js, "http_get", {"url": f"http://stats.internal/api/v1/{name}/rows"}))
    contents = (text, js)
    top = max(raw_rows, key=lambda r: float(r[extreme]))
    lookups = [r for r in raw_rows if once(r[answer], contents) and len(r[answer]) >= 3
               and all(r[k] not in r[answer] for k in keys)]
    target = lookups[len(lookups) // 2]
    out = []
    for form, content, tool, args in forms:
        sid = f"{name}_{form}_max_{extreme}"
        q = choose(f"{SOURCE}/{sid}", (f"Which row has the highest {extreme}? Give its {label}.",
                                       f"When (or where) was {extreme} at its peak in this table?",
                                       f"Find the record with the largest {extreme} value."))
        facts = [fact(top[extreme], "extreme", f"max of {extreme}")] if once(top[extreme], contents) else []
        if once(top[label], contents) and len(top[label]) >= 4:
            facts.append(fact(top[label], "extreme", f"{label} of the row with the max {extreme}"))
        if facts:
            out.append(make_case(SOURCE, sid, form, tool, args, "extreme", q, content, facts))
        out.append(lookup_case(SOURCE, name, form, tool, args, content, target, keys, answer))
    return out


def build(work: Path) -> list[dict[str, Any]]:
    wheel = zipfile.ZipFile(_wheel(work))
    out = []
    for path, extreme, label, keys, answer in TABLES:
        text = wheel.read(f"statsmodels/datasets/{path}").decode("latin-1").replace("\r\n", "\n")
        out += _table_cases(Path(path).stem, text, extreme, label, keys, answer)
    return out
