"""Each structured format's comment syntax, tree shape and parse check.

A format is described by data, not by a class per format: how its lines group into
logical lines (continuations), how logical lines nest (indentation, section headers,
or flat), which lines close a block, and the parser that decides whether an output is
still a file of that format. Parsers are the format's own (PyYAML, tomllib,
configparser, json, xml.etree); formats without a parser in reach get a light
structural check (balanced blocks, terminated statements).
"""

from __future__ import annotations

import configparser
import json
import re
from collections.abc import Callable
from dataclasses import dataclass

from .toml_refusal import surely_not_toml
from .yaml_refusal import surely_not_yaml


@dataclass(frozen=True)
class Format:
    name: str
    comment: str  # line-comment prefix (or block-comment opener) for elisions and the marker
    comment_end: str  # "" for line comments, the closer for block comments ("-->")
    nesting: str  # "indent" | "sections" | "flat"
    check: Callable[[str], bool]  # True when the text parses as this format


# -- parse checks ---------------------------------------------------------------------------------

def _yaml_ok(text: str) -> bool:
    if surely_not_yaml(text):  # a checksum report read as a mapping: no parse in vain
        return False
    import yaml

    loader_class = getattr(yaml, "CSafeLoader", None)
    if loader_class is None:  # no libyaml: compose in Python
        return yaml_composes(text)
    # libyaml's event stream, and the two checks composing adds to it (every alias names
    # an anchor defined before it in its document; no anchor defined twice): the
    # composer's answer without building nodes and resolving each scalar's tag in
    # Python (half the time on a 10 kB file).
    loader = loader_class(text)
    try:
        if "&" not in text and "*" not in text:  # no anchor, no alias: the events alone
            for _ in iter(loader.get_event, None):
                pass
            return True
        anchors: set[str] = set()
        alias_event, document_start = yaml.AliasEvent, yaml.DocumentStartEvent
        for event in iter(loader.get_event, None):
            # node and alias events carry an anchor (None on most nodes); others have none
            anchor = getattr(event, "anchor", None)
            if anchor is None:
                if type(event) is document_start:
                    anchors = set()  # a new document: its anchors start afresh
            elif type(event) is alias_event:
                if anchor not in anchors:
                    return False
            elif anchor in anchors:
                return False
            else:
                anchors.add(anchor)
    except Exception:  # noqa: BLE001 - any parser complaint means "does not parse"
        return False
    finally:
        loader.dispose()
    return True


def yaml_composes(text: str) -> bool:
    """Whether PyYAML composes ``text`` (the node graph, without constructing values)."""
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    try:
        for _ in yaml.compose_all(text, Loader=loader):
            pass
    except Exception:  # noqa: BLE001 - any parser complaint means "does not parse"
        return False
    return True


def _toml_ok(text: str) -> bool:
    if surely_not_toml(text):  # sysctl dumps read as TOML: tomllib took hundreds of lines to say so
        return False
    try:
        import tomllib
    except ModuleNotFoundError:  # Python 3.10
        import tomli as tomllib  # type: ignore[no-redef]
    try:
        tomllib.loads(text)
    except Exception:  # noqa: BLE001
        return False
    return True


def _ini_ok(text: str) -> bool:
    cp = configparser.ConfigParser(interpolation=None, strict=False, allow_no_value=True)
    try:
        cp.read_string(text)
    except configparser.MissingSectionHeaderError:
        try:  # a properties file or a section-less config: configparser wants a section
            cp.read_string("[_]\n" + text)
        except configparser.Error:
            return False
    except configparser.Error:
        return False
    return True


_KV_LINE = re.compile(r"^\s*(?:export\s+)?[\w.\-/]+\s*[=:]")


def _keyvalue_ok(text: str) -> bool:
    """``.env`` / properties: every line a comment (``#``, ``!``, ``;``, and a settings
    dump's ``// `` and ``-- ``, as detection reads them), a key=value, or a continuation of
    one."""
    cont = False
    for ln in text.split("\n"):
        s = ln.strip()
        if cont or not s or s[0] in "#!;" or s.startswith(("// ", "-- ")) or _KV_LINE.match(ln):
            cont = s.endswith("\\") and not s.endswith("\\\\")
            continue
        return False
    return True


def _xml_ok(text: str) -> bool:
    import xml.etree.ElementTree as ET

    try:
        ET.fromstring(text.encode("utf-8") if text.lstrip().startswith("<?xml") else text)
    except (ET.ParseError, ValueError):
        return False
    return True


_JSONC_COMMENT = re.compile(r'"(?:\\.|[^"\\])*"|//[^\n]*|/\*.*?\*/', re.DOTALL)


def strip_json_comments(text: str) -> str:
    return _JSONC_COMMENT.sub(lambda m: m.group(0) if m.group(0).startswith('"') else "", text)


def _jsonc_ok(text: str) -> bool:
    try:
        json.loads(strip_json_comments(text))
    except (ValueError, RecursionError):
        return False
    return True


def _balanced(opener: re.Pattern[str], closer: re.Pattern[str]) -> Callable[[str], bool]:
    def check(text: str) -> bool:
        depth = 0
        for ln in text.split("\n"):
            depth += len(opener.findall(ln)) - len(closer.findall(ln))
            if depth < 0:
                return False
        return depth == 0
    return check


_MAKE_OPEN = re.compile(r"^\s*(?:ifeq|ifneq|ifdef|ifndef|define)\b")
_MAKE_CLOSE = re.compile(r"^\s*(?:endif|endef)\b")
_make_ok = _balanced(_MAKE_OPEN, _MAKE_CLOSE)

# Jinja / Go template / ERB block tags: an output must keep every block it opens closed.
TEMPLATE_OPEN = re.compile(r"\{%-?\s*(?:if|for|block|macro|call|filter|with|raw|autoescape|trans)\b|"
                           r"\{%-?\s*set\s+[\w, ]+?\s*-?%\}|"
                           r"\{\{-?\s*(?:if|range|with|define|block)\b")
TEMPLATE_CLOSE = re.compile(r"\{%-?\s*end\w*|\{\{-?\s*end\b")
TEMPLATE_MIDDLE = re.compile(r"^\s*(?:\{%-?\s*(?:else|elif|empty)\b|\{\{-?\s*else\b)")
_template_blocks_ok = _balanced(TEMPLATE_OPEN, TEMPLATE_CLOSE)


def _template_ok(text: str) -> bool:
    if text.count("{%") != text.count("%}") or text.count("<%") != text.count("%>"):
        return False
    return _template_blocks_ok(text)


def _sql_ok(text: str) -> bool:
    """Quotes balanced and every statement terminated (dollar-quoted bodies skipped)."""

    lines = text.split("\n")
    i = 0
    while i < len(lines):
        s = lines[i].strip()
        if not s or s.startswith("--"):
            i += 1
            continue
        if s.startswith("/*"):
            while i < len(lines) and "*/" not in lines[i]:
                i += 1
            if i == len(lines):
                return False
            i += 1
            continue
        end = sql_statement_end(lines, i)
        if end is None:
            return False
        i = end
    return True


def _always(_text: str) -> bool:
    return True


FORMATS: dict[str, Format] = {f.name: f for f in (
    Format("yaml", "#", "", "indent", _yaml_ok),
    Format("toml", "#", "", "sections", _toml_ok),
    Format("ini", "#", "", "sections", _ini_ok),
    Format("properties", "#", "", "flat", _keyvalue_ok),
    Format("jsonc", "//", "", "indent", _jsonc_ok),
    Format("xml", "<!--", "-->", "indent", _xml_ok),
    Format("dockerfile", "#", "", "sections", _always),
    Format("makefile", "#", "", "indent", _make_ok),
    Format("sql", "--", "", "flat", _sql_ok),
    Format("jinja", "{#", "#}", "blocks", _template_ok),
    Format("gotemplate", "{{/*", "*/}}", "blocks", _template_ok),
    Format("erb", "<%#", "%>", "blocks", _template_ok),
    Format("lines", "", "", "indent", _always),
)}


def comment_line(fmt: Format, indent: str, text: str) -> str:
    """One comment line in the format's own syntax (XML comments may not hold "--")."""
    if fmt.comment_end:
        text = text.replace("--", "—")
    if not fmt.comment:
        return f"{indent}{text}"
    tail = f" {fmt.comment_end}" if fmt.comment_end else ""
    return f"{indent}{fmt.comment} {text}{tail}"


_SQL_SPECIAL = re.compile(r"['\";]|\$\w*\$|--")


def sql_statement_end(lines: list[str], i: int) -> int | None:
    """Exclusive end of the SQL statement starting at line ``i`` (after its ``;``), or None
    when it never ends. Quotes, dollar-quoted bodies and ``--`` comments are skipped; the
    scan jumps from one special character to the next (a regex search, not a loop per
    character)."""
    quote = ""  # "'", '"' or a dollar tag such as "$$" / "$body$"
    for j in range(i, len(lines)):
        ln = lines[j]
        k = 0
        while True:
            if quote:
                e = ln.find(quote, k)
                if e < 0:
                    break
                k = e + len(quote)
                quote = ""
                continue
            m = _SQL_SPECIAL.search(ln, k)
            if m is None:
                break
            tok = m.group(0)
            if tok == ";":
                return j + 1
            if tok == "--":
                break
            quote = tok
            k = m.end()
    return None
