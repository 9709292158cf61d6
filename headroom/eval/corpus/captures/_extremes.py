"""Extreme questions over a nested listing (an array of objects holding objects): the
item holding a field's largest or smallest value, computed from the data's own fields.

A case is made only when the extreme is held by one item (a tie has no single answer)
and the item's name occurs in the output; the fact is that name, marked
``basis="independent"``: it comes from the values the program wrote, not from any rule
a compressor keeps by."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ..cases import fact, make_case
from ..questions import choose


def extreme_item(items: Sequence[Any], value: Callable[[Any], Any], largest: bool) -> Any | None:
    """The one item holding the largest (or smallest) value, or None on a tie or no values."""
    valued = [(v, it) for it in items if (v := value(it)) is not None]
    if not valued:
        return None
    best = max(v for v, _ in valued) if largest else min(v for v, _ in valued)
    holders = [it for v, it in valued if v == best]
    return holders[0] if len(holders) == 1 else None


def extreme_case(source: str, sid: str, *, items: Sequence[Any], value: Callable[[Any], Any], largest: bool,
                 name: Callable[[Any], str], wordings: tuple[str, ...], content: str, tool_name: str,
                 args: dict[str, Any], note: str) -> dict[str, Any] | None:
    """One "which item has the most/least X" case, or None when the extreme is tied or
    its name is not in the output once at least."""
    item = extreme_item(items, value, largest)
    if item is None or name(item) not in content:
        return None
    q = choose(f"{source}/{sid}", wordings)
    return make_case(source, sid, "json", tool_name, args, "extreme", q, content,
                     [fact(name(item), "extreme", f"{note} ({value(item)})", basis="independent")])
