"""The structured compressor's shortcuts (issue 34) answer exactly what the long way does.

Each shortcut skips work on lines that a cheap test shows cannot matter: lines that can
neither continue a logical line (tree.units) nor close or open a block (tree.build), keys
worked out only on lines where the question's words occur (select.select), terms found by
``str.find`` on a lower-cased copy instead of a case-insensitive regex. Each is checked
against the long way on generated lines, drawn from the characters that make the
difference (brackets, quotes, backslashes, template tags, the four non-ASCII letters a
case-insensitive regex matches to ASCII ones).
"""

from __future__ import annotations

import importlib
import re
from bisect import bisect_right

from hypothesis import example, given, settings
from hypothesis import strategies as st

from headroom.compressors.structured.formats import FORMATS

# (the package re-exports the function ``select`` under the module's name)
select_mod = importlib.import_module("headroom.compressors.structured.select")
tree = importlib.import_module("headroom.compressors.structured.tree")

_LINE_CHARS = "ab :-#=\t[]{}()|>\\'\"%<>/"
_LINE = st.text(alphabet=_LINE_CHARS, max_size=12) | st.sampled_from(
    ["", "  ", "key: |", "  - [a,", "  b]", 'x = """', '"""', "a = [", "]", "a \\", "{% if x %}", "{% endif %}",
     "{{ end }}", "{% else %}", "</a>", "<a>", "}", "  ]", "# c", "k = 'v'", "[sec]", "  cont", "<!-- c", "c -->",
     "<!-- c -->", "<![CDATA[x", "]]>", "<a", "  b='c'>", "<a><b", "x <![CDATA[ y ]]>", "<![CDATA[ a > b", "<!-- a > b"])
_LINES = st.lists(_LINE, max_size=30)


@settings(max_examples=300, deadline=None)
@given(lines=_LINES, fmt=st.sampled_from(["yaml", "toml", "properties", "lines", "jsonc", "ini", "xml"]))
@example(lines=["<![CDATA[ a > b", "x", "]]>", "<a/>"], fmt="xml")
@example(lines=["<!-- a > b", "x", "-->", "<a/>"], fmt="xml")
@example(lines=["a: |", "  text", "b: 1"], fmt="yaml")
@example(lines=['x = """', "y", '"""', "z = 1"], fmt="toml")
def test_units_shortcut_gives_the_long_way_s_spans(lines, fmt) -> None:
    fast = tree.units(lines, FORMATS[fmt])
    saved = tree._MAY_CONTINUE
    tree._MAY_CONTINUE = {}
    try:
        slow = tree.units(lines, FORMATS[fmt])
    finally:
        tree._MAY_CONTINUE = saved
    assert fast == slow


def _shape(nodes):
    return [(n.start, n.head_end, n.parent, n.depth, n.end, n.closers, n.opens_block) for n in nodes]


@settings(max_examples=300, deadline=None)
@given(lines=_LINES, fmt=st.sampled_from(["lines", "jsonc", "xml", "jinja", "yaml", "makefile"]))
def test_block_guard_gives_the_long_way_s_tree(lines, fmt) -> None:
    fast = _shape(tree.build(lines, FORMATS[fmt]))
    saved = tree._CLOSE_GUARD
    tree._CLOSE_GUARD = {}
    try:
        slow = _shape(tree.build(lines, FORMATS[fmt]))
    finally:
        tree._CLOSE_GUARD = saved
    assert fast == slow


_TEXT_CHARS = "abkisKIS_ \n0" + select_mod._FOLDS_TO_ASCII + "ßéİ"


@settings(max_examples=400, deadline=None)
@given(text=st.text(alphabet=_TEXT_CHARS, max_size=60),
       terms=st.sets(st.text(alphabet="abkis_0", min_size=1, max_size=3), min_size=1, max_size=3))
def test_term_lines_by_find_are_the_regex_s_lines(text, terms) -> None:
    lines = text.split("\n")
    rx = re.compile("|".join(re.escape(t) for t in sorted(terms, key=len, reverse=True)), re.IGNORECASE)
    offsets = select_mod._line_offsets(lines)
    expected = {bisect_right(offsets, m.start()) - 1 for m in rx.finditer(text)}
    hit, holds_term = select_mod._lines_holding(lines, offsets, terms)
    assert hit == expected
    # a key (cut from its line) the regex finds a term in lies on one of those lines, and
    # the returned test answers for it as the regex does
    for fmt in ("yaml", "toml", "lines", "xml", "properties", "makefile", "sql"):
        for k, ln in enumerate(lines):
            key = tree.key_of(FORMATS[fmt], ln)
            assert holds_term(key) == (rx.search(key) is not None)
            if key and rx.search(key):
                assert k in expected


@given(keep=st.lists(st.booleans(), max_size=40))
def test_dropped_runs_are_the_runs_of_false(keep) -> None:
    runs, i = [], 0
    while i < len(keep):
        if keep[i]:
            i += 1
            continue
        j = i
        while j < len(keep) and not keep[j]:
            j += 1
        runs.append((i, j))
        i = j
    assert list(select_mod.dropped_runs(keep)) == runs


structured_detect = importlib.import_module("headroom.compressors.structured.detect")


@settings(max_examples=400, deadline=None)
@given(line=st.text(alphabet="aZ .!?:\"')]*_\t\n-", max_size=14))
def test_sentence_end_in_two_parts_is_the_one_regex(line) -> None:
    s = line.strip()
    if "\n" in s:
        return  # sampled lines come from splitlines(): never a line break inside
    assert structured_detect.ends_sentence(s) == bool(structured_detect._SENTENCE_END.search(s))


def _is_prose_the_long_way(sample: list[str]) -> bool:
    d = structured_detect
    nonblank = [ln for ln in sample if ln.strip()]
    if not nonblank:
        return False
    wordy = ends = chars = structural = 0
    for ln in nonblank:
        s = ln.strip()
        words = d._WORDS.findall(s)
        if len(words) >= 5 and sum(len(w) for w in words) >= 0.6 * len(s):
            wordy += 1
        ends += bool(d._SENTENCE_END.search(s))
        chars += len(s)
        structural += len(d._STRUCTURAL.findall(s))
    n = len(nonblank)
    indented = sum(1 for ln in nonblank if ln[:2].isspace())  # a layout, not prose
    return wordy >= 0.6 * n and ends >= 0.25 * n and structural <= 0.03 * chars and indented <= 0.5 * n


_PROSE_LINE = st.sampled_from([
    "The quick brown fox jumps over the lazy dog.", "It was the best of times, it was the worst", "short line",
    "Then it ended. And another began", "x = {a: [1, 2]};", "", "   ", "Words words words words words words",
    "See the manual (page 3).", "<tag> $VAR @x # c", "A list item: which ends here:", "one two three four five six",
    "       Indented like a manual page's paragraph, and ends a sentence.", "\tTabbed words of a laid out text here."])


@settings(max_examples=300, deadline=None)
@given(sample=st.lists(_PROSE_LINE, max_size=25))
def test_is_prose_cheapest_test_first_answers_as_all_three(sample) -> None:
    assert structured_detect.is_prose(sample) == _is_prose_the_long_way(sample)


@settings(max_examples=200, deadline=None)
@given(parts=st.lists(st.sampled_from(["a", "\n", "\n", "\r\n", "\r", "\x0b", "\u2028", " "]),
                     min_size=150, max_size=700))
def test_sample_lines_split_to_the_200th_newline_are_the_head_s_first_lines(parts) -> None:
    text = "".join(parts)  # around 200 newlines: either side of the sample's line count
    from headroom.compressors.structured import _SAMPLE_CHARS, _SAMPLE_LINES, sample_lines

    assert sample_lines(text) == text[:_SAMPLE_CHARS].splitlines()[:_SAMPLE_LINES]


_YAML_LINE = st.sampled_from([
    "a: 1", "b: &x 2", "c: *x", "d: *y", "e: &y [1, 2]", "- &x item", "- *x", "---", "...", "--- &x", "f: &x {k: v}",
    "  g: *x", "  - 1", "h:", "  i: &z j", "k: [*z]", "l: {", "m: 'str", "# comment", "n: &x", "o: *", "p: &", "? q",
    ": r", "s: |", "  text", "t: !!str 3", "u: \"*x\"", "v: '&x'", "w: a*b", "x: &a1 &a2 v", "y: [&q 1, *q]"])


@settings(max_examples=500, deadline=None)
@given(lines=st.lists(_YAML_LINE, max_size=10))
def test_yaml_events_check_is_the_composer_s_answer(lines) -> None:
    from headroom.compressors.structured.formats import FORMATS, yaml_composes

    text = "\n".join(lines)
    assert FORMATS["yaml"].check(text) == yaml_composes(text)


@settings(max_examples=300, deadline=None)
@given(line=st.text(alphabet="a=[{( ;#\t:|>-", max_size=12))
def test_detection_guards_are_the_regexes(line) -> None:
    d = structured_detect
    s = line.strip()
    assert s.endswith(d._CODE_ENDS) == bool(d._CODE_END.search(s))
    assert d._opens_value(s) == bool(d._OPENS_VALUE.search(s))
    if s:
        assert (s[0] == "[" and bool(d._SECTION.match(line))) == bool(d._SECTION.match(line))
    assert (":" in line and bool(d._YAML_KEY.match(line))) == bool(d._YAML_KEY.match(line))
    assert (("|" in s or ">" in s) and bool(d._YAML_BLOCK.search(s))) == bool(d._YAML_BLOCK.search(s))
