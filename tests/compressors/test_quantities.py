"""One reading of quantities with units for every selector (tables, listings)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from headroom.compressors.tables.quantities import has_unit, quantity


def test_units_as_the_programs_print_them():
    assert quantity("4.0K") == 4096
    assert quantity("250Mi") == 250 * 1024 ** 2
    assert quantity("1.5G") == 1.5 * 1024 ** 3
    assert quantity("512B") == 512
    assert quantity("94%") == 94
    assert quantity("-3") == -3
    assert quantity("3KiB") == 3072
    assert quantity("abc") is None and quantity("4.0.1") is None and quantity(None) is None
    assert has_unit("2.0M") and has_unit("94%") and not has_unit("12")


@given(a=st.floats(0, 1e6), b=st.floats(0, 1e6), ua=st.sampled_from(["", "K", "M", "G", "T"]),
       ub=st.sampled_from(["", "K", "M", "G", "T"]))
def test_order_follows_the_size_whatever_the_unit(a, b, ua, ub):
    """A column of sizes in mixed units orders as the sizes do (what ranking needs)."""
    scale = {"": 1, "K": 1024, "M": 1024 ** 2, "G": 1024 ** 3, "T": 1024 ** 4}
    x, y = quantity(f"{a:.1f}{ua}"), quantity(f"{b:.1f}{ub}")
    assert x is not None and y is not None
    if round(a, 1) * scale[ua] < round(b, 1) * scale[ub]:
        assert x < y
