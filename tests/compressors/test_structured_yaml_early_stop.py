"""``_is_yaml`` stops once its top-level key test must fail (``_keys_fail_anyway``): the
same verdict as reading every line, checked against the reading with the stop switched off."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from headroom.compressors.structured import detect

# Lines of the kinds that move the counts: repeated and distinct top-level keys, keys with
# blanks and digits (a log's prefix), nested keys, items, comments, blanks, plain text.
_LINE = st.one_of(
    st.sampled_from(["import time: 12 | 30 | json", "name: a", "name: b", "postmaster 17 [2] LOG: up",
                     "  child: 1", "- item", "# note", "", "---", "plain words here", "key: |", "  text"]),
    st.builds(lambda k, v: f"{k}: {v}", st.text("abcxyz 19", min_size=1, max_size=6).filter(str.strip),
              st.integers(0, 99)),
)


def _verdict(lines: list[str]) -> bool:
    return detect._is_yaml(lines, [ln for ln in lines if ln.strip()])


@settings(max_examples=400, deadline=None)
@given(st.lists(_LINE, max_size=60))
def test_early_stop_keeps_the_verdict(lines: list[str]) -> None:
    fast = _verdict(lines)
    stop = detect._keys_fail_anyway
    detect._keys_fail_anyway = lambda *_: False
    try:
        full = _verdict(lines)
    finally:
        detect._keys_fail_anyway = stop
    assert fast == full


def test_repeated_keys_stop_early() -> None:
    lines = [f"import time: {i:>6} | {i:>6} | mod{i}" for i in range(200)]
    assert not _verdict(lines)
    assert detect._keys_fail_anyway(21, 0, 200) and not detect._keys_fail_anyway(20, 0, 200)
