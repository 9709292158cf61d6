"""An aligned table's gutters for every share tried come from one reading of the sample
(``aligned._blank_counts``, read by the pure ``aligned._starts_at``): the reading checked
against a plain count per position."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from headroom.compressors.tables import aligned

_ROW = st.text(alphabet=" ab1\té", min_size=1, max_size=30)


def _plain_counts(sample: list[str]) -> aligned._BlankCounts:
    """Per position: the rows with a blank there (a tab or a non-ASCII character is none),
    the rows ending there (one more position, the widest row's end)."""
    width = max(map(len, sample))
    blank = [sum(1 for ln in sample if p < len(ln) and ln[p] == " ") for p in range(width)]
    ends = [sum(1 for ln in sample if len(ln) == p) for p in range(width + 1)]
    return blank, ends, len(sample), width


@settings(max_examples=300, deadline=None)
@given(st.lists(_ROW, min_size=1, max_size=12))
def test_one_reading_counts_what_each_share_reads(sample: list[str]) -> None:
    counts = aligned._blank_counts(sample)
    assert counts == _plain_counts(sample)


def test_a_table_sample() -> None:
    sample = ["alpha  10  x", "beta   2   yy", "gamma  300 z"]
    assert aligned._starts_at(aligned._blank_counts(sample), 1.0) == (0, 6, 11)  # one past each gutter's first blank
