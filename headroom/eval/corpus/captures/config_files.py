"""Config files installed on this machine, printed by ``cat`` (no path argument a router
could read): YAML (GitHub workflows vendored by the Cloud SDK's third-party packages,
PyTorch's schema and codegen files, PyYAML's examples), TOML (pyproject.toml and
Cargo.toml files of vendored packages and Debian's Rust registry), INI/cfg (setup.cfg
and tox.ini of vendored packages, Jetty's start.ini), Java properties (OpenJDK and
Temurin's ``conf`` files, Maven's logger) and XML (Maven POMs and site descriptors,
fontconfig, D-Bus policies).

Each question asks for one key by its path (the key and its parent, never the value);
the fact is that key's whole line, located by the format's own parser: PyYAML's compose
events (the key node's line), tomllib plus the one ``key =`` line inside its table,
configparser plus the option's line inside its section, expat's line numbers for an XML
leaf element. Never headroom's detection or selection. Each fact's note names the package
the file comes from (``; package NAME VERSION (origin): path``, see ``_packages``).
"""

from __future__ import annotations

import configparser
import glob
import hashlib
import re
from pathlib import Path
from typing import Any

from ..cases import fact, make_case
from ..facts import json_safe
from ..questions import choose
from ._packages import package_note

SOURCE = "config_files"
MIN_CHARS, MAX_CHARS = 900, 60_000
PER_FILE = 2
MAX_FILES = 10  # per format

WORDINGS = (
    "In this config, what is `{key}` set to under `{parent}`?",
    "Which value does this file give `{key}` inside `{parent}`?",
    "Look up `{key}` in the `{parent}` part of this file: what does it say?",
    "I need the `{parent}` -> `{key}` setting from this file. What is it?",
)


def _site() -> Path:
    import yaml  # the shared venv's site-packages

    return Path(yaml.__file__).parents[1]


def _paths(patterns: tuple[str, ...]) -> list[Path]:
    """Files matching the patterns, round-robin over the patterns (so every kind of
    source contributes) and at most two per package directory, in a stable order."""
    seen: dict[str, int] = {}
    per_pattern = []
    for pat in patterns:
        found = []
        for p in sorted(glob.glob(pat, recursive=True)):
            path = Path(p)
            if not path.is_file() or path.is_symlink() or not MIN_CHARS <= path.stat().st_size <= MAX_CHARS:
                continue
            found.append(path)
        per_pattern.append(found)
    out: list[Path] = []
    for k in range(max((len(f) for f in per_pattern), default=0)):
        for found in per_pattern:
            if k >= len(found) or found[k] in out:
                continue
            pkg = _package_of(found[k])
            if seen.get(pkg, 0) >= 2:
                continue
            seen[pkg] = seen.get(pkg, 0) + 1
            out.append(found[k])
    return out


def _package_of(path: Path) -> str:
    parts = path.parts
    for anchor in ("third_party", "site-packages", "registry", "maven-repo", "doc", "command_lib"):
        if anchor in parts:
            k = parts.index(anchor)
            return "/".join(parts[: k + (1 if anchor == "command_lib" else 2)])
    return str(path.parent)


# -- key locations by each format's parser -------------------------------------------------------

def yaml_keys(text: str) -> list[tuple[str, str, int]]:
    """(parent key, key, 0-based line) of scalar leaves below a parent, via compose events."""
    import yaml

    loader = getattr(yaml, "CSafeLoader", yaml.SafeLoader)
    out: list[tuple[str, str, int]] = []
    try:
        docs = list(yaml.compose_all(text, Loader=loader))
    except yaml.YAMLError:
        return out

    def walk(node, parent: str | None) -> None:
        if isinstance(node, yaml.MappingNode):
            for k, v in node.value:
                if not isinstance(k, yaml.ScalarNode):
                    continue
                if isinstance(v, yaml.ScalarNode) and parent and v.value.strip():
                    out.append((parent, k.value, k.start_mark.line))
                walk(v, k.value)
        elif isinstance(node, yaml.SequenceNode):
            for item in node.value:
                walk(item, parent)

    for d in docs:
        walk(d, None)
    return out


_TABLE = re.compile(r"^\s*\[\[?\s*([^\[\]]+?)\s*\]\]?\s*(?:#.*)?$")


def toml_keys(text: str) -> list[tuple[str, str, int]]:
    """(table, key, line) of scalar keys of a table, the line being the one ``key =`` line
    inside that table's header span (tomllib says the key exists there)."""
    try:
        import tomllib
    except ModuleNotFoundError:  # pragma: no cover - Python 3.10
        import tomli as tomllib  # type: ignore[no-redef]
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        return []
    lines = text.split("\n")
    out = []
    headers = [(i, m.group(1).replace('"', "").replace("'", "")) for i, ln in enumerate(lines)
               if (m := _TABLE.match(ln))]
    for k, (start, name) in enumerate(headers):
        end = headers[k + 1][0] if k + 1 < len(headers) else len(lines)
        table: Any = data
        for part in name.split("."):
            table = table.get(part.strip()) if isinstance(table, dict) else None
        if isinstance(table, list):
            continue  # an array of tables: the same key in every element
        if not isinstance(table, dict):
            continue
        for key, value in table.items():
            if isinstance(value, (dict, list)):
                continue
            rx = re.compile(rf"^\s*\"?{re.escape(key)}\"?\s*=")
            hits = [i for i in range(start + 1, end) if rx.match(lines[i])]
            if len(hits) == 1:
                out.append((name.split(".")[-1], key, hits[0]))
    return out


def ini_keys(text: str, fake_section: bool = False) -> list[tuple[str, str, int]]:
    """(section, option, line) from configparser; the line is the option's one line in
    its section's span."""
    cp = configparser.ConfigParser(interpolation=None, strict=False, allow_no_value=True)
    cp.optionxform = str  # type: ignore[assignment,method-assign]
    body = ("[_]\n" + text) if fake_section else text
    try:
        cp.read_string(body)
    except configparser.Error:
        return []
    lines = body.split("\n")
    offset = 1 if fake_section else 0
    heads = [(i, m.group(1)) for i, ln in enumerate(lines) if (m := re.match(r"^\[([^\]]+)\]\s*$", ln))]
    out = []
    for k, (start, name) in enumerate(heads):
        end = heads[k + 1][0] if k + 1 < len(heads) else len(lines)
        if not cp.has_section(name):
            continue
        for opt, value in cp.items(name, raw=True):
            if not value or "\n" in value:
                continue
            rx = re.compile(rf"^{re.escape(opt)}\s*[=:]")
            hits = [i for i in range(start + 1, end) if rx.match(lines[i])]
            if len(hits) == 1:
                parent = name if not fake_section else opt.rsplit(".", 1)[0] if "." in opt else ""
                key = opt if not fake_section or "." not in opt else opt.rsplit(".", 1)[1]
                if parent:
                    out.append((parent, key, hits[0] - offset))
    return out


def xml_keys(text: str) -> list[tuple[str, str, int]]:
    """(parent tag, tag, line) of leaf elements with text on one line, from expat."""
    from xml.parsers import expat

    out: list[tuple[str, str, int]] = []
    stack: list[list[Any]] = []  # [tag, line, text, has children]
    parser = expat.ParserCreate()

    def start(name, _attrs):
        if stack:
            stack[-1][3] = True
        stack.append([name, parser.CurrentLineNumber - 1, "", False])

    def end(name):
        tag, line, body, kids = stack.pop()
        if not kids and body.strip() and parser.CurrentLineNumber - 1 == line and stack:
            out.append((stack[-1][0], tag, line))

    def chars(data):
        if stack:
            stack[-1][2] += data

    parser.StartElementHandler, parser.EndElementHandler, parser.CharacterDataHandler = start, end, chars
    try:
        parser.Parse(text.encode("utf-8"), True)
    except expat.ExpatError:
        return []
    return out


FORMATS: dict[str, tuple[tuple[str, ...], Any]] = {}


def _formats() -> dict[str, tuple[tuple[str, ...], Any]]:
    site = str(_site())
    sdk = "/usr/lib/google-cloud-sdk"
    return {
        "yaml": ((f"{sdk}/platform/gsutil/third_party/*/.github/workflows/*.y*ml", f"{site}/torch/**/*.yaml",
                  f"{site}/torchgen/**/*.yaml", "/usr/share/doc/python3-yaml/examples/**/*.yaml",
                  f"{sdk}/lib/googlecloudsdk/command_lib/*/resources.yaml"), yaml_keys),
        "toml": (("/usr/share/cargo/registry/*/Cargo.toml", f"{sdk}/platform/gsutil/third_party/*/pyproject.toml",
                  "/usr/lib/node_modules/npm/node_modules/*/gyp/pyproject.toml", f"{site}/*/pyproject.toml"),
                 toml_keys),
        "ini": ((f"{sdk}/platform/gsutil/third_party/*/setup.cfg", f"{sdk}/platform/gsutil/third_party/*/tox.ini",
                 f"{sdk}/platform/gsutil/gslib/vendored/*/tox.ini", f"{sdk}/platform/gsutil/gslib/vendored/*/setup.cfg",
                 f"{sdk}/platform/google_appengine/**/start.ini",
                 "/usr/share/doc/*/examples/*.cfg"), ini_keys),
        "properties": (("/etc/java-17-openjdk/*.properties", "/usr/lib/jvm/*/conf/*.properties",
                        "/usr/lib/jvm/*/conf/*/*.properties", "/usr/lib/jvm/*/lib/*.properties",
                        "/etc/maven/logging/*.properties", f"{sdk}/platform/google_appengine/**/*.properties"),
                       lambda t: ini_keys(t, fake_section=True)),
        "xml": (("/usr/share/maven-repo/org/*/*/*/*.pom", "/usr/share/maven-repo/org/*/*/*/*-site.xml",
                 "/etc/fonts/fonts.conf", "/usr/share/dbus-1/*.conf", "/etc/dbus-1/*.conf",
                 "/usr/share/maven-repo/*/*/*/*.pom"), xml_keys),
    }


def _pick(found: list[tuple[str, str, int]], lines: list[str], text: str, k: int) -> list[tuple[str, str, str]]:
    """Up to ``k`` (parent, key, line text) spread over the file: lines that occur once,
    JSON-safe, not too short, whose key and parent are words (not the value)."""
    good = []
    for parent, key, line in found:
        if not 0 <= line < len(lines):
            continue
        s = lines[line].strip()
        if json_safe(s) != s or text.count(s) != 1 or len(key) < 3 or len(parent) < 2:
            continue
        if key not in s or len(s) <= len(key) + 3 or s in f"{parent} {key}":
            continue
        good.append((parent, key, s))
    return spread(good, k)


def build(work: Path) -> list[dict[str, Any]]:
    out = []
    for name, (patterns, finder) in _formats().items():
        taken = 0
        for path in _paths(patterns):
            if taken >= MAX_FILES:
                break
            try:
                text = path.read_text(encoding="utf-8")
            except (UnicodeDecodeError, OSError):
                continue
            picked = _pick(finder(text), text.split("\n"), text, PER_FILE)
            if not picked:
                continue
            taken += 1
            tag = hashlib.sha256(str(path).encode()).hexdigest()[:8]
            for parent, key, line in picked:
                sid = f"{name}_{path.name.replace('.', '_')}_{tag}_{re.sub(r'[^A-Za-z0-9]+', '_', key)}"
                q = choose(f"{SOURCE}/{sid}", WORDINGS).format(key=key, parent=parent)
                if line in q or any(c["id"] == f"{SOURCE}/{sid}" for c in out):
                    continue
                out.append(make_case(SOURCE, sid, "text", "bash", {"command": f"cat {path.name}"}, "named", q, text,
                                     [fact(line, "named_item", f"the line of {parent} -> {key}, located by the "
                                                               f"{name} parser{package_note(path)}",
                                           "independent")]))
    return out


def spread(found: list, k: int) -> list:
    """At most ``k`` of ``found``, evenly spread over it (the middle of each step)."""
    if not found:
        return []
    step = max(1, len(found) // k)
    return found[step // 2::step][:k]
