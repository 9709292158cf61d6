"""The search compressor's fast paths give exactly what the plain ones give.

Each shortcut taken for speed has a plain counterpart in the code base or in the module
itself: BM25 scores against :class:`headroom.relevance.bm25.BM25`, the one-pass parse
against the line-by-line reading (taken whenever a line break other than "\\n" occurs), the
literal-first symbol regex against the plain lookbehind one, the definition ranks of many
lines at once (one substitution over them all) against each line marked and matched on its
own, the anchored lines against :func:`headroom.compressors.text.anchored_indices`, a plain
command line's words against shlex's.
"""

from __future__ import annotations

import re
import shlex

from hypothesis import example, given, settings
from hypothesis import strategies as st

from headroom.compressors.search import definitions, symbol
from headroom.compressors.search.compressor import _with_context, anchored_hits
from headroom.compressors.search.definitions import (
    _HEAD,
    _MARK,
    _NAME_WITHIN,
    FAMILIES,
    STRONG,
    WEAK,
    DefinitionFinder,
    _shapes,
    _symbol_rx,
)
from headroom.compressors.search.parse import Hit, parse_search
from headroom.compressors.search.relevance import bm25_scores
from headroom.compressors.text import anchored_indices
from headroom.query.anchors import Anchors
from headroom.relevance.bm25 import BM25

_WORDS = ["ec_key", "EC_KEY", "key", "the", "def", "x.y", "a-b", "10.0.0.1", "user_42", "Undefined", "::",
          "(", ")", "{", "}", ";", "=", ":", "/", ".", "-", "é", "Σ", "İ", " ", "  ", "\t", "$", "_", "#define",
          "\u212a", "e.g.", "-.-", "a_", "?", "\n"]
_line = st.lists(st.sampled_from(_WORDS), max_size=12).map("".join)


@settings(max_examples=100, deadline=None)
@given(query=_line, docs=st.lists(_line, max_size=12))
# A query set rebuilt from another set's order summed in another order (last-bit difference).
@example(query="a-b", docs=["ec_key(a-b", "ec_keyec_keyec_keyec_keyec_keyec_keya-b"])
# A compound term inside a longer chunk is not that term.
@example(query="ec_key", docs=["ec_key", "ec_keyec_key"])
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


def _plain_rx(symbols: frozenset[str]) -> re.Pattern[str]:
    alts = "|".join(re.escape(s) for s in sorted(symbols, key=len, reverse=True))
    return re.compile(rf"(?<![\w$])(?:{alts})(?![\w$])")


def _plain_rank(text: str, family: str | None, symbols: frozenset[str]) -> int | None:
    """One line on its own: its head marked by the lookbehind regex, then the shapes."""
    if family is None:
        return None
    head = text[:_HEAD]
    first = min((i for s in symbols if (i := head.find(s)) >= 0), default=-1)
    if first < 0 or first > _NAME_WITHIN:
        return None
    marked, n = _plain_rx(symbols).subn(_MARK, head)
    if not n:
        return None
    strong, weak = _shapes(family)
    return STRONG if strong.match(marked) else WEAK if weak.match(marked) else None


_SYMBOL_SETS = [frozenset({"EC_KEY"}), frozenset({"EC_KEY", "KEY"}), frozenset({"x$", "EC_KEY"}), frozenset({"aa"})]
_FAMILY_OR_NONE = st.sampled_from([*FAMILIES, "", None])


@settings(max_examples=300, deadline=None)
@given(lines=st.lists(st.tuples(st.lists(st.sampled_from([*_CODE, "é", "1", "$", "x$", "aaa", "\n", _MARK]),
                                         max_size=10).map("".join), _FAMILY_OR_NONE), max_size=8),
       symbols=st.sampled_from(_SYMBOL_SETS))
def test_definition_ranks_of_many_lines_are_each_lines_own(lines: list[tuple[str, str | None]],
                                                            symbols: frozenset[str]) -> None:
    assert DefinitionFinder(symbols).ranks(lines) == [_plain_rank(t, f, symbols) for t, f in lines]


def test_definition_ranks_of_long_lines() -> None:
    # Heads are cut at _HEAD characters; a name first seen past _NAME_WITHIN is a use.
    pad = " " * (_NAME_WITHIN + 1)
    lines = [("typedef struct ec_key_st EC_KEY;", "c"), (pad + "typedef struct ec_key_st EC_KEY;", "c"),
             ("x" * (_HEAD - 3) + " EC_KEY;", "c"), ("#define EC_KEY 1", None), ("#define EC_KEY 1", "c")]
    got = DefinitionFinder(frozenset({"EC_KEY"})).ranks(lines)
    assert got == [_plain_rank(t, f, frozenset({"EC_KEY"})) for t, f in lines] == [STRONG, None, None, None, STRONG]


_ANCHOR_TERMS = ["ec_key", "key", "x.py", "def", "é", "σ", "a\nb", "10"]


@settings(max_examples=100, deadline=None)
@given(terms=st.sets(st.sampled_from(_ANCHOR_TERMS), max_size=4),
       lines=st.lists(st.tuples(st.sampled_from(_PATHS), _line), max_size=12), limit=st.integers(0, 5))
def test_anchored_hits_are_the_anchored_lines(terms: set[str], lines: list[tuple[str, str]], limit: int) -> None:
    anchors = Anchors(frozenset(terms))
    matches = [Hit(path, k + 1, text) for k, (path, text) in enumerate(lines)]
    assert anchored_hits(anchors, matches, limit) == \
        anchored_indices(anchors, [f"{h.path}:{h.line}:{h.text}" for h in matches], limit)


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


@settings(max_examples=300, deadline=None)
@given(parts=st.lists(st.sampled_from([*_CODE, "é", "1", "$", "x$", "aaa", "\n"]), max_size=12),
       symbols=st.sampled_from(_SYMBOL_SETS))
def test_literal_first_symbol_regex_is_the_lookbehind_regex(parts: list[str], symbols: frozenset[str]) -> None:
    head = "".join(parts)
    assert _symbol_rx(symbols).subn(_MARK, head) == _plain_rx(symbols).subn(_MARK, head)


_GATE = re.compile(r"\(\?=\[[^\]]*\]\*\{S\}\)")  # "(?=[...]*{S})": a shape's opening lookahead


def _ungated(family: str) -> tuple[re.Pattern[str], re.Pattern[str]]:
    strong, weak = definitions._SHAPES[family]
    return tuple(re.compile("|".join(f"(?:{_GATE.sub('', p).replace('{S}', _MARK)})" for p in shapes))
                 for shapes in (strong, weak))


def test_some_shapes_are_gated() -> None:
    assert sum(len(_GATE.findall(p)) for st_, wk in definitions._SHAPES.values() for p in (*st_, *wk)) >= 3


@settings(max_examples=300, deadline=None)
@given(parts=st.lists(st.sampled_from([*_CODE, _MARK, _MARK, "(", ")", ",", "~", "<T>", "&", "::", "[4]", "=", "/* x */",
                                       "return ", "extern ", "static "]), max_size=12),
       family=st.sampled_from(FAMILIES))
def test_gated_shapes_match_as_the_shapes_without_their_gate(parts: list[str], family: str) -> None:
    # The lookahead opening a shape only says early what the shape needs before the name.
    line = "".join(parts)
    gated, plain = _shapes(family), _ungated(family)
    assert [bool(rx.match(line)) for rx in gated] == [bool(rx.match(line)) for rx in plain]


@settings(max_examples=200, deadline=None)
@given(texts=st.lists(st.lists(st.sampled_from(["Σ", "ΑΣ", "σ", "İ", "a", " ", "'", "\u0345", "K", "é", "."]),
                               max_size=6).map("".join), min_size=1, max_size=6))
def test_lines_lower_cased_together_are_each_lower_cased(texts: list[str]) -> None:
    # symbol.searched_symbols and anchored_hits lower-case the lines in one call.
    assert "\n".join(texts).lower().split("\n") == [t.lower() for t in texts]
