"""The keep plan for an extreme asked of a nested listing (:mod:`.asked_field` finds the
field): the item(s) holding the extreme whole, every item's value of the field, ranked and
named, as the marker's summary (the compact column), and the rest behind the marker. A
listing grouped by key (version → files) is one listing for it (:func:`grouped_items`)."""

from __future__ import annotations

from typing import Any

from ...query.anchors import Anchors
from .asked_field import AskedExtreme, ranked, sort_key, value_at
from .keep_plan import ANCHORS, EXTREMES, KeepPlan, anchor_indices
from .rows import RowIndex

_TIES = 5  # items sharing the extreme value kept whole
_NAME_CHARS = 80
# Column entries at most: the issue-tracker pages and release lists this is for hold 20-500
# items; a 10 000-item listing would make the marker itself a page (the rest is in the
# original, behind the marker).
_COLUMN_MAX = 500


def extreme_positions(items: list[Any], asked: AskedExtreme) -> set[int]:
    """The items holding each asked field's extreme (ties up to a cap), at both ends when
    the question gives no direction. The runners-up need not be whole: the column ranks
    every item."""
    out: set[int] = set()
    for path in asked.paths:
        for direction in ((1, -1) if asked.direction == 0 else (asked.direction,)):
            order = ranked(items, path, direction)
            if not order:
                continue
            top = sort_key(value_at(items[order[0]], path))
            ties = [i for i in order[:_TIES] if sort_key(value_at(items[i], path)) == top]
            out.update(ties)
    return out


def _label(item: Any, asked: AskedExtreme, i: int) -> str:
    v = value_at(item, asked.name_path) if asked.name_path else None
    s = f"#{i}" if v is None else str(v)
    return s if len(s) <= _NAME_CHARS else s[: _NAME_CHARS - 1] + "…"


def _shown(v: Any) -> str:
    """A column cell: an array's length, a float to 6 significant digits (the kept items
    and the original carry the exact value), anything else as written."""
    if isinstance(v, (list, dict)):
        return str(len(v))
    if isinstance(v, float):
        return f"{v:.6g}"
    return str(v)


def column_note(items: list[Any], asked: AskedExtreme) -> str:
    """Every item's value of the asked field(s), by the item's name, ranked in the asked
    direction (largest first when none): the compact column the reader ranks by. Past
    _COLUMN_MAX items, the top _COLUMN_MAX in that order."""
    direction = asked.direction or 1
    order = ranked(items, asked.paths[0], direction)
    ranked_set = set(order)
    order += [i for i in range(len(items)) if i not in ranked_set]  # no comparable value: last
    fields = ", ".join(".".join(p) for p in asked.paths)
    if any(isinstance(value_at(items[order[0]], p), (list, dict)) for p in asked.paths):
        fields += " (entries)"
    by = f"by {'.'.join(asked.name_path)}" if asked.name_path else "by position"
    first = "largest/latest first" if direction > 0 else "smallest/earliest first"
    cells = ("{}={}".format(_label(items[i], asked, i), "/".join(_shown(value_at(items[i], p)) for p in asked.paths))
             for i in order[:_COLUMN_MAX])
    scope = f"of all {len(items)} items" if len(items) <= _COLUMN_MAX else \
        f"of the first {_COLUMN_MAX} of {len(items)} items in this order"
    return f"{fields} {scope} {by}, {first}: " + "; ".join(cells)


def plan_asked_extreme(items: list[Any], texts: list[str], asked: AskedExtreme, anchors: Anchors) -> KeepPlan:
    """Keep plan: the extreme items whole, items the question names, and the column of
    the asked field in the marker; everything else behind the marker."""
    named = anchor_indices(RowIndex(texts), anchors) if anchors else set()
    must = {EXTREMES: extreme_positions(items, asked), ANCHORS: named}
    return KeepPlan(sorted(must[EXTREMES] | named), must, note=column_note(items, asked))


def grouped_items(value: dict, min_groups: int) -> list[tuple[Any, Any]] | None:
    """A listing grouped by key (PyPI's ``releases``: version → array of files): every
    value an array, nearly all of them non-empty arrays of objects, at least
    ``min_groups`` keys. Its items as (key, item) pairs in order; None for anything else."""
    if len(value) < min_groups or not all(isinstance(v, list) for v in value.values()):
        return None
    filled = [v for v in value.values() if v]
    if len(filled) * 10 < 9 * len(value) or not all(isinstance(x, dict) for v in filled for x in v):
        return None
    return [(k, x) for k, v in value.items() for x in v]
