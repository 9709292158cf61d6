"""tree._lines_hit: the lines that may continue (YAML, TOML), found by one scan of the
joined text, are the lines a search per line finds."""

from __future__ import annotations

from hypothesis import example, given, settings
from hypothesis import strategies as st

from headroom.compressors.structured.tree import _MAY_CONTINUE_IN_LINE, _lines_hit


@settings(max_examples=800, deadline=None)
@given(st.lists(st.text(alphabet="ab [{(|>'\"\n\r\t", max_size=12), max_size=30))
@example(["a = (none)", "", "b = 1", "[s]", "c = '''x", "'''"])
@example(["x\ny = [", "z"])  # a line holding a newline: searched line by line
def test_lines_hit_matches_a_search_per_line(lines):
    for pattern in _MAY_CONTINUE_IN_LINE.values():
        assert _lines_hit(lines, pattern) == [k for k, ln in enumerate(lines) if pattern.search(ln)]
