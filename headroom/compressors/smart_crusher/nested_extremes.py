"""Extremes of a measure held one level down in each record.

``mpstat -o JSON`` gives each sample as ``{"timestamp": …, "cpu-load": [{"cpu": "all",
"usr": 49.75, "sys": 0.5, …}]}``: the measures sit in a one-element array (or an object)
under each record, so the record's own fields hold no number and "at what times did user
CPU spike?" found no column to rank by. When the question names such a nested measure (by
its name, or by a word it abbreviates: "usr" for "user"), the records holding its top
values stay, a few of them, since a spike lasts several samples.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..tables.select import asked_directions, names_abbreviated
from .stats import FieldStats

TOP = 3  # records kept per named nested measure and direction
_MAX_NAMED = 2  # more nested measures named by one question: it names none in particular


def nested_extremes(items: Sequence[Any], stats: dict[str, FieldStats], query: str) -> set[int]:
    """Indices of the records holding the top (and, when asked, bottom) values of each
    nested numeric field the question names; empty when it names none or more than
    ``_MAX_NAMED``."""
    if not query:
        return set()
    qlow = query.lower()
    measures: dict[str, list[tuple[float, int]]] = {}
    for name, fs in stats.items():
        if fs.types.get("array", 0) + fs.types.get("object", 0) < fs.present:
            continue
        for i, it in enumerate(items):
            v = it.get(name) if isinstance(it, dict) else None
            if isinstance(v, list) and len(v) == 1:
                v = v[0]
            if isinstance(v, dict):
                for k, x in v.items():
                    if type(x) in (int, float):
                        measures.setdefault(f"{name}\0{k}", []).append((x, i))
    named = [key for key in measures if names_abbreviated(key.split("\0", 1)[1], qlow)]
    if not named or len(named) > _MAX_NAMED:
        return set()
    want_max, want_min = asked_directions(qlow)
    if not want_min:
        want_max = True
    out: set[int] = set()
    for key in named:
        ranked = sorted(measures[key], key=lambda p: (-p[0], p[1]))
        if want_max:
            out.update(i for _, i in ranked[:TOP])
        if want_min:
            out.update(i for _, i in ranked[-TOP:])
    return out
