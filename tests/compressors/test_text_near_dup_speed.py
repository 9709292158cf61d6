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


# Sentences' word sets as a man page has them: a dozen words or two from a small
# vocabulary, each often a near copy of one a few sets back (a word dropped, added or
# swapped), so that every kind of pair test (subset, superset, intersection) decides some.
_vocabulary = st.integers(0, 30).map(lambda k: f"w{k}")
_sentence = st.frozensets(_vocabulary, max_size=24)


@st.composite
def _near_copies(draw) -> list[frozenset]:
    keys: list[frozenset] = []
    for _ in range(draw(st.integers(0, 40))):
        if keys and draw(st.booleans()):
            base = set(draw(st.sampled_from(keys[-8:])))
            base -= set(draw(st.lists(st.sampled_from(sorted(base)), max_size=2))) if base else set()
            base |= set(draw(st.lists(_vocabulary, max_size=2)))
            keys.append(frozenset(base))
        else:
            keys.append(draw(_sentence))
    return keys


@settings(max_examples=400, deadline=None)
@given(keys=_near_copies(), window=st.integers(1, 40), threshold=st.sampled_from([0.85, 0.5, 0.8, 0.9, 0.75, 0.6]))
def test_pair_tests_by_sizes_same_verdicts_as_walking_the_window(keys, window, threshold):
    assert near_duplicates(keys, window, threshold) == plain_sequence(keys, window, threshold)


def test_a_set_one_word_longer_is_near_only_when_it_holds_the_other():
    a = frozenset(f"w{k}" for k in range(8))
    assert near_duplicates([a | {"x"}, a]) == [False, True]  # 8/9 >= 0.85
    assert near_duplicates([(a - {"w0"}) | {"x", "y"}, a]) == [False, False]  # 7/10
