"""split_number_runs reads a run's numbers with one match of the joined words, and only
when the runs are long enough to split (issue 34): the same columns as matching every
word of every run first (the columns themselves are built as before)."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from headroom.compressors.tables.aligned import split_number_runs

_NUMBER_WORD = re.compile(r"^[-+]?\d[\d.,:]*[KMGTkmgt%]?$")


def _width_the_long_way(names: list[str], body: list[list[str]]) -> int | None:
    """How many columns the last one became as split_number_runs read the runs before
    (every word of every run matched, then the run lengths looked at); None: unchanged."""
    if not body or not names:
        return None
    runs = [r[-1].split() for r in body if len(r) == len(names) and r[-1].split()]
    if not runs:
        return None
    counts = [len(x) for x in runs]
    k = max(set(counts), key=counts.count)
    numeric = sum(1 for x in runs if len(x) >= k and all(_NUMBER_WORD.match(w) for w in x[:k]))
    wide = max(counts) if counts.count(max(counts)) >= 3 else k
    return wide if wide >= 2 and numeric >= 0.9 * len(counts) else None


_word = st.sampled_from(["12", "-3", "+4.5", "1,024", "12:30", "7K", "99%", "0x1f", "abc", "1.2.3", "5 ", "-", "3e5"])
_cell = st.lists(_word, max_size=5).map(" ".join)


@settings(max_examples=400, deadline=None)
@given(names=st.sampled_from([["a", "b"], ["column 1", "column 2"], ["x"], []]),
       body=st.lists(st.lists(_cell, min_size=1, max_size=3), max_size=12))
def test_same_columns_as_reading_every_number(names, body):
    got_names, got_rows = split_number_runs(list(names), [list(r) for r in body])
    wide = _width_the_long_way(list(names), body)
    if wide is None:
        assert (got_names, got_rows) == (list(names), body)
    else:
        assert len(got_names) == len(names) - 1 + wide
        assert got_names[:len(names) - 1] == list(names[:-1])
