"""Every figure the docs quote comes from a committed results file (docs/figures.toml).

Each registry entry names a doc, a regular expression whose ``value`` group is the quoted
figure, the results file it must come from, a key path into it and how it is printed. The
test fails when the doc no longer quotes it, when the results file lacks the key, or when
the two disagree: a number edited by hand, or a results file regenerated without the doc.

Key paths: dotted names into the JSON; ``name[field=value]`` picks the list item whose
``field`` equals ``value``; a trailing ``|len`` takes the length; ``a - b`` subtracts two
paths (a difference the doc quotes, in points); ``gate:failed`` / ``gate:checks`` /
``gate:xfail`` count the shipped gate's checks on an eval results file.
"""

from __future__ import annotations

import json
import re
import statistics
import sys
from functools import lru_cache
from pathlib import Path
from typing import Any

import pytest

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

ROOT = Path(__file__).resolve().parents[2]
REGISTRY = ROOT / "docs" / "figures.toml"

FORMATS = {
    "pct1": lambda x: f"{100 * x:.1f}",  # 0.175 -> "17.5"
    "pct0": lambda x: f"{100 * x:.0f}",
    "pts1": lambda x: f"{100 * x:+.1f}".replace("-", "−"),  # a signed difference in points, typographic minus
    "abs1": lambda x: f"{100 * abs(x):.1f}",  # a difference quoted without its sign ("for 4.5 points")
    "ms2": lambda x: f"{x:.2f}",
    "int": lambda x: f"{int(x)}",
    "thousands": lambda x: f"{int(x):,}",
}


@lru_cache(maxsize=None)
def _load(path: str) -> Any:
    return json.loads((ROOT / path).read_text())


def _step(node: Any, part: str) -> Any:
    m = re.fullmatch(r"([^\[\]]+)(?:\[([^=\]]+)=([^\]]+)\])?", part)
    if not m:
        raise KeyError(part)
    name, field, value = m.groups()
    node = node[name]
    if field is not None:
        [node] = [x for x in node if str(x.get(field)) == value]
    return node


def _gate(doc: Any, what: str) -> int:
    """The shipped gate's verdict on an eval results document: ``failed``, ``checks`` or ``xfail``."""
    from headroom.eval.gate import evaluate, load_thresholds

    checks = evaluate(doc, load_thresholds(None))
    return {"failed": sum(c.fails_gate for c in checks), "checks": len(checks),
            "xfail": sum(c.expected_failure for c in checks)}[what]


def resolve(doc: Any, key: str) -> Any:
    if key.startswith("gate:"):  # what `headroom eval gate` says about this results file
        return _gate(doc, key.removeprefix("gate:"))
    if " - " in key:
        a, b = key.split(" - ", 1)
        return resolve(doc, a) - resolve(doc, b)
    path, _, fn = key.partition("|")
    node = doc
    for part in path.split("."):
        node = _step(node, part)
    if fn == "len":
        return len(node)
    if fn == "median":  # a list of per-case values (real_corpus_bench's savings)
        return statistics.median(node)
    if fn.startswith("at"):  # "at1": one position of a row of counts
        return node[int(fn[2:])]
    return node


def _entries() -> list[dict[str, Any]]:
    return tomllib.loads(REGISTRY.read_text())["figure"]


@pytest.mark.parametrize("entry", _entries(), ids=lambda e: f"{e['doc']}:{e['key']}")
def test_a_quoted_figure_matches_its_results_file(entry):
    text = (ROOT / entry["doc"]).read_text()
    quoted = [m.group("value") for m in re.finditer(entry["pattern"], text)]
    assert quoted, f"{entry['doc']} no longer quotes /{entry['pattern']}/: update docs/figures.toml"
    expected = FORMATS[entry["format"]](resolve(_load(entry["source"]), entry["key"]))
    assert all(q == expected for q in quoted), (
        f"{entry['doc']} quotes {quoted} for /{entry['pattern']}/, but {entry['source']} "
        f"[{entry['key']}] gives {expected}")


def test_the_resolver_and_formats():
    doc = {"a": {"b": 0.1754}, "rows": [{"label": "x", "n": [1, 2, 3]}], "c": 0.2}
    assert FORMATS["pct1"](resolve(doc, "a.b")) == "17.5"
    assert resolve(doc, "rows[label=x].n|len") == 3
    assert FORMATS["pts1"](resolve(doc, "a.b - c")) == "−2.5"
    with pytest.raises((KeyError, ValueError)):
        resolve(doc, "rows[label=y].n")


def _tables() -> list[dict[str, Any]]:
    return tomllib.loads(REGISTRY.read_text()).get("table", [])


@pytest.mark.parametrize("entry", _tables(), ids=lambda e: f"{e['doc']}:{e['table']}")
def test_a_quoted_table_matches_its_results_file(entry):
    """A table copied from an eval report: each of its rows, rendered again from the
    committed results, stands verbatim in the doc."""
    from headroom.eval import report

    head, rows = getattr(report, entry["table"])(_load(entry["source"]), *entry.get("args", []))
    text = (ROOT / entry["doc"]).read_text()
    wanted = [r for r in rows if not entry.get("rows") or r[0] in entry["rows"]]
    assert wanted
    for r in wanted:
        line = report.markdown((head, [r])).splitlines()[-1]
        assert line in text, f"{entry['doc']} lacks the row rendered from {entry['source']}: {line}"
