"""Config files and SQL from more real packages, printed by ``cat`` (no path argument a
router could read): every format of ``config_files`` from other projects than the ones it
found on this machine (whose YAML, TOML and INI files are mostly copies vendored by the
Google Cloud SDK, and whose properties and XML come from four and five packages), and
SQL, which had no facts at all (issue 33: ">= 6 real packages per format").

Where they come from, all pinned, fetched at build time only:
- Debian packages (``apt-get download NAME=VERSION``, unpacked with ``dpkg-deb -x``,
  never installed): ActiveMQ's, JMeter's and ZooKeeper's configuration (properties,
  XML), Tomcat's and Jetty's server configuration (properties, XML), and database schemas
  of Roundcube, Icinga 2's IDO, PowerDNS, SpamAssassin, Bacula, rsyslog and Tiny Tiny RSS
  (SQL);
- PyPI source distributions (found through the simple index as PEP 691 JSON, checked
  against its SHA-256, never built): the ``pyproject.toml``, ``tox.ini``, ``setup.cfg``,
  CI workflows and pre-commit configurations of flake8, pycodestyle, pluggy, attrs,
  coverage.py, MkDocs, tox, cryptography, Sphinx, isort, pydantic-core, pytest,
  jsonschema, virtualenv and pre-commit (YAML, TOML, INI), and their READMEs and guides
  (Markdown);
- installed on this machine: GLib's GSettings schemas, the XML Security Library's
  examples and Maven POMs of Debian's Java libraries (XML), and PostgreSQL 15's
  extension scripts (SQL).

Each question asks for one key by its path, as in ``config_files`` and located the same
way (PyYAML's compose events, tomllib plus the one ``key =`` line, configparser, expat's
line numbers), the command a Markdown section shows (as ``markdown_docs``: the first
line of its first fenced block, by markdown-it), or a column of a table a ``CREATE TABLE``
statement defines. SQL is
located by SQLite's own parser: the file is cut into statements where
``sqlite3.complete_statement`` says one is complete, each statement runs alone in an
empty in-memory database, and a statement that creates exactly one table gives that
table's columns (``PRAGMA table_info``); the fact is the column's one line inside that
statement. Statements SQLite rejects (PostgreSQL functions, MySQL table options) ask
nothing. Never headroom's detection or selection. Each fact's note names its package
(``; package NAME VERSION (origin): path``).
"""

from __future__ import annotations

import glob
import hashlib
import re
import sqlite3
import subprocess
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from .. import load_cases
from ..cases import fact, make_case
from ..questions import choose
from ._packages import package_name, package_note
from ._pypi import pypi_sdist
from .config_files import WORDINGS, _pick, ini_keys, spread, toml_keys, xml_keys, yaml_keys
from .markdown_docs import WORDINGS as MARKDOWN_WORDINGS
from .markdown_docs import commands_asked

SOURCE = "config_files_packages"
MIN_CHARS = {"yaml": 900, "toml": 900, "ini": 900, "properties": 900, "xml": 900,
             "sql": 600,  # real table schemas are short
             "markdown": 3000}  # as markdown_docs: a document with sections
MAX_CHARS = {"markdown": 40_000}  # as markdown_docs
MAX_CHARS_DEFAULT = 60_000
PER_FILE = 2
PER_PACKAGE = 2  # files per package and format: every package contributes, none dominates
MAX_FILES = 16  # per format

DEBIAN_PACKAGES = (("activemq", "5.17.2+dfsg-2+deb12u1"), ("jmeter", "2.13-5"), ("zookeeper", "3.8.0-11+deb12u2"),
                   ("tomcat10", "10.1.60-1~deb12u1"),
                   ("jetty9", "9.4.57-1.1~deb12u1"), ("roundcube-core", "1.6.5+dfsg-1+deb12u13"),
                   ("icinga2-ido-pgsql", "2.13.6-2+deb12u2"), ("pdns-backend-sqlite3", "4.7.3-2"),
                   ("spamassassin", "4.0.1-1~deb12u1"), ("bacula-director-pgsql", "9.6.7-7"),
                   ("rsyslog-pgsql", "8.2302.0-1+deb12u2"), ("tt-rss", "21~git20210204.b4cbc79+dfsg-1.2"))
PYPI_SDISTS = (("flake8", "7.1.1"), ("pycodestyle", "2.12.1"), ("pluggy", "1.5.0"), ("attrs", "24.2.0"),
               ("coverage", "7.6.1"), ("mkdocs", "1.6.1"), ("tox", "4.23.2"), ("cryptography", "43.0.3"),
               ("sphinx", "8.1.3"), ("isort", "5.13.2"), ("pydantic-core", "2.23.4"), ("pytest", "8.3.3"),
               ("jsonschema", "4.23.0"), ("virtualenv", "20.27.0"), ("pre-commit", "4.0.1"))
MACHINE = ("/usr/share/glib-2.0/schemas/*.xml", "/usr/share/gdb/syscalls/*.xml",
           "/usr/share/doc/libxmlsec1-dev/examples/*.xml", "/usr/share/maven-repo/*/*/*/*.pom",
           "/usr/share/maven-repo/*/*/*/*/*.pom", "/usr/share/postgresql/*/extension/*.sql")

SQL_WORDINGS = (
    "In the table `{parent}`, how is the column `{key}` defined?",
    "What type and constraints does this schema give `{parent}`.`{key}`?",
    "Look up the column `{key}` of the `{parent}` table: what is its definition?",
)


def format_of(path: Path) -> str | None:
    """Which format a file is, by its conventional name, at build time only (the compressor
    never sees a name). dbconfig-common's install scripts are SQL named by the database."""
    name = path.name
    if name.endswith(".properties"):
        return "properties"
    if name.endswith((".xml", ".pom")):
        return "xml"
    if name.endswith(".sql") or (path.parent.name == "install" and "dbconfig-common" in path.parts
                                 and name in ("pgsql", "sqlite3")):
        return "sql"
    if name.endswith((".yaml", ".yml")):
        return "yaml"
    if name.endswith(".toml"):
        return "toml"
    if name.endswith((".ini", ".cfg")):
        return "ini"
    if name.endswith(".md"):
        return "markdown"
    return None


# -- fetching, pinned --------------------------------------------------------------------------------

def _debian_package(name: str, version: str, dest: Path) -> tuple[Path, str]:
    """``apt-get download`` of the pinned version (the machine's apt lists must know it),
    unpacked; and the package's source package name (its project)."""
    dest.mkdir(parents=True, exist_ok=True)
    subprocess.run(["apt-get", "download", f"{name}={version}"], cwd=dest, capture_output=True, text=True,
                   check=True, timeout=300)
    (deb,) = dest.glob(f"{name}_*.deb")
    out = dest / name
    subprocess.run(["dpkg-deb", "-x", str(deb), str(out)], check=True, timeout=120)
    source = subprocess.run(["dpkg-deb", "-f", str(deb), "Source"], capture_output=True, text=True, check=True,
                            timeout=60).stdout.strip().split(" ")[0]
    return out, source or name


def _pypi_sdist(name: str, version: str, dest: Path) -> Path:
    return pypi_sdist(name, version, dest, lambda m: bool(format_of(Path(m))))


def sources(work: Path) -> Iterator[tuple[str, str, Path]]:
    """(package name, note tail, file) for every candidate file, downloads first."""
    for name, version in DEBIAN_PACKAGES:
        root, project = _debian_package(name, version, work / "deb")
        for p in sorted(p for p in root.rglob("*") if p.is_file() and not p.is_symlink()):
            if format_of(p):
                shown = "/" + str(p.relative_to(root))
                yield project, f"; package {project} {version} (Debian {name}, apt-get download): {shown}", p
    for name, version in PYPI_SDISTS:
        root = _pypi_sdist(name, version, work / "pypi")
        for p in sorted(p for p in root.rglob("*") if p.is_file() and not p.is_symlink()):
            if format_of(p):
                shown = str(p.relative_to(root)).split("/", 1)[-1]  # inside the sdist's top folder
                yield name, f"; package {name} {version} (PyPI sdist): {shown}", p
    for pattern in MACHINE:
        for p in sorted(glob.glob(pattern)):
            path = Path(p)
            # Debian's ``*-debian.pom`` restates the upstream POM beside it: one of the two.
            if path.is_file() and not path.is_symlink() and format_of(path) and not p.endswith("-debian.pom"):
                yield package_name(path), package_note(path), path


# -- SQL by SQLite's parser --------------------------------------------------------------------------

def statements(text: str) -> list[tuple[int, int]]:
    """(first line, end line exclusive) of each statement: lines are added until SQLite's
    tokenizer says the statement is complete (``sqlite3.complete_statement``)."""
    lines = text.split("\n")
    out: list[tuple[int, int]] = []
    start: int | None = None
    for i, ln in enumerate(lines):
        if start is None:
            if not ln.strip():
                continue
            start = i
        if sqlite3.complete_statement("\n".join(lines[start:i + 1])):
            out.append((start, i + 1))
            start = None
    return out


def sql_keys(text: str) -> list[tuple[str, str, int]]:
    """(table, column, 0-based line): each statement run alone in an empty in-memory SQLite
    database; one that creates exactly one table gives its columns, each located as the
    one line of the statement that starts with the column's name (bare or quoted)."""
    lines = text.split("\n")
    out = []
    for start, end in statements(text):
        db = sqlite3.connect(":memory:")
        try:
            db.executescript("\n".join(lines[start:end]))
            tables = [r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")]
            if len(tables) != 1:
                continue
            columns = [r[1] for r in db.execute("SELECT * FROM pragma_table_info(?)", (tables[0],))]
        except sqlite3.Error:
            continue
        finally:
            db.close()
        for col in columns:
            rx = re.compile(r"^\s*[`\"\[]?" + re.escape(col) + r"[`\"\]]?(?:\s|,|$)", re.IGNORECASE)
            hits = [i for i in range(start + 1, end) if rx.match(lines[i])]
            if len(hits) == 1:
                out.append((tables[0], col, hits[0]))
    return out


FINDERS: dict[str, Any] = {"yaml": yaml_keys, "toml": toml_keys, "ini": ini_keys,
                           "properties": lambda t: ini_keys(t, fake_section=True), "xml": xml_keys, "sql": sql_keys}
PARSERS = {"yaml": "the yaml parser (PyYAML's compose events)", "toml": "the toml parser (tomllib)",
           "ini": "the ini parser (configparser)", "properties": "the properties parser (configparser)",
           "xml": "the xml parser (expat)", "markdown": "markdown-it parses it",
           "sql": "SQLite's parser (PRAGMA table_info of the one table the statement creates)"}


def build(work: Path) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    # a file config_files or markdown_docs asks about already
    seen = {c.content for c in load_cases(sources=["config_files", "markdown_docs"])}
    taken: Counter[str] = Counter()
    per_package: Counter[tuple[str, str]] = Counter()
    for package, note, path in sources(work):
        fmt = format_of(path)
        if fmt is None or taken[fmt] >= MAX_FILES or per_package[(fmt, package)] >= PER_PACKAGE:
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        if not MIN_CHARS[fmt] <= len(text) <= MAX_CHARS.get(fmt, MAX_CHARS_DEFAULT) or text in seen:
            continue
        if fmt == "markdown":
            picked = [(heading, "", line) for heading, line in spread(commands_asked(text), PER_FILE)]
        else:
            picked = _pick(FINDERS[fmt](text), text.split("\n"), text, PER_FILE)
        if not picked:
            continue
        seen.add(text)
        taken[fmt] += 1
        per_package[(fmt, package)] += 1
        tag = hashlib.sha256(note.encode()).hexdigest()[:8]
        for parent, key, line in picked:
            if fmt == "markdown":  # parent: the heading whose first fenced block's first line is asked
                sid = f"{fmt}_{path.stem}_{tag}_{re.sub(r'[^A-Za-z0-9]+', '_', parent)[:40]}"
                q = choose(f"{SOURCE}/{sid}", MARKDOWN_WORDINGS).format(heading=parent)
                what = f"first line of the fenced code block under the named heading, as {PARSERS[fmt]}"
            else:
                sid = f"{fmt}_{path.name.replace('.', '_')}_{tag}_{re.sub(r'[^A-Za-z0-9]+', '_', key)}"
                q = choose(f"{SOURCE}/{sid}", SQL_WORDINGS if fmt == "sql" else WORDINGS).format(key=key,
                                                                                                 parent=parent)
                what = f"the line of {parent} -> {key}, located by {PARSERS[fmt]}"
            if line in q or any(c["id"] == f"{SOURCE}/{sid}" for c in out):
                continue
            out.append(make_case(SOURCE, sid, "text", "bash", {"command": f"cat {path.name}"}, "named", q, text,
                                 [fact(line, "named_item", f"{what}{note}", "independent")]))
    return out
