"""Questions that rank things by how many parts they hold: "which function takes the most
parameters?", "which object file depends on the most headers?", "the rule with the fewest
prerequisites". The parts are counted, not measured: no column or field holds the count,
the text lists the parts (a signature's arguments, a rule's prerequisites)."""

from __future__ import annotations

import re

# "most"/"fewest"/"least" and a plural noun after at most one other word ("the most
# required parameters"); "most recent", "most likely" name no count.
_COUNTED = re.compile(r"\b(most|fewest|least)\s+(?:[a-z-]+\s+)?([a-z]{3,}s)\b")


def counted_extreme(qlow: str) -> str | None:
    """``"max"`` when the (lower-cased) question asks for the thing with the most parts of
    some kind, ``"min"`` for the fewest, else None."""
    m = _COUNTED.search(qlow[:2000])
    if m is None or m.group(2).endswith("ss"):  # "the most access": a mass noun, no count
        return None
    return "max" if m.group(1) == "most" else "min"


def list_items(cell: str) -> int:
    """How many items a cell lists: its comma-separated parts (1 for a cell without a
    comma)."""
    return cell.count(",") + 1
