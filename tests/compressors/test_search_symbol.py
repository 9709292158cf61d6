"""Which symbol was searched for: the tool call, else the hits' shared identifier (issue 33)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from headroom.compressors.search.symbol import (
    command_patterns,
    identifiers,
    searched_symbols,
    shared_identifier,
)

HITS = [
    "class Console:",
    "        console = Console(file=file)",
    "    def __init__(self, console: Console) -> None:",
    "from .console import Console",
]


@pytest.mark.parametrize(("command", "patterns"), [
    ("grep -rnw Console .", ["Console"]),
    ("cd /usr/lib/python3/site-packages/rich && grep -rn Console . | head -100", ["Console"]),
    ("rg -n --heading -g '*.py' -C 2 Console src", ["Console"]),
    ("git grep -n -e Console -- '*.py'", ["Console"]),
    ("git grep --no-index -n Console", ["Console"]),
    ("grep -rn --include=*.py -A 3 'def render\\b' .", ["def render\\b"]),
    ("ls -la && cat README.md", []),
])
def test_patterns_from_shell_commands(command: str, patterns: list[str]) -> None:
    assert command_patterns(command) == patterns


def test_identifiers_drop_regex_escapes() -> None:
    assert identifiers(r"\bdef\s+render\(") == ["def", "render"]
    assert identifiers("compute_total") == ["compute_total"]


def test_symbol_from_a_command_argument() -> None:
    args = json.dumps({"command": "grep -rnw Console ."})
    assert searched_symbols(args, "", HITS) == ["Console"]


def test_symbol_from_a_search_tools_own_arguments_whatever_their_names() -> None:
    # A pattern argument by any name; the path and glob arguments are not borne out by the hits.
    for key in ("pattern", "q", "needle"):
        args = {key: r"\bConsole\b", "path": "src/rich", "glob": "*.py"}
        assert searched_symbols(args, "", HITS) == ["Console"]


def test_symbol_from_the_hits_when_the_call_says_nothing() -> None:
    assert shared_identifier(HITS) == "Console"
    assert searched_symbols(None, "", HITS) == ["Console"]
    assert searched_symbols(json.dumps({"command": "cat hits.txt"}), "", HITS) == ["Console"]


def test_no_shared_identifier_in_unrelated_lines() -> None:
    assert shared_identifier(["alpha beta", "gamma delta", "epsilon zeta"]) is None


def test_code_shaped_question_words_are_added_english_ones_are_not() -> None:
    hits = HITS + ["    render_console(console, options)"]
    got = searched_symbols(json.dumps({"command": "grep -rn onsole ."}), "Where is `Console` and render_console "
                           "defined in the code?", hits)
    assert "Console" in got and "render_console" in got
    assert not {"Where", "defined", "code", "the"} & set(got)


@settings(max_examples=80, deadline=None)
@given(st.one_of(st.none(), st.text(max_size=200), st.dictionaries(st.text(max_size=8),
                                                                    st.one_of(st.text(max_size=60), st.integers(),
                                                                              st.booleans()), max_size=4)),
       st.text(max_size=80), st.lists(st.text(max_size=60), max_size=30))
def test_odd_arguments_never_raise(args, query: str, texts: list[str]) -> None:
    got = searched_symbols(args if not isinstance(args, dict) else json.dumps(args), query, texts)
    assert len(got) <= 4 and all(isinstance(s, str) and s for s in got)


@settings(max_examples=80, deadline=None)
@given(st.text(max_size=300))
def test_odd_commands_never_raise(command: str) -> None:
    assert isinstance(command_patterns("grep " + command), list)
