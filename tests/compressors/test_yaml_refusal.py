"""The cheap YAML refusal (structured/yaml_refusal.py) only ever says "fails" of a text
the YAML parse check rejects: it lets the structured compressor skip the parser, so a
wrong refusal would change which candidate output is kept."""

from __future__ import annotations

import yaml
from hypothesis import example, given, settings
from hypothesis import strategies as st

from headroom.compressors.structured import formats
from headroom.compressors.structured.yaml_refusal import surely_not_yaml


def _parses(text: str) -> bool:
    """Whether the parse check in use (libyaml's events), without the refusal in front of
    it, or PyYAML's own Python scanner accepts ``text``."""
    refusal = formats.surely_not_yaml
    formats.surely_not_yaml = lambda _text: False
    try:
        return formats._yaml_ok(text) or _python_composes(text)
    finally:
        formats.surely_not_yaml = refusal


def _python_composes(text: str) -> bool:
    try:
        for _ in yaml.compose_all(text, Loader=yaml.SafeLoader):
            pass
    except Exception:  # noqa: BLE001 - any complaint means "does not parse"
        return False
    return True


def test_a_checksum_report_line_is_refused():
    head = "assets/a.woff2: OK\nassets/b.woff2: FAILED\n# elided\n\n"
    for bad in ("sha256sum: docs/api/m.txt: No such file or directory",
                "sha256sum: WARNING: 1 computed checksum did NOT match", "a: b:", "k: v: w\n"):
        text = head + bad + "\nassets/c.woff2: OK\n"
        assert surely_not_yaml(text), bad
        assert not _parses(text)
        assert not formats.FORMATS["yaml"].check(text)


def test_lines_the_parser_may_read_otherwise_are_left_to_it():
    for text in ("a: b\nc: 'd: e'\n", "a: |\n  b: c: d\n", "a:\n  b: c: d\n", "- a\nb: c: d\n", "a: [1,\nb: c: d]\n",
                 "a: b\n---\nc: d: e\n", "a: b # c: d: e\n", "a: b\nc: d:e\n", "a: b\n  c: d: e\n",
                 "a: 'x\nb: c: d'\n", "# c\rb: c: d\n", "a: b\n? c: d: e\n", "a: b\n&x c: d: e\n"):
        assert not surely_not_yaml(text), text
    assert _parses("a: b\nc: d:e\n")


_FRAGMENTS = st.sampled_from([
    "a", "b c", "x/y.z", "1", " ", "  ", "\t", ":", ": ", "-", "- ", "#", " # c", "'", '"', "|", ">", "[", "]",
    "{", "}", ",", "&a", "*a", "!t", "?", "%", "@", "---", "...", "\r", "\x85", "\u2028", "_", "+", ".",
    "\n", "\n", "\n", "\n",
])


# Lines: mostly simple ones (a key, a value, perhaps a second colon), some of anything.
_WORDS = st.sampled_from(["a", "b c", "x/y.z", "1", "_k", "v", "w-2", "@v", ".v", "+v"])
_LINES = st.one_of(
    st.tuples(_WORDS, st.sampled_from([":", ": ", ":\t"]), _WORDS, st.sampled_from(["", ":", ": ", ": w", ":w"])
              ).map("".join),
    st.lists(_FRAGMENTS, max_size=6).map("".join),
)


@settings(max_examples=2000, deadline=None)
@given(st.lists(_LINES, max_size=12).map("\n".join))
@example("a: b\nc: d: e\n")
@example("a: |\n b: c: d\n")
@example("a\nb: c: d\n")
@example("# x\u2028 [\nb: c: d\n")
def test_refusal_never_refuses_what_the_parser_accepts(text):
    if surely_not_yaml(text):
        assert not _parses(text), text


_KEYS = st.sampled_from(["k", "a b", "x/y.z", "1", "_", "k ", "-k", ".k", "@k", "k#", "'k'", " k", "? k", "---"])
_VALUES = st.sampled_from(["", " ", " v", " v w", " v: w", " v:", " v:w", " 'v: w'", " |", " [v,", " ]", " {a: b}",
                           " # c: d", " v # c", " &a v", " *a", " !t v", " -1", " - v", " ..."])


@settings(max_examples=1500, deadline=None)
@given(st.lists(st.tuples(_KEYS, _VALUES, st.sampled_from(["", " ", "  "])), max_size=12))
def test_refusal_on_mapping_lines(entries):
    text = "".join(f"{indent}{k}:{v}\n" for k, v, indent in entries)
    if surely_not_yaml(text):
        assert not _parses(text), text
