"""The corpus source ``config_files_more`` (issue 33): Dockerfiles, JSON with comments and
``.env`` files from real packages, whose facts are located by each format's own parser
(dockerfile-parse, json5, python-dotenv), and the structured benchmark's parse checks for
those formats. These tests run the fact builders and the checks, never a compressor."""

from __future__ import annotations

import json
import re
from collections import defaultdict

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from headroom.eval.corpus import load_cases
from headroom.eval.corpus.captures import config_files_more as cfm
from tests.eval.bench_scripts import load_bench

pytest.importorskip("dockerfile_parse", reason="dev extra: dockerfile-parse")
pytest.importorskip("json5", reason="dev extra: json5")
pytest.importorskip("dotenv", reason="dev extra: python-dotenv")

CASES = load_cases(sources=["config_files_more"])


def _fmt(case) -> str:
    return case.id.split("/", 1)[1].split("_", 1)[0]


# -- the shipped source ------------------------------------------------------------------------------

def test_six_or_more_real_packages_per_format() -> None:
    packages, files = defaultdict(set), defaultdict(set)
    for c in CASES:
        m = re.search(r"; package (\S+)", c.facts[0].note)
        assert m, c.id
        packages[_fmt(c)].add(m.group(1))
        files[_fmt(c)].add(c.content)
    assert set(packages) == {"dockerfile", "jsonc", "env"}
    for fmt, found in packages.items():
        assert len(found) >= 6, (fmt, sorted(found))
        assert len(files[fmt]) >= len(found)


def test_every_fact_is_a_line_the_format_parser_locates_and_the_question_names_its_key() -> None:
    for c in CASES:
        fmt = _fmt(c)
        (f,) = c.facts
        assert f.basis == "independent" and f.kind == "named_item" and c.intent == "named", c.id
        lines = c.content.split("\n")
        found = cfm.FINDERS[fmt](c.content)
        located = {lines[i].strip(): (parent, key) for parent, key, i in found}
        assert f.text in located, (c.id, f.text)
        parent, key = located[f.text]
        assert c.content.count(f.text) == 1 and f.text not in c.question
        if fmt != "dockerfile" or parent in cfm.KEYED:
            assert f"`{key}`" in c.question, (c.id, c.question)
        assert c.tool_arguments["command"].startswith("cat ") and "/" not in c.tool_arguments["command"]


def test_inputs_parse_with_their_own_parser() -> None:
    import json5

    for c in CASES:
        fmt = _fmt(c)
        if fmt == "jsonc":
            json5.loads(c.content)
            with pytest.raises(ValueError):
                json.loads(c.content)  # really JSONC: comments or trailing commas
        elif fmt == "env":
            assert cfm.env_parses(c.content), c.id
        else:
            assert bench().dockerfile_instructions(c.content), c.id


# -- the fact builders on small inputs ---------------------------------------------------------------

def test_dockerfile_keys_locate_a_continued_env_line_and_skip_repeated_args() -> None:
    text = ("ARG VERSION=1\nFROM base:$VERSION AS build\nARG VERSION=2\n"
            "ENV LANG=C.UTF-8 \\\n    TZ=UTC\nWORKDIR /src\nFROM scratch\nCOPY --from=build /src /\n")
    found = {(ins, key): line for ins, key, line in cfm.dockerfile_keys(text)}
    assert found[("ENV", "TZ")] == 4 and found[("ENV", "LANG")] == 3
    assert ("ARG", "VERSION") not in found  # set twice
    assert found[("WORKDIR", "workdir")] == 5
    assert ("FROM", "from") not in found  # two stages


def test_jsonc_keys_need_comments_and_ignore_keys_inside_comments() -> None:
    text = ('{\n  // "target": "ES5" was the old default\n  "compilerOptions": {\n'
            '    "target": "ES2022", /* newer */\n    "strict": true,\n  },\n  "extends": "./base.json"\n}\n')
    found = {(p, k): i for p, k, i in cfm.jsonc_keys(text)}
    assert found == {("compilerOptions", "target"): 3, ("compilerOptions", "strict"): 4, (cfm.TOP, "extends"): 6}
    assert cfm.jsonc_keys('{\n  "a": {"b": 1}\n}\n') == []  # plain JSON is not JSONC


def test_env_keys_come_from_python_dotenv_bindings() -> None:
    text = "# db\nexport DB_URL='postgres://x/y?ssl=1'\nPORT=8080\nPORT=9090\nEMPTY=\n"
    assert cfm.env_keys(text) == [("", "DB_URL", 1)]
    assert cfm.env_parses(text)
    assert not cfm.env_parses("KEY: value\nOTHER=1\n") and cfm.env_keys("KEY: value\nOTHER=1\n") == []


def test_format_of_names() -> None:
    assert [cfm.format_of(n) for n in ("Dockerfile", "Dockerfile.alpine", "app.Dockerfile", "Containerfile")] == \
        ["dockerfile"] * 4
    assert [cfm.format_of(n) for n in ("tsconfig.app.json", "launch.json", ".devcontainer.json", "x.jsonc")] == \
        ["jsonc"] * 4
    assert [cfm.format_of(n) for n in (".env", ".env.example", "one.env")] == ["env"] * 3
    assert cfm.format_of("package.json") is None and cfm.format_of("envs.py") is None


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(alphabet='ab/*"\\ \n\t:,{}'),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(alphabet='k/*"', max_size=4), inner,
                                                                 max_size=4),
    max_leaves=12)


@settings(max_examples=200, deadline=None)
@given(doc=_JSON, note=st.text(alphabet='ab /*"', max_size=8))
@example(doc=None, note="**//")
def test_strip_json_comments_respects_strings_and_keeps_lines(doc, note) -> None:
    text = json.dumps(doc, indent=1)
    assert cfm.strip_json_comments(text) == text  # comment markers inside strings are no comments
    while "*/" in note:  # one pass can join a new "*/" ("**//" -> "*/")
        note = note.replace("*/", "")
    commented = "\n".join(f"{ln} // {note}" if k % 2 else f"/* {note} */ {ln}"
                          for k, ln in enumerate(text.split("\n")))
    stripped = cfm.strip_json_comments(commented)
    assert stripped.count("\n") == commented.count("\n")
    assert json.loads(stripped) == doc


# -- the benchmark's own-parser checks ---------------------------------------------------------------

def bench():
    return load_bench("structured_bench")


DOCKERFILE = "FROM python:3.12\nENV A=1\nRUN apt-get update \\\n    && apt-get install -y git\nCMD [\"x\"]\n"


def test_dockerfile_check_allows_elided_instructions_but_not_a_cut_continuation() -> None:
    b = bench()
    assert b.dockerfile_ok(DOCKERFILE, DOCKERFILE)
    assert b.dockerfile_ok("FROM python:3.12\n# … 3 lines elided …\nCMD [\"x\"]\n", DOCKERFILE)
    cut = "FROM python:3.12\nENV A=1\nRUN apt-get update \\\n# … 1 line elided …\nCMD [\"x\"]\n"
    assert not b.dockerfile_ok(cut, DOCKERFILE)  # the RUN now swallows the comment and CMD
    assert not b.dockerfile_ok("CMD [\"x\"]\nFROM python:3.12\n", DOCKERFILE)  # order changed
    assert "instruction not in the input" in b.parse_failure("dockerfile", cut, DOCKERFILE)


def test_env_check_wants_known_keys_with_their_values() -> None:
    b = bench()
    original = "A=1\nB=two\n# c\n"
    assert b.env_ok("A=1\n# … 2 lines elided …\n", original)
    assert not b.env_ok("A=1 …\n", original)
    assert not b.env_ok("A=1\n[3 items compressed to 1. Retrieve more: hash=x]\n", original)
    # python-dotenv reads a bare line as a key without a value: a key the input never had.
    assert b.parse_failure("env", "A=1\n[marker]\n", original) == "'[marker]' is no key of the input"
    assert b.parse_failure("env", "A=1 …\n", original) == "A reads '1 …', the input had '1'"
    assert "does not parse" in b.parse_failure("env", "A=1\nB='open\n", original)


def test_jsonc_check_and_a_missing_parser_skips_loudly(monkeypatch) -> None:
    b = bench()
    assert b.parses("jsonc", '{\n  // c\n  "a": 1,\n}\n', "") is True
    assert b.parses("jsonc", '{\n  "a": 1,\n  [1 item compressed]\n}\n', "") is False
    monkeypatch.setattr(b, "parser_missing", lambda fmt: "json5")
    assert b.parses("jsonc", "{}", "{}") is None  # skipped, never counted as a pass
