"""A column's type tests stop early (tables/select.py ``_reaches``): the answer must be
the one counting every sampled cell gives, or a column would change type."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from headroom.compressors.tables.select import _NUMERIC_SHARE, _reaches, number


@settings(max_examples=2000, deadline=None)
@given(st.lists(st.one_of(st.none(), st.sampled_from(["1", "x", "", "2.5", "NA", "0", "-", "1e999"]),
                          st.integers(), st.floats(allow_nan=True)), max_size=20),
       st.sampled_from([_NUMERIC_SHARE, _NUMERIC_SHARE / 2, 0.0, 1.0]))
def test_stopping_early_answers_as_counting_all(cells, share):
    sample = tuple(cells)
    bound = share * len(sample)
    counted = sum(1 for c in sample if number(c) is not None) >= bound
    assert _reaches(bound, number, sample) == counted
