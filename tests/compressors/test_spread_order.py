"""spread_order (compressors/spread_order.py) is the order of 0..m-1 by bit-reversed
position: built by doubling, it must equal that order sorted by its definition, or the
log and diagnostics compressors' spread of what fits would change."""

from __future__ import annotations

from headroom.compressors.spread_order import spread_order


def _by_definition(m: int) -> list[int]:
    bits = max(1, (m - 1).bit_length())
    return sorted(range(m), key=lambda k: int(format(k, f"0{bits}b")[::-1], 2))


def test_spread_order_is_the_bit_reversed_order():
    for m in [*range(1100), 4095, 4096, 4097, 10_000]:
        assert spread_order(m) == _by_definition(m), m


def test_every_prefix_is_spread():
    assert spread_order(8) == [0, 4, 2, 6, 1, 5, 3, 7]
    assert spread_order(5) == [0, 4, 2, 1, 3]
