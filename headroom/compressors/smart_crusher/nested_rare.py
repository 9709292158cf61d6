"""Records holding a rare type or value one level down.

``redis-cli --json FUNCTION LIST`` gives one record per library, its functions in an
array of objects under it: the one function registered without a description (``null``
among two hundred strings) or with a flag no other carries sits a level below the
record's own fields, where the per-field statistics never look. Each nested key is read
as a column of its own across all records; a type or a value that at most one in
``_RARE_SHARE`` of its entries holds marks the records holding it, when they are few.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import Any

from .stats import FieldStats

_RARE_SHARE = 20  # a type or value at most 1 in this many entries of a nested key holds is rare
_MAX_VALUES = 12  # a nested key of more distinct values is no category (names, descriptions)
_NESTED_SHARE = 0.8  # of a field's entries that must be arrays or objects for it to be read
_SCALARS = (str, bool, int, float, type(None))


def nested_rare_items(items: Sequence[Any], stats: dict[str, FieldStats], cap: int) -> set[int]:
    """Indices of the records holding, one level down, a rare type of a nested key (a
    ``null`` among strings) or a rare value of a nested category (a flag list of its own);
    none for a key whose rare entries are more than ``cap``."""
    out: set[int] = set()
    for name, fs in stats.items():
        if fs.types.get("array", 0) + fs.types.get("object", 0) < _NESTED_SHARE * fs.present:
            continue
        columns: dict[str, list[tuple[int, Any]]] = {}
        for i, it in enumerate(items):
            v = it.get(name) if isinstance(it, dict) else None
            for sub in (v if isinstance(v, list) else (v,)):
                if isinstance(sub, dict):
                    for k, x in sub.items():
                        columns.setdefault(k, []).append((i, x))
        for col in columns.values():
            if len(col) >= _RARE_SHARE:
                out |= _rare_entries(col, cap)
    return out


def _rare_entries(col: list[tuple[int, Any]], cap: int) -> set[int]:
    types = Counter(type(x) for _, x in col)
    rare = [t for t, c in types.items() if c * _RARE_SHARE <= len(col)]
    if rare and sum(types[t] for t in rare) <= cap:
        return {i for i, x in col if type(x) in rare}
    # A category: scalars, or short lists of them (a function's flags), of a few values.
    values = [(i, tuple(x) if isinstance(x, list) and all(isinstance(e, _SCALARS) for e in x) else x)
              for i, x in col]
    if not all(isinstance(x, (*_SCALARS, tuple)) for _, x in values):
        return set()
    counts = Counter(x for _, x in values)
    if not 2 <= len(counts) <= _MAX_VALUES:
        return set()
    odd = {x for x, c in counts.items() if c * _RARE_SHARE <= len(col)}
    if not odd or sum(counts[x] for x in odd) > cap:
        return set()
    return {i for i, x in values if x in odd}
