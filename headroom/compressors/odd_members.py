"""What is odd among the same thing said of many: one answer to "which one differs?".

The same row of a table printed per process (``prlimit``'s ``NOFILE`` for each worker), the
same setting of each interface (``net.ipv4.conf.<interface>.forwarding``): each family
holds one member per thing, most members say the usual value, and the one saying
something else is what a reader asks about. The families come from the caller (a table's
groups, a config's dotted keys); this decides which members are odd.
"""

from __future__ import annotations

from collections.abc import Iterable

_ODD_SHARE = 8  # an odd value is held by one member, or by at most one in this many


def odd_members(families: Iterable[dict[str, list[int]]], most: int, min_members: int = 0,
                min_usual: int = 2) -> list[int]:
    """Members (indices) whose value, in a family mapping each value to its members, is
    held by fewer members than the usual one and by one member or one in ``_ODD_SHARE``;
    only in families of ``min_members`` or more whose usual value ``min_usual`` hold. The
    rarest first, then in order; at most ``most``."""
    odd: set[tuple[int, int]] = set()
    for by_value in families:
        if len(by_value) < 2:
            continue
        total = sum(map(len, by_value.values()))
        usual = max(map(len, by_value.values()))
        if total < min_members or usual < min_usual:
            continue  # nothing repeats enough to be usual, so nothing is odd
        odd.update((len(at), i) for at in by_value.values()
                   if len(at) < usual and (len(at) == 1 or _ODD_SHARE * len(at) <= total) for i in at)
    return [i for _, i in sorted(odd)[:most]]
