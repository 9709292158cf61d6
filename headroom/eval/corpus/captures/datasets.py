"""Real datasets that scikit-learn ships in its wheel (UCI wine, Wisconsin breast cancer),
served as an API would: JSON record arrays, and the same records as CSV."""

from __future__ import annotations

import csv
import io
import json
from pathlib import Path
from typing import Any

from ..cases import fact, make_case
from ..questions import choose

SOURCE = "sklearn_datasets"
# (loader, extreme fields, the field a lookup answers, the key field it is asked by)
DATASETS = (("wine", ("proline", "magnesium"), "alcohol", "color_intensity"),
            ("breast_cancer", ("mean area", "worst perimeter"), "mean radius", "mean texture"))


def _records(name: str) -> list[dict[str, Any]]:
    from sklearn import datasets

    bunch = getattr(datasets, f"load_{name}")()
    names = [str(n) for n in bunch.feature_names]
    return [{"sample": i, **{k: round(float(v), 6) for k, v in zip(names, row)},
             "label": str(bunch.target_names[t])} for i, (row, t) in enumerate(zip(bunch.data, bunch.target))]


def _csv(rows: list[dict[str, Any]]) -> str:
    buf = io.StringIO()
    w = csv.DictWriter(buf, fieldnames=list(rows[0]), lineterminator="\n")
    w.writeheader()
    w.writerows(rows)
    return buf.getvalue()


def _unique_value(rows, field, contents) -> list[dict[str, Any]]:
    """Rows whose ``field`` value text occurs once in every form (a checkable answer)."""
    return [r for r in rows if all(c.count(json.dumps(r[field])) == 1 for c in contents)]


def build(work: Path) -> list[dict[str, Any]]:
    out = []
    for name, extremes, answer, key in DATASETS:
        rows = _records(name)
        js, text = json.dumps(rows), _csv(rows)
        forms = (("json", js, "http_get", {"url": f"http://datasets.internal/api/v1/{name}/samples"}),
                 ("csv", text, "read_file", {"path": f"data/{name}.csv"}))
        for form, content, tool, args in forms:
            for field in extremes:
                top = max(rows, key=lambda r: r[field])
                sid = f"{name}_{form}_max_{field.replace(' ', '_')}"
                q = choose(f"{SOURCE}/{sid}", (f"Which sample has the highest {field}, and what is its label?",
                                               f"Find the record with the largest {field}; give its sample number."))
                facts = [fact(json.dumps(top[field]), "extreme", f"max of {field}")]
                out.append(make_case(SOURCE, sid, form if form == "json" else "text", tool, args, "extreme", q,
                                     content, facts))
            candidates = _unique_value(rows, answer, (js, text))
            candidates = [r for r in candidates if all(c.count(json.dumps(r[key])) == 1 for c in (js, text))]
            target = candidates[len(candidates) // 2]
            sid = f"{name}_{form}_lookup"
            q = choose(f"{SOURCE}/{sid}", (f"What is the {answer} of the sample whose {key} is {target[key]}?",
                                           f"For the record with {key} = {target[key]}, report its {answer}."))
            out.append(make_case(SOURCE, sid, form if form == "json" else "text", tool, args, "named", q, content,
                                 [fact(json.dumps(target[answer]), "named_item",
                                       f"{answer} of the one row whose {key} is {target[key]}")]))
    return out
