"""The search compressor's fast paths give exactly what the plain ones give.

Each shortcut taken for speed has a plain counterpart in the code base or in the module
itself: BM25 scores against :class:`headroom.relevance.bm25.BM25`, the one-pass parse
against the line-by-line reading (taken whenever a line break other than "\\n" occurs), the
single-symbol marking against the symbol regex (taken when more than one symbol is
searched), the anchored lines against :func:`headroom.compressors.text.anchored_indices`,
a plain command line's words against shlex's.
"""

from __future__ import annotations

import shlex

from hypothesis import example, given, settings
from hypothesis import strategies as st

from headroom.compressors.search import symbol
from headroom.compressors.search.compressor import _with_context, anchored_hits
from headroom.compressors.search.definitions import (
    _MARK,
    FAMILIES,
    DefinitionFinder,
    _mark_one,
    _symbol_rx,
)
from headroom.compressors.search.parse import Hit, parse_search
from headroom.compressors.search.relevance import bm25_scores
from headroom.compressors.text import anchored_indices
from headroom.query.anchors import Anchors
from headroom.relevance.bm25 import BM25

_WORDS = ["ec_key", "EC_KEY", "key", "the", "def", "x.y", "a-b", "10.0.0.1", "user_42", "Undefined", "::",
          "(", ")", "{", "}", ";", "=", ":", "/", ".", "-", "é", "Σ", "İ", " ", "  ", "\t", "$", "_", "#define"]
_line = st.lists(st.sampled_from(_WORDS), max_size=12).map("".join)


@settings(max_examples=100, deadline=None)
@given(query=_line, docs=st.lists(_line, max_size=12))
# A query set rebuilt from another set's order summed in another order (last-bit difference).
@example(query="a-b", docs=["ec_key(a-b", "ec_keyec_keyec_keyec_keyec_keyec_keya-b"])
def test_bm25_scores_are_the_index_floats(query: str, docs: list[str]) -> None:
    assert bm25_scores(query, docs) == BM25(docs).scores(query)


def test_bm25_scores_of_a_search() -> None:
    docs = ["EC_KEY *EC_KEY_new(void);", "typedef struct ec_key_st EC_KEY;", "int EC_KEY_up_ref(EC_KEY *r);",
            "the key of the curve", "", "/* EC_KEY functions */"]
    query = "Which file and line define EC_KEY? Show me the definition."
    assert bm25_scores(query, docs) == BM25(docs).scores(query)
    assert bm25_scores("", docs) == [0.0] * len(docs)


_PATHS = ["src/a.py", "./b.c", "lib/c d.rs", "x.h", "12", "dir/"]
_TEXTS = ["def f():", "  x = 1", "12:5:col", "", ":", "3-4", "binary file matches", "a:b:c"]


def _search_line(draw) -> str:
    kind = draw(st.integers(0, 7))
    path, text, n = draw(st.sampled_from(_PATHS)), draw(st.sampled_from(_TEXTS)), draw(st.integers(1, 99))
    return [f"{path}:{n}:{text}", f"{path}-{n}-{text}", f"{n}:{text}", f"{n}-{text}", path, f"{path}:{text}",
            draw(st.sampled_from(["", "--", "  ", "grep: x.pyc: binary file matches"])), text][kind]


@st.composite
def _search_output(draw) -> str:
    return "\n".join(_search_line(draw) for _ in range(draw(st.integers(0, 14))))


@settings(max_examples=150, deadline=None)
@given(text=_search_output())
def test_one_pass_parse_reads_every_line_as_the_line_by_line_reading(text: str) -> None:
    # With "\r\n" line ends the lines are the same and are read one by one.
    assert parse_search(text) == parse_search(text.replace("\n", "\r\n"))


_CODE = ["def ", "class ", "fn ", "pub ", "struct ", "#define ", "typedef ", "function ", "const ", "    ",
         "int ", "*", "(", ")", " = ", ";", "{", "x", "_", "$", ".", "::", "EC_KEY", "EC_KEY", "EC_KEYS", "aEC_KEY"]


@settings(max_examples=150, deadline=None)
@given(parts=st.lists(st.sampled_from(_CODE), max_size=10), family=st.sampled_from([*FAMILIES, ""]))
def test_single_symbol_marking_ranks_as_the_symbol_regex(parts: list[str], family: str) -> None:
    text = "".join(parts)
    # A second symbol that never occurs sends the same line through the regex.
    assert DefinitionFinder(frozenset({"EC_KEY"})).rank(text, family) == \
        DefinitionFinder(frozenset({"EC_KEY", "zz_absent_zz"})).rank(text, family)


_ANCHOR_TERMS = ["ec_key", "key", "x.py", "def", "é", "σ", "a\nb", "10"]


@settings(max_examples=100, deadline=None)
@given(terms=st.sets(st.sampled_from(_ANCHOR_TERMS), max_size=4),
       lines=st.lists(st.tuples(st.sampled_from(_PATHS), _line), max_size=12), limit=st.integers(0, 5))
def test_anchored_hits_are_the_anchored_lines(terms: set[str], lines: list[tuple[str, str]], limit: int) -> None:
    anchors = Anchors(frozenset(terms))
    matches = [Hit(path, k + 1, text) for k, (path, text) in enumerate(lines)]
    assert anchored_hits(anchors, matches, limit) == \
        anchored_indices(anchors, [f"{h.path}:{h.text}" for h in matches], limit)


@settings(max_examples=150, deadline=None)
@given(command=st.lists(st.sampled_from(["rg", "-n", "grep", "-rnw", "x.py", "|", "git", "-e", "foo_bar", "#", "&&",
                                         "cd", "(", ";", "$X", "*", " ", "  ", "\t", "\n", "\r"]), max_size=12).map("".join))
def test_a_plain_command_splits_as_shlex_splits_it(command: str) -> None:
    # What command_patterns splits with str.split (no quotes, escapes or odd spaces).
    assert command.isascii() and not any(c in command for c in symbol._SHELL_SPECIAL)
    assert command.split() == shlex.split(command, comments=False)


@settings(max_examples=100, deadline=None)
@given(lines=st.lists(st.integers(1, 30), max_size=20), pick=st.lists(st.booleans(), min_size=20, max_size=20))
def test_without_context_lines_a_file_shows_its_chosen_matches(lines: list[int], pick: list[bool]) -> None:
    # The compressor skips _with_context when no hit is a context line.
    hits = [Hit("a.py", n, f"line {n}") for n in sorted(lines)]
    chosen = {id(h) for h, p in zip(hits, pick) if p}
    assert _with_context(hits, chosen) == [h for h in hits if id(h) in chosen]


@settings(max_examples=150, deadline=None)
@given(parts=st.lists(st.sampled_from([*_CODE, "é", "1", "$"]), max_size=12))
def test_single_symbol_marking_is_the_regex_substitution(parts: list[str]) -> None:
    head = "".join(parts)
    marked, n = _symbol_rx(frozenset({"EC_KEY"})).subn(_MARK, head)
    first = head.find("EC_KEY")
    assert (_mark_one(head, "EC_KEY", first) if first >= 0 else None) == (marked if n else None)
