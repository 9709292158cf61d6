"""The code compressor's cheaper passes (issue 34) against the plain definitions they
replace: the same masked text, the same description spans, the same unit scores and the
same anchor matches, on generated inputs that crowd the edge cases together (quotes inside
comments, comment openers inside strings, stop words behind suffixes, non-ASCII text)."""

from __future__ import annotations

import re

from hypothesis import given, settings
from hypothesis import strategies as st

from headroom.compressors.code.blocks import (
    _ASSIGNED_NAME,
    _CALL_NAME,
    _FUNCTION_KEYWORD,
    Unit,
    doc_spans,
    line_starts,
)
from headroom.compressors.code.mask import _MULTI
from headroom.compressors.code.mask import mask as fast_mask
from headroom.compressors.code.numbered import is_numbered, split_numbers
from headroom.compressors.code.select import (
    _naming_an_anchor,
    keep_whole,
    scores,
    terms,
    unit_term_counts,
)
from headroom.query.anchors import extract_anchors
from headroom.relevance.bm25 import BM25

# -- Masking: one pass, each multi-line token leaving its line breaks ------------------------------

# The definition, as first written: per syntax, the tokens that may span lines and those
# confined to one line, each pattern as plain as it reads (mask.py's are rearranged so
# that every one opens with a character class the engine can skip to).
_DEF_MULTI = {
    "python": r'"""[^"\\]*(?:(?:\\[\s\S]|"(?!""))[^"\\]*)*"""' + "|" + r"'''[^'\\]*(?:(?:\\[\s\S]|'(?!''))[^'\\]*)*'''",
    "js": r"/\*[\s\S]*?\*/|`(?:[^`\\]|\\[\s\S])*`",
    "c": r"/\*[\s\S]*?\*/|^\#(?:[^\n\\]|\\[\s\S])*",
    "go": r"/\*[\s\S]*?\*/|`[^`]*`",
    "rust": r"/\*[\s\S]*?\*/|r(?P<hashes>\#*)\"[\s\S]*?\"(?P=hashes)|\"(?:[^\"\\]|\\[\s\S])*\"",
    "shell": r"<<-?[ \t]*(?P<q>['\"]?)(?P<tag>\w+)(?P=q)[^\n]*\n[\s\S]*?\n[ \t]*(?P=tag)(?=\n|$)"
             r"|'[^']*'|\"(?:[^\"\\]|\\[\s\S])*\"",
}
_DEF_SINGLE = {
    "python": r"""\#[^\n]*|"[^"\\\n]*(?:\\.[^"\\\n]*)*"|'[^'\\\n]*(?:\\.[^'\\\n]*)*'""",
    "js": r"""(?:(?<=[(,=:\[!&|?{};])|(?<=[(,=:\[!&|?{};] )|(?<=return ))/(?![/*])"""
          r"""(?:[^/\\\n\[]|\\.|\[(?:[^\]\\\n]|\\.)*\])+/"""
          r"""|//[^\n]*|"[^"\\\n]*(?:\\.[^"\\\n]*)*"|'[^'\\\n]*(?:\\.[^'\\\n]*)*'""",
    "c": r"""//[^\n]*|"[^"\\\n]*(?:\\.[^"\\\n]*)*"|'[^'\\\n]*(?:\\.[^'\\\n]*)*'""",
    "go": r"""//[^\n]*|"[^"\\\n]*(?:\\.[^"\\\n]*)*"|'[^'\\\n]*(?:\\.[^'\\\n]*)*'""",
    "rust": r"""//[^\n]*|'(?:[^'\\\n]|\\.[^'\n]{0,9})'""",
    "shell": r"""(?<![\w$#{])\#[^\n]*""",
}


def one_pass_mask(text: str, syntax: str) -> str:
    """The definition: every string and comment, found in one left-to-right pass, is
    dropped, but the line breaks of those that may span lines stay. (Masking used to find
    the multi-line tokens again in what the pass left: where dropping a one-line token
    brought a "#" to a line start or two quotes together, that second pass read a token
    the file does not hold, e.g. C's '""#' became '', not '#'.)"""
    pattern = re.compile(f"(?:(?P<keep>{_DEF_MULTI[syntax]})|{_DEF_SINGLE[syntax]})", re.MULTILINE)
    out, pos = [], 0
    for m in pattern.finditer(text):
        out.append(text[pos:m.start()])
        if m.group("keep") is not None:
            out.append("\n" * m.group().count("\n"))
        pos = m.end()
    return "".join(out) + text[pos:]


_CODE_BITS = st.sampled_from([
    "x", " ", "\t", "\n", "'", '"', '"""', "'''", "#", "//", "/*", "*/", "`", "\\", "{", "}", "(", ")",
    "<<EOF\n", "\nEOF\n", "<<-'END'\n", "\n\tEND\n", "r#\"", "\"#", "= /", "/g", "return /a/", "é", "def f():",
])


@settings(max_examples=1000, deadline=None)
@given(bits=st.lists(_CODE_BITS, max_size=60), syntax=st.sampled_from(sorted(_MULTI)))
def test_mask_equals_the_one_pass_definition(bits, syntax):
    text = "".join(bits)
    out = fast_mask(text, syntax)
    assert out == one_pass_mask(text, syntax)
    assert out.count("\n") == text.count("\n")


# -- Block comments on lines of their own --------------------------------------------------------

_BLOCK_COMMENT = re.compile(r"^[ \t]*/\*(?:[^*\n]|\*(?!/))*(?:\n(?:[^*\n]|\*(?!/))*)*?\*/[ \t]*$", re.MULTILINE)


@settings(max_examples=400, deadline=None)
@given(bits=st.lists(st.sampled_from(["/*", "*/", "*", "/", " ", "\t", "\n", "\r\n", "x", "/**/", "/*/"]),
                     max_size=50))
def test_doc_spans_equal_the_regex_definition(bits):
    text = "".join(bits)
    lines = text.split("\n")
    starts = line_starts(text)
    expected = [(bisect_line(starts, m.start()), bisect_line(starts, m.end() - 1)) for m in _BLOCK_COMMENT.finditer(text)]
    assert doc_spans(text, lines, [], "brace") == expected
    assert doc_spans(text, lines, [], "brace", line_starts(text, lines)) == expected


def bisect_line(starts: list[int], offset: int) -> int:
    return max(i for i, s in enumerate(starts) if s <= offset)


# -- Scores: the question's terms counted, not every unit's Counter ---------------------------

_WORDS = st.sampled_from([
    "parse", "parses", "parsed", "parsing", "parseArgs", "pipe", "pipes", "piped", "the", "return", "returns",
    "self", "values", "value", "using", "uses", "set", "sets", "this", "does", "class", "ss", "pass", "passes",
    "café", "naïve", "x1", "42", "_", "read_file", "READ", "Reading", "i", "me", "#", "{", "}", "(", ")", "  ",
])
_LINE = st.lists(_WORDS, max_size=8).map(" ".join)


@st.composite
def _file_and_units(draw):
    lines = draw(st.lists(_LINE, min_size=1, max_size=25))
    units = []
    for _ in range(draw(st.integers(0, 8))):
        a = draw(st.integers(0, len(lines) - 1))
        b = draw(st.integers(a, len(lines) - 1))
        doc = draw(st.integers(-1, a))
        units.append(Unit(name=draw(st.sampled_from(["", "parseArgs", "read_pipe", "the", "x"])),
                          kind=draw(st.sampled_from(["function", "block", "container"])), header=a,
                          body_start=a, body_end=b, indent="", doc_start=doc))
    return lines, units


@settings(max_examples=300, deadline=None)
@given(file=_file_and_units(), query=st.lists(_WORDS, max_size=6).map(" ".join))
def test_scores_equal_bm25_over_every_units_counter(file, query):
    lines, units = file
    text = "\n".join(lines)
    q = terms(query)
    expected = BM25.scores_from_counts(unit_term_counts(units, lines), q) if q else [0.0] * len(units)
    assert scores(units, lines, query) == expected
    assert scores(units, lines, query, None, text, line_starts(text, lines)) == expected


@settings(max_examples=300, deadline=None)
@given(file=_file_and_units(), query=st.lists(_WORDS, max_size=4).map(lambda w: " ".join(f"`{x}`" for x in w)))
def test_anchor_matches_by_slices_equal_matches_per_unit(file, query):
    lines, units = file
    text = "\n".join(lines)
    anchors = extract_anchors(query)
    expected = [i for i, u in enumerate(units)
                if u.kind != "container" and anchors.matches("\n".join(
                    lines[u.doc_start if u.doc_start >= 0 else u.header: u.body_end + 1]))]
    assert _naming_an_anchor(units, lines, anchors.terms, text, line_starts(text, lines)) == expected
    assert _naming_an_anchor(units, lines, anchors.terms, None, None) == expected
    assert keep_whole(units, lines, query, anchors, None, text, line_starts(text, lines)) == \
        keep_whole(units, lines, query, anchors)


# -- Line-numbered listings ------------------------------------------------------------------

_NUMBER_PREFIX = re.compile(r"^ *\d+(?:\t|→)", re.MULTILINE)  # the definition: a "^"-led pattern


@settings(max_examples=400, deadline=None)
@given(bits=st.lists(st.sampled_from(["  12\t", "3→", " 7", "\t", "→", "x", " ", "\n", "42\tdef f():", "\n\n"]),
                     max_size=40))
def test_numbered_listings_split_as_the_line_start_pattern_defines(bits):
    text = "".join(bits)
    lines = text.split("\n")
    prefixes = _NUMBER_PREFIX.findall(text)
    trailing = 1 if lines and lines[-1] == "" else 0
    expected = None if len(prefixes) != len(lines) - trailing else \
        (_NUMBER_PREFIX.sub("", text), prefixes + [""] * trailing)
    assert split_numbers(text) == expected
    head = text[:4000]
    n = head.count("\n") + (0 if head.endswith("\n") else 1)
    assert is_numbered(text) == (n >= 3 and len(_NUMBER_PREFIX.findall(head)) >= 0.9 * n)


# -- Function headers: names found where names start --------------------------------------------

_DEF_CALL_NAME = re.compile(r"\[?([~\w$#]+)\]?\s*(?:<[^()]*>)?\s*\(")
_DEF_ASSIGNED_NAME = re.compile(r"([\w$]+)\s*[:=]\s*(?:async\s*)?(?:function\b|\(|[\w$]+\s*=>)")
_DEF_FUNCTION_KEYWORD = re.compile(r"\b(?:function|fn|func)\b")
_HEADER_BITS = st.sampled_from(["f", "fn", "func", "function", "functions", "x", "$a", "#p", "~D", "[k]", "[", "]",
                                "(", ")", " ", "\t", "=", ":", "=>", "async", "<T>", "<", ">", "if", "é", "_1"])


@settings(max_examples=1000, deadline=None)
@given(bits=st.lists(_HEADER_BITS, max_size=25))
def test_header_patterns_find_what_the_unanchored_ones_find(bits):
    header = "".join(bits)
    found = [(m.span(), m.group(1)) for m in _CALL_NAME.finditer(header)]
    assert found == [(m.span(), m.group(1)) for m in _DEF_CALL_NAME.finditer(header)]
    a, b = _ASSIGNED_NAME.search(header), _DEF_ASSIGNED_NAME.search(header)
    assert (a and (a.span(), a.group(1))) == (b and (b.span(), b.group(1)))
    a, b = _FUNCTION_KEYWORD.search(header), _DEF_FUNCTION_KEYWORD.search(header)
    assert (a and a.span()) == (b and b.span())
