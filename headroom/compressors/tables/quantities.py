"""Quantities printed with their unit: one reading for every selector that ranks them.

``ls -lh``, ``du -h``, ``df -h``, ``free -h`` and ``kubectl top`` print sizes as a number
and a unit letter (``2.0M``, ``250Mi``, ``4.0K``, ``512B``); ``df`` prints use as ``94%``.
Those programs count in powers of 1024, so every unit letter does here, upper or lower
case: what matters to a selector is the order of the values in one column, which one
scale keeps. A bare number is itself.
"""

from __future__ import annotations

import re
from typing import Any

# A signed number, a blank at most, then a percent sign or a unit letter (with "i" and a
# byte mark, or a byte mark alone).
_QUANTITY = re.compile(r"\s*([+-]?\d+(?:\.\d+)?)\s?(%|[kKmMgGtTpPE]i?[Bb]?|[Bb])?\s*")
_SCALE = {"%": 1.0, "B": 1.0, "b": 1.0, "k": 1024.0, "K": 1024.0, "m": 1024.0 ** 2, "M": 1024.0 ** 2,
          "g": 1024.0 ** 3, "G": 1024.0 ** 3, "t": 1024.0 ** 4, "T": 1024.0 ** 4, "p": 1024.0 ** 5,
          "P": 1024.0 ** 5, "E": 1024.0 ** 6}


def quantity(cell: Any) -> float | None:
    """The value of a cell printed as a number with or without a unit, else None."""
    m = _QUANTITY.fullmatch(cell) if isinstance(cell, str) else None
    if m is None:
        return None
    number, unit = m.groups()
    return float(number) * (_SCALE[unit[0]] if unit else 1.0)


def has_unit(cell: Any) -> bool:
    """Whether a cell shows a unit (a letter or a percent sign at its end)."""
    if not isinstance(cell, str):
        return False
    end = cell.strip()[-1:]
    return end.isalpha() or end == "%"
