"""Issue 33's ">= 6 real packages per format" for the structured corpus sources: every fact
of ``config_files``, ``config_files_packages`` and ``markdown_docs`` names its package; the
new source ``config_files_packages`` (config files of pinned PyPI sdists and Debian
packages, and SQL schemas) has facts its format's own parser locates (SQL: SQLite's); and
the structured benchmark's machine inputs name their packages. These tests run the fact
builders, never a compressor."""

from __future__ import annotations

import re
import sqlite3
from collections import defaultdict

from hypothesis import given, settings
from hypothesis import strategies as st

from headroom.eval.corpus import load_cases
from headroom.eval.corpus.captures import _packages
from headroom.eval.corpus.captures import config_files_packages as cfp
from headroom.eval.corpus.captures.markdown_docs import commands_asked
from tests.eval.bench_scripts import load_bench

SOURCES = ["config_files", "config_files_packages", "markdown_docs"]
CASES = load_cases(sources=SOURCES)
MORE = [c for c in CASES if c.source == "config_files_packages"]


def _fmt(case) -> str:
    return "markdown" if case.source == "markdown_docs" else case.id.split("/", 1)[1].split("_", 1)[0]


def _package(note: str) -> str | None:
    m = re.search(r"; package (\S+)", note)
    return m.group(1) if m else None


# -- the shipped sources ------------------------------------------------------------------------------

def test_every_fact_names_its_package_and_each_format_has_six_or_more() -> None:
    # config_files_packages alone reaches six for the formats config_files drew mostly
    # from one vendoring package (the Cloud SDK) or from fewer than six.
    alone = defaultdict(set)
    for c in MORE:
        alone[_fmt(c)].add(_package(c.facts[0].note))
    for fmt in ("yaml", "toml", "ini", "sql"):
        assert len(alone[fmt]) >= 6, (fmt, sorted(alone[fmt]))
    packages, files = defaultdict(set), defaultdict(set)
    for c in CASES:
        for f in c.facts:
            assert _package(f.note), (c.id, f.note)
        packages[_fmt(c)].add(_package(c.facts[0].note))
        files[_fmt(c)].add(c.content)
    assert set(packages) == {"yaml", "toml", "ini", "properties", "xml", "sql", "markdown"}
    for fmt, found in packages.items():
        assert len(found) >= 6, (fmt, sorted(found))
        assert len(files[fmt]) >= len(found)


def test_packages_source_facts_are_lines_the_format_parser_locates() -> None:
    assert {_fmt(c) for c in MORE} == {"yaml", "toml", "ini", "properties", "xml", "sql", "markdown"}
    for c in MORE:
        (f,) = c.facts
        assert f.basis == "independent" and f.kind == "named_item" and c.intent == "named", c.id
        if _fmt(c) == "markdown":  # the first line of the first fenced block under the heading asked
            assert (f.text, True) in {(line, f'"{h}"' in c.question) for h, line in commands_asked(c.content)}, c.id
        else:
            lines = c.content.split("\n")
            located = {lines[i].strip(): (parent, key) for parent, key, i in cfp.FINDERS[_fmt(c)](c.content)}
            assert f.text in located, (c.id, f.text)
            parent, key = located[f.text]
            assert f"`{key}`" in c.question and f"`{parent}`" in c.question, (c.id, c.question)
        assert c.content.count(f.text) == 1 and f.text not in c.question
        assert c.tool_arguments["command"].startswith("cat ") and "/" not in c.tool_arguments["command"]


def test_packages_source_adds_files_the_other_sources_do_not_ask_about() -> None:
    known = {c.content for c in CASES if c.source in ("config_files", "markdown_docs")}
    assert not known & {c.content for c in MORE}


# -- SQLite-located SQL facts -------------------------------------------------------------------------

SCHEMA = """-- accounts
CREATE TABLE users (
  user_id integer NOT NULL PRIMARY KEY,
  "user name" varchar(128) NOT NULL default '',
  created timestamp
);

CREATE FUNCTION f() RETURNS trigger AS $$
BEGIN
  created := now();
END;
$$ LANGUAGE plpgsql;

CREATE TABLE notes (id integer, body text) ENGINE=InnoDB;
CREATE TABLE tags (
  tag_id integer,
  label text);
"""


def test_sql_keys_come_from_sqlite_and_skip_what_it_rejects() -> None:
    found = cfp.sql_keys(SCHEMA)
    lines = SCHEMA.split("\n")
    got = {(t, c): lines[i].strip() for t, c, i in found}
    assert got[("users", "user_id")] == "user_id integer NOT NULL PRIMARY KEY,"
    assert got[("users", "user name")] == "\"user name\" varchar(128) NOT NULL default '',"
    assert got[("tags", "label")] == "label text);"
    assert not any(t == "notes" for t, _ in got)  # MySQL's table option: SQLite rejects it


@settings(max_examples=150, deadline=None)
@given(cols=st.lists(st.from_regex(r"[a-z][a-z_]{2,8}", fullmatch=True), min_size=1, max_size=6, unique=True),
       types=st.lists(st.sampled_from(["integer", "text", "varchar(64) NOT NULL", "boolean DEFAULT 0"]),
                      min_size=6, max_size=6),
       pad=st.integers(0, 3))
def test_sql_keys_locate_every_column_of_a_generated_table(cols, types, pad) -> None:
    body = ",\n".join(f"  {c} {t}" for c, t in zip(cols, types))
    text = "\n" * pad + f"CREATE TABLE t_one (\n{body}\n);\n"
    found = cfp.sql_keys(text)
    assert [c for _, c, _ in found] == cols
    lines = text.split("\n")
    assert all(lines[i].strip().startswith(c) for _, c, i in found)
    db = sqlite3.connect(":memory:")
    db.executescript(text)  # what sql_keys read is what SQLite reads
    assert [r[1] for r in db.execute("PRAGMA table_info(t_one)")] == cols


def test_statements_end_where_sqlite_says_complete() -> None:
    text = "SELECT 1;\n\n-- c\nSELECT ';'\n  ;\nSELECT 2"
    assert cfp.statements(text) == [(0, 1), (2, 5)]  # the last one never completes


def test_format_of_names() -> None:
    from pathlib import Path

    assert cfp.format_of(Path("/etc/x/log4j.properties")) == "properties"
    assert cfp.format_of(Path("/a/b.pom")) == cfp.format_of(Path("/a/server.xml")) == "xml"
    assert cfp.format_of(Path("/usr/share/dbconfig-common/data/app/install/pgsql")) == "sql"
    assert cfp.format_of(Path("/usr/share/app/install/pgsql")) is None
    assert cfp.format_of(Path("/a/schema.sql")) == "sql" and cfp.format_of(Path("/a/b.json")) is None
    assert [cfp.format_of(Path(n)) for n in ("ci.yml", "a.yaml", "pyproject.toml", "tox.ini", "setup.cfg", "README.md")] \
        == ["yaml", "yaml", "toml", "ini", "ini", "markdown"]


# -- package attribution ------------------------------------------------------------------------------

def test_package_of_a_venv_file_is_its_distribution() -> None:
    import yaml

    name, version, origin = _packages.package_of(yaml.__file__)
    assert name.lower() == "pyyaml" and version and "site-packages" in origin


def test_package_of_vendored_and_npm_paths(tmp_path) -> None:
    vendored = tmp_path / "sdk" / "third_party" / "chardet" / "docs" / "Makefile"
    assert _packages.package_of(str(vendored))[0] == "chardet"
    mod = tmp_path / "node_modules" / "npm" / "node_modules" / "cssesc"
    (mod / "docs").mkdir(parents=True)
    (mod / "package.json").write_text('{"name": "cssesc", "version": "3.0.0"}')
    assert _packages.package_of(str(mod / "docs" / "README.md"))[:2] == ("cssesc", "3.0.0")
    assert _packages.package_note(mod / "docs" / "README.md", "README.md") == "; package cssesc 3.0.0 (npm): README.md"


def test_bench_machine_files_spread_over_packages(tmp_path, monkeypatch) -> None:
    bench = load_bench("structured_bench")
    for pkg in ("a", "b"):
        for k in range(3):
            p = tmp_path / "third_party" / pkg / f"f{k}.sql"
            p.parent.mkdir(parents=True, exist_ok=True)
            p.write_text("x" * 900)
    other = tmp_path / "third_party" / "c" / "g.sql"
    other.parent.mkdir(parents=True)
    other.write_text("y" * 900)
    got = bench.machine_files((str(tmp_path / "third_party" / "[ab]" / "*.sql"), str(other)), 5)
    assert [pkg for _, pkg in got] == ["a", "c", "b", "a", "b"]  # each pattern's first package first
    assert len({p for p, _ in got}) == 5
