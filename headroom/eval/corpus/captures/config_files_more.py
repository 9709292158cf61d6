"""Dockerfiles, JSON with comments and ``.env`` files from real packages, printed by ``cat``
(no path argument a router could read) — the formats ``config_files`` lacks (issue 33).

Where they come from, all pinned by version and fetched at build time only:
- PyPI source distributions (found through PyPI's simple index as PEP 691 JSON, checked
  against the index's SHA-256; never built, so no build backend runs): black, OCRmyPDF,
  pandas and pytest-testinfra (Dockerfiles), jupyter-repo2docker (its Dockerfile and its
  test fixtures), docker-compose 1.x (its Dockerfile, Dockerfile and ``.env`` test
  fixtures), numpy (its dev container), Flask (a test app's ``.env``);
- npm tarballs (``npm pack``): the project templates of create-vite, create-vue,
  generator-code (VS Code's extension generator), create-redwood-app and
  create-strapi-app, and the shared tsconfig bases @vue/tsconfig and @ljharb/tsconfig;
- Debian packages (``apt-get download``): the ``.env`` fixtures of the Go libraries
  godotenv, gotenv and envy;
- this machine: the Google Cloud SDK's runtime Dockerfiles and pyenv's test Dockerfile.

Each question asks for one key (an environment variable, build argument or label, an
instruction the file has once, a JSON key under its parent, a variable of an env file);
the fact is that key's whole line, located by the format's own parser: dockerfile-parse's
instruction structure (start and end lines) plus the key's one line inside that span;
json5's value tree plus the key's one ``"key":`` line outside comments; python-dotenv's
parser, which reports each binding's line. Never headroom's detection or selection. A
JSON file counts as JSONC only when ``json`` rejects it and json5 reads it (it really has
comments or trailing commas); an env file only when python-dotenv parses every line.
"""

from __future__ import annotations

import glob
import hashlib
import io
import json
import re
import subprocess
import tarfile
from collections import Counter
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from ..cases import fact, make_case
from ..questions import choose
from ._pypi import pypi_sdist
from .config_files import spread

SOURCE = "config_files_more"
# Real .env files are short (a template's or a test fixture's few variables): a lower floor.
MIN_CHARS = {"dockerfile": 120, "jsonc": 120, "env": 25}
MAX_CHARS = 60_000
PER_FILE = 2
PER_PACKAGE = 3  # files per package and format: every package contributes, none dominates
MAX_FILES = 20  # per format

PYPI_SDISTS = (("black", "24.10.0"), ("ocrmypdf", "16.5.0"), ("pandas", "2.2.3"), ("pytest-testinfra", "10.2.2"),
               ("jupyter-repo2docker", "2026.4.0"), ("docker-compose", "1.29.2"), ("numpy", "1.26.4"),
               ("flask", "3.0.3"))
NPM_TARBALLS = (("create-vite", "9.3.0"), ("create-vue", "3.22.3"), ("generator-code", "1.12.0"),
                ("create-redwood-app", "8.9.0"), ("create-strapi-app", "5.55.0"), ("@vue/tsconfig", "0.9.1"),
                ("@ljharb/tsconfig", "0.3.2"))
DEBIAN_PACKAGES = (("golang-github-joho-godotenv-dev", "1.5.1-1"),
                   ("golang-github-subosito-gotenv-dev", "1.2.0+git20190917.de67a66-3"),
                   ("golang-github-gobuffalo-envy-dev", "1.6.4-2"))
MACHINE = (("google-cloud-sdk", "/usr/lib/google-cloud-sdk/platform/ext-runtime/*/*/Dockerfile*"),
           ("pyenv", "/root/.pyenv/test/Dockerfile"))

# Which files are which format: by their conventional names, at build time only (the
# compressor never sees a name).
NAMES = {
    "dockerfile": re.compile(r"^(?:Dockerfile(?:[.-][\w.-]+)?|[\w.-]+\.Dockerfile|Containerfile)$"),
    "jsonc": re.compile(r"^(?:tsconfig[\w.-]*\.json|jsconfig\.json|\.eslintrc\.json|\.?devcontainer\.json|"
                        r"settings\.json|launch\.json|[\w.-]+\.jsonc)$"),
    "env": re.compile(r"^(?:\.env(?:\.[\w-]+)?|[\w.-]+\.env)$"),
}


def format_of(name: str) -> str | None:
    return next((fmt for fmt, rx in NAMES.items() if rx.match(name)), None)


# -- fetching, pinned --------------------------------------------------------------------------------

def _wanted(member: str) -> bool:
    return format_of(member.rsplit("/", 1)[-1]) is not None


def _pypi_sdist(name: str, version: str, dest: Path) -> Path:
    return pypi_sdist(name, version, dest, _wanted)


def _npm_tarball(name: str, version: str, dest: Path) -> Path:
    dest.mkdir(parents=True, exist_ok=True)
    got = subprocess.run(["npm", "pack", f"{name}@{version}", "--json", "--loglevel=error"], cwd=dest,
                         capture_output=True, text=True, check=True, timeout=300)
    archive = dest / json.loads(got.stdout)[0]["filename"]
    out = dest / archive.name.removesuffix(".tgz")
    with tarfile.open(archive) as tar:
        tar.extractall(out, members=[m for m in tar.getmembers() if m.isfile() and _wanted(m.name)], filter="data")
    return out


def _debian_package(name: str, version: str, dest: Path) -> Path:
    """``apt-get download`` of the pinned version (the machine's apt lists must know it)."""
    dest.mkdir(parents=True, exist_ok=True)
    subprocess.run(["apt-get", "download", f"{name}={version}"], cwd=dest, capture_output=True, text=True,
                   check=True, timeout=300)
    (deb,) = dest.glob(f"{name}_*.deb")
    out = dest / name
    subprocess.run(["dpkg-deb", "-x", str(deb), str(out)], check=True, timeout=120)
    return out


def _files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file() and not p.is_symlink() and format_of(p.name))


def sources(work: Path) -> Iterator[tuple[str, str, Path]]:
    """(package label, path shown in the note, file) for every candidate file."""
    for name, version in PYPI_SDISTS:
        root = _pypi_sdist(name, version, work / "pypi")
        for p in _files(root):
            yield f"{name} {version} (PyPI sdist)", str(p.relative_to(root)), p
    for name, version in NPM_TARBALLS:
        root = _npm_tarball(name, version, work / "npm")
        for p in _files(root):
            yield f"{name} {version} (npm)", str(p.relative_to(root)), p
    for name, version in DEBIAN_PACKAGES:
        root = _debian_package(name, version, work / "deb")
        for p in _files(root):
            yield f"{name} {version} (Debian)", "/" + str(p.relative_to(root)), p
    for label, pattern in MACHINE:
        for p in sorted(glob.glob(pattern)):
            path = Path(p)
            if path.is_file() and not path.is_symlink() and format_of(path.name):
                yield f"{label} (this machine)", p, path


# -- key locations by each format's parser -----------------------------------------------------------

# An instruction a Dockerfile holds once answers "which base image / working directory /
# user / entrypoint ..." (the instruction's first line is the fact).
ONCE_KINDS = {
    "FROM": ("Which base image does this build start from?", "What image is this Dockerfile based on?"),
    "WORKDIR": ("Which working directory does this image switch to?", "Where does the build set its working folder?"),
    "USER": ("Which user does this image run as?", "As whom do the later steps and the container run?"),
    "ENTRYPOINT": ("What is this container's entrypoint?", "Which program does the image start as its entry point?"),
    "CMD": ("What command does the container run by default?", "Which default command does this image set?"),
    "EXPOSE": ("Which port does this image expose?", "What does the image declare as its exposed port?"),
    "HEALTHCHECK": ("How does this image check its own health?",),
    "VOLUME": ("Which volume does this image declare?",),
    "SHELL": ("Which shell does this build use for its RUN steps?",),
    "STOPSIGNAL": ("Which signal stops this container?",),
    "MAINTAINER": ("Who is named as this image's maintainer?",),
}
KEYED = {
    "ENV": ("What value does this Dockerfile give the `{key}` environment variable?",
            "In this Dockerfile, what is the environment variable `{key}` set to?"),
    "ARG": ("What default does this Dockerfile give the `{key}` build argument?",
            "Which default value has the build argument `{key}` here?"),
    "LABEL": ("What does this image's `{key}` label say?", "Which value has the `{key}` label of this image?"),
}


def dockerfile_keys(text: str) -> list[tuple[str, str, int]]:
    """(question, key, 0-based line): ENV/ARG/LABEL keys set once in the file, and
    instructions the file has once, from dockerfile-parse's structure."""
    from dockerfile_parse import DockerfileParser
    from dockerfile_parse.util import extract_key_values

    structure = [s for s in DockerfileParser(fileobj=io.BytesIO(text.encode())).structure
                 if s["instruction"] != "COMMENT"]
    lines = text.split("\n")
    kinds = Counter(s["instruction"] for s in structure)
    keyed: list[tuple[str, str, int, int]] = []  # (instruction, key, start, end)
    for s in structure:
        ins = s["instruction"]
        if ins in KEYED:
            try:
                pairs = extract_key_values(env_replace=False, args={}, envs={}, instruction_value=s["value"])
            except ValueError:  # a value dockerfile-parse cannot split
                continue
            for key, value in pairs:
                if ins != "ARG" or "=" in s["value"]:  # an ARG without a default holds no value to ask for
                    keyed.append((ins, key, s["startline"], s["endline"]))
    counts = Counter((ins, key) for ins, key, _, _ in keyed)
    out = []
    for ins, key, start, end in keyed:
        if counts[(ins, key)] != 1 or not key:
            continue
        rx = re.compile(rf"(?<![\w.-]){re.escape(key)}(?=[=\s]|$)")
        hits = [i for i in range(start, end + 1) if rx.search(lines[i])]
        if len(hits) == 1:
            out.append((ins, key, hits[0]))
    for s in structure:
        if s["instruction"] in ONCE_KINDS and kinds[s["instruction"]] == 1:
            out.append((s["instruction"], s["instruction"].lower(), s["startline"]))
    return out


def strip_json_comments(text: str) -> str:
    """``text`` with every ``//`` and ``/* */`` comment blanked to spaces (newlines kept, so
    line numbers stay), strings respected: a ``//`` inside a string is no comment."""
    out = list(text)
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if c == '"':
            i += 1
            while i < n and text[i] != '"':
                i += 2 if text[i] == "\\" else 1
            i += 1
        elif text.startswith("//", i):
            while i < n and text[i] != "\n":
                out[i] = " "
                i += 1
        elif text.startswith("/*", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            for k in range(i, end):
                if text[k] != "\n":
                    out[k] = " "
            i = end
        else:
            i += 1
    return "".join(out)


def _scalar_json(value: Any) -> str:
    return json.dumps(value) if not isinstance(value, bool) else ("true" if value else "false")


TOP = "the top level"  # the parent named for a key of the root object


def jsonc_keys(text: str) -> list[tuple[str, str, int]]:
    """(parent key, key, 0-based line) of scalar leaves, from json5's tree; the line is the
    one line outside comments that holds ``"key":`` and, after it, the value."""
    import json5

    try:
        json.loads(text)
        return []  # plain JSON: no comments, no trailing commas
    except ValueError:
        pass
    try:
        tree = json5.loads(text)
    except ValueError:
        return []
    bare = strip_json_comments(text).split("\n")
    leaves: list[tuple[str, str, Any]] = []

    def walk(node: Any, parent: str | None) -> None:
        if isinstance(node, dict):
            for k, v in node.items():
                if isinstance(v, (dict, list)):
                    walk(v, k)
                elif v not in (None, "") and isinstance(v, (str, int, float, bool)):
                    leaves.append((parent or TOP, k, v))
        elif isinstance(node, list):
            for item in node:
                walk(item, parent)

    walk(tree, None)
    names = Counter(k for _, k, _ in leaves)
    out = []
    for parent, key, value in leaves:
        if names[key] != 1:
            continue
        rx = re.compile(re.escape(json.dumps(key)) + r"\s*:\s*" + re.escape(_scalar_json(value)))
        hits = [i for i, ln in enumerate(bare) if rx.search(ln)]
        if len(hits) == 1 and sum(ln.count(json.dumps(key)) for ln in bare) == 1:
            out.append((parent, key, hits[0]))
    return out


def env_parses(text: str) -> bool:
    """python-dotenv reads every statement of the text (no binding with a parse error)."""
    from dotenv.parser import parse_stream

    return not any(b.error for b in parse_stream(io.StringIO(text)))


def env_keys(text: str) -> list[tuple[str, str, int]]:
    """("", key, 0-based line) of variables set once with a value, from python-dotenv's
    parser (each binding carries its line)."""
    from dotenv import dotenv_values
    from dotenv.parser import parse_stream

    bindings = list(parse_stream(io.StringIO(text)))
    if any(b.error for b in bindings):
        return []
    values = dotenv_values(stream=io.StringIO(text), interpolate=False)
    counts = Counter(b.key for b in bindings if b.key is not None)
    out = []
    for b in bindings:
        if b.key is None or counts[b.key] != 1 or not b.value or values.get(b.key) != b.value:
            continue
        if b.original.string.rstrip("\n").count("\n"):
            continue  # a value over several lines: no one line holds it
        out.append(("", b.key, b.original.line - 1))
    return out


FINDERS = {"dockerfile": dockerfile_keys, "jsonc": jsonc_keys, "env": env_keys}
PARSERS = {"dockerfile": "dockerfile-parse's instruction structure", "jsonc": "json5 (comments blanked outside strings)",
           "env": "python-dotenv's parser"}

JSONC_WORDINGS = (
    "In this config, what is `{key}` set to under `{parent}`?",
    "Which value does this file give `{key}` inside `{parent}`?",
    "Look up `{key}` in the `{parent}` part of this file: what does it say?",
    "I need the `{parent}` -> `{key}` setting from this file. What is it?",
)
JSONC_TOP_WORDINGS = (
    "In this config, what is the top-level `{key}` set to?",
    "Which value does this file give its top-level `{key}`?",
)
ENV_WORDINGS = (
    "What is `{key}` set to in this environment file?",
    "Which value does this env file assign to `{key}`?",
    "Look up the variable `{key}` in these environment settings: what is it?",
)


def question(fmt: str, parent: str, key: str, case_id: str) -> str:
    if fmt == "dockerfile":
        if parent in KEYED:
            return choose(case_id, KEYED[parent]).format(key=key)
        return choose(case_id, ONCE_KINDS[parent])
    if fmt == "jsonc":
        return choose(case_id, JSONC_TOP_WORDINGS if parent == TOP else JSONC_WORDINGS).format(key=key, parent=parent)
    return choose(case_id, ENV_WORDINGS).format(key=key)


def what(fmt: str, parent: str, key: str) -> str:
    if fmt == "dockerfile":
        return f"{parent} {key}" if parent in KEYED else f"the one {parent} instruction"
    return f"{parent} -> {key}" if fmt == "jsonc" else f"the variable {key}"


def pick(found: list[tuple[str, str, int]], lines: list[str], text: str, k: int) -> list[tuple[str, str, str]]:
    """Up to ``k`` (parent, key, line text) spread over the file: whole lines that occur
    once, longer than the key itself."""
    good = []
    for parent, key, line in found:
        if not 0 <= line < len(lines):
            continue
        s = lines[line].strip()
        if not s or text.count(s) != 1 or len(s) <= len(key) + 3:
            continue
        good.append((parent, key, s))
    return spread(good, k)


def _readable(fmt: str, text: str) -> bool:
    """The input parses with its format's parser (else it asks nothing)."""
    if fmt == "env":
        return env_parses(text)
    return True  # dockerfile-parse reads any text; json5 is checked by jsonc_keys


def build(work: Path) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    seen: set[str] = set()
    taken: Counter[str] = Counter()
    per_package: Counter[tuple[str, str]] = Counter()
    for package, shown, path in sources(work):
        fmt = format_of(path.name)
        if fmt is None or taken[fmt] >= MAX_FILES or per_package[(fmt, package)] >= PER_PACKAGE:
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        if not MIN_CHARS[fmt] <= len(text) <= MAX_CHARS or text in seen or not _readable(fmt, text):
            continue
        picked = pick(FINDERS[fmt](text), text.split("\n"), text, PER_FILE)
        if not picked:
            continue
        seen.add(text)
        taken[fmt] += 1
        per_package[(fmt, package)] += 1
        tag = hashlib.sha256(f"{package}/{shown}".encode()).hexdigest()[:8]
        for parent, key, line in picked:
            sid = f"{fmt}_{path.name.replace('.', '_')}_{tag}_{re.sub(r'[^A-Za-z0-9]+', '_', key)}"
            q = question(fmt, parent, key, f"{SOURCE}/{sid}")
            if line in q or any(c["id"] == f"{SOURCE}/{sid}" for c in out):
                continue
            out.append(make_case(SOURCE, sid, "text", "bash", {"command": f"cat {path.name}"}, "named", q, text,
                                 [fact(line, "named_item", f"the line of {what(fmt, parent, key)}, located by "
                                                           f"{PARSERS[fmt]}; package {package}: {shown}",
                                       "independent")]))
    return out
