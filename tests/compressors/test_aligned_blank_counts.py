"""An aligned table's gutters for several shares come from one reading of the sample
(``aligned._blank_counts``): checked against a plain count per position and share."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from headroom.compressors.tables import aligned

_ROW = st.text(alphabet=" ab1\té", min_size=1, max_size=30)


def _plain_starts(sample: list[str], share: float) -> tuple[int, ...] | None:
    """Column starts by counting each position's blanks row by row (a non-ASCII
    character is no blank; past a row's end is none either)."""
    width, n = max(map(len, sample)), len(sample)
    starts, in_text = [0], False
    for p in range(width):
        reach = sum(1 for ln in sample if len(ln) > p)
        if reach < aligned._REACH * n:
            break
        blanks = sum(1 for ln in sample if len(ln) > p and ln[p] == " ")
        if blanks < share * reach:
            in_text = True
        elif in_text:
            starts.append(p + 1)
            in_text = False
    else:
        if not in_text and len(starts) > 1:
            starts.pop()
    return tuple(starts) if len(starts) >= aligned.MIN_COLUMNS else None


@settings(max_examples=300, deadline=None)
@given(st.lists(_ROW, min_size=1, max_size=12))
def test_one_reading_serves_every_share(sample: list[str]) -> None:
    counts = aligned._blank_counts(sample)
    for share in (1.0, aligned._GUTTER, *aligned._LOOSE_GUTTERS):
        assert aligned._starts_at(counts, share) == _plain_starts(sample, share)


def test_a_table_sample() -> None:
    sample = ["alpha  10  x", "beta   2   yy", "gamma  300 z"]
    assert aligned._starts_at(aligned._blank_counts(sample), 1.0) == (0, 6, 11)  # one past each gutter's first blank
