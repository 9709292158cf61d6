"""split_number_runs reads a run's numbers with one match of the joined words, and only
when the runs are long enough to split (issue 34): the same columns as matching every
word of every run first."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from headroom.compressors.tables.aligned import split_number_runs

_NUMBER_WORD = re.compile(r"^[-+]?\d[\d.,:]*[KMGTkmgt%]?$")


def _split_the_long_way(names: list[str], body: list[list[str]]) -> tuple[list[str], list[list[str]]]:
    """split_number_runs as it read the runs before: every word of every run matched, and
    the numbers counted before the run lengths were looked at."""
    if not body or not names:
        return names, body
    width = len(names)
    lasts = [r[width - 1].split() if len(r) == width else None for r in body]
    counts = [len(x) for x in lasts if x]
    if not counts:
        return names, body
    k = max(set(counts), key=counts.count)
    numeric = sum(1 for x in lasts if x and len(x) >= k and all(_NUMBER_WORD.match(w) for w in x[:k]))
    longest = max(counts)
    wide = longest if sum(1 for c in counts if c == longest) >= 3 else k
    if wide < 2 or numeric < 0.9 * len(counts):
        return names, body
    numbered = re.fullmatch(r"column (\d+)", names[-1])
    first = int(numbered.group(1)) if numbered else 0
    new_names = [*names[:-1], *(names[-1] if j == 0 else f"column {first + j}" if numbered else f"{names[-1]} {j + 1}"
                                for j in range(wide))]
    rows = [[*r[:-1], *x, *[""] * (wide - len(x))] if x and len(x) <= wide else r for r, x in zip(body, lasts)]
    return new_names, rows


_word = st.sampled_from(["12", "-3", "+4.5", "1,024", "12:30", "7K", "99%", "0x1f", "abc", "1.2.3", "5 ", "-", "3e5"])
_cell = st.lists(_word, max_size=5).map(" ".join)


@settings(max_examples=400, deadline=None)
@given(names=st.sampled_from([["a", "b"], ["column 1", "column 2"], ["x"], []]),
       body=st.lists(st.lists(_cell, min_size=1, max_size=3), max_size=12))
def test_same_columns_as_reading_every_number(names, body):
    assert split_number_runs(list(names), [list(r) for r in body]) == _split_the_long_way(list(names), body)
