"""guess_language remembers its answer for the last few texts (detection and the code
compressor both ask about the same output): the same answer as guessing again, and the
second ask runs no regex pass."""

from __future__ import annotations

import sys

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from headroom.compressors.code import languages

PY = "\n".join(f"def f{i}(x):\n    if x:\n        return {i}\n" for i in range(40))
JS = "\n".join(f"function f{i}(x) {{\n  const y = x + {i};\n  return y;\n}}" for i in range(40))
SH = "\n".join(f"if [ -f a{i} ]; then\n  echo {i}\nfi" for i in range(40))


def test_second_ask_is_answered_from_the_memo(monkeypatch):
    text = PY + "\n# unique 1f3a"
    first = languages.guess_language(text)
    calls = []
    real = languages._guess_language
    monkeypatch.setattr(languages, "_guess_language", lambda t: calls.append(t) or real(t))
    assert languages.guess_language(text) is first and calls == []
    assert languages.guess_language(text + " ") is real(text + " ") and len(calls) == 1


@settings(max_examples=60, deadline=None)
@given(parts=st.lists(st.sampled_from([PY, JS, SH, "plain words here", "key: value\nother: 2"]), min_size=1,
                      max_size=4), noise=st.text(max_size=40))
def test_memo_answers_like_guessing_afresh(parts, noise):
    text = "\n".join(parts) + noise
    for _ in range(2):
        assert languages.guess_language(text) is languages._guess_language(text)


def test_memo_stays_bounded():
    for i in range(3 * languages._GUESSED_MAX):
        languages.guess_language(f"{PY}\n# {i}")
    assert len(languages._GUESSED) <= languages._GUESSED_MAX


_LINE_KINDS = ("_PY_LINES", "_BRACE_LINES", "_SHELL_LINES", "_YAML_LINES")


@pytest.mark.skipif(sys.version_info < (3, 11), reason="3.10 reads no possessive quantifier: the patterns backtrack there")
@settings(max_examples=300, deadline=None)
@given(st.lists(st.sampled_from(["\n", " ", "\t", "  ", "- ", "def f(", "class A:", "import os", "fi", "done", "{", "}",
                                 ";", "key:", "if x:", "echo ", "---", "from a import ", "@dec", "#include", "x", "=",
                                 "func ", "set -e", "for i in", "a_b", "'q'"]), max_size=60))
def test_possessive_indents_count_what_backtracking_ones_count(parts):
    import re

    text = "\n" + "".join(parts) + "\n"
    for name in _LINE_KINDS:
        fast = getattr(languages, name)
        slow = re.compile(fast.pattern.replace("[ \\t]*+", "[ \\t]*"), fast.flags)
        assert fast.pattern != slow.pattern
        assert fast.findall(text) == slow.findall(text), name
