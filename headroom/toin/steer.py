"""What compressors do with TOIN hints. Each compressor reads its hints in one place and
calls one of these, so the learned part of a decision lives here, not in their code.

- Record arrays (SmartCrusher): items the learned fields need stay in view: the lowest
  and highest of a preserved metric or timestamp, one item per value of a preserved
  categorical field, every rare value of an anomaly field; the keep budget grows to the
  suggested one.
- Text outputs (logs, search): only the budget applies.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from .signature import CATEGORICAL, DOMINANT_SHARE, ERROR_INDICATOR, METRIC, RARE_SHARE, TIMESTAMP

TOIN_KEPT = "toin"
# A categorical field with more distinct values than this is not worth one item per value.
_MAX_VALUES_PER_FIELD = 12


def budget(hints: Any, default: int) -> int:
    """The item/line cap a compressor uses: its own, or the learned one when larger."""
    learned = getattr(hints, "budget", None) if hints else None
    return max(default, learned) if learned else default


def _orderable(v: Any, semantic: str) -> Any:
    if isinstance(v, bool) or v is None:
        return None
    if isinstance(v, (int, float)):
        return v
    if semantic == TIMESTAMP and isinstance(v, str):
        return v  # ISO-8601 strings sort in time order
    return None


def hinted_items(items: Sequence[Any], hints: Any) -> set[int]:
    """Indices the hints ask to keep in view (empty without hints)."""
    if not hints or not getattr(hints, "preserve", None):
        return set()
    out: set[int] = set()
    n = len(items)
    cap = max(hints.budget or 0, 15)
    for name, semantic in hints.preserve.items():
        col = [(i, it.get(name)) for i, it in enumerate(items) if isinstance(it, dict) and name in it]
        if not col:
            continue
        if semantic in (METRIC, TIMESTAMP):
            ordered = [(o, i) for i, v in col if (o := _orderable(v, semantic)) is not None]
            # Numbers mixed with strings cannot be ordered: leave such a field alone.
            if ordered and len({isinstance(o, str) for o, _ in ordered}) == 1:
                out.add(min(ordered)[1])  # the first of equal extremes, either way
                out.add(max(ordered, key=lambda oi: (oi[0], -oi[1]))[1])
        elif semantic in (CATEGORICAL, ERROR_INDICATOR):
            first: dict[str, int] = {}
            counts: dict[str, int] = {}
            for i, v in col:
                key = repr(v)
                first.setdefault(key, i)
                counts[key] = counts.get(key, 0) + 1
            if len(first) <= _MAX_VALUES_PER_FIELD:
                out.update(first.values())
            if name in hints.anomaly_fields and len(first) > 1 and max(counts.values()) >= DOMINANT_SHARE * n:
                rare = [i for i, v in col if counts[repr(v)] <= RARE_SHARE * n]
                out.update(rare[:cap])
    return out


def steer_plan(plan: Any, items: Sequence[Any], hints: Any) -> Any:
    """Add the hinted items to a SmartCrusher keep plan (kept order stays the original's)."""
    extra = hinted_items(items, hints)
    if not extra:
        return plan
    plan.must[TOIN_KEPT] = extra
    plan.kept = sorted(set(plan.kept) | extra)
    return plan
