"""TextCrusher's near-duplicate check skips pairs whose set sizes alone rule the
threshold out (issue 34): the same verdict as testing every pair."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from headroom.compressors.text import _near_any, near_duplicates


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


def plain_sequence(keys: list[frozenset], window: int, threshold: float) -> list[bool]:
    """The loop TextCrusher ran before: every set against the last ``window`` kept ones."""
    out, seen, exact = [], [], set()
    for key in keys:
        if key and (key in exact or plain(key, seen[-window:], threshold)):
            out.append(True)
            continue
        out.append(False)
        exact.add(key)
        seen.append(key)
    return out


_maybe_empty = st.frozensets(st.integers(0, 14).map(lambda k: "w" * (k % 4) + str(k)), max_size=12)


@settings(max_examples=300, deadline=None)
@given(keys=st.lists(_maybe_empty, max_size=40), window=st.integers(1, 6),
       threshold=st.sampled_from([0.85, 0.5, 0.8, 0.6]))
def test_filed_by_size_same_verdicts_as_walking_the_window(keys, window, threshold):
    assert near_duplicates(keys, window, threshold) == plain_sequence(keys, window, threshold)
