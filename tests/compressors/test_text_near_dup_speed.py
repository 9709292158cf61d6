"""TextCrusher's near-duplicate check skips pairs whose set sizes alone rule the
threshold out (issue 34): the same verdict as testing every pair."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from headroom.compressors.text import _near_any


def plain(key: frozenset, recent: list[frozenset], threshold: float = 0.85) -> bool:
    return any(len(key & s) / len(key | s) >= threshold for s in recent)


_sets = st.frozensets(st.integers(0, 40), min_size=1, max_size=30)


@settings(max_examples=400, deadline=None)
@given(key=_sets, recent=st.lists(_sets, max_size=12), threshold=st.sampled_from([0.85, 0.5, 0.8, 0.9, 0.75]))
def test_same_verdict_as_every_pair(key, recent, threshold):
    assert _near_any(key, recent, threshold) == plain(key, recent, threshold)


def test_sizes_at_the_exact_threshold_are_still_tested():
    a = frozenset(range(20))
    b = frozenset(range(17))  # Jaccard 17/20 = 0.85 exactly
    assert _near_any(a, [b]) and _near_any(b, [a])
