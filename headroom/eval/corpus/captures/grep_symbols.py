"""Search hits over real installed code: ``grep -rnw SYMBOL .`` and its cousins (``grep -rn``,
``rg -n``, ``rg --heading``, ``git grep``), asked "where is SYMBOL defined?".

Repositories: Python packages of the shared venv's site-packages (rich, jinja2; never the
standard library), npm's own tree (``/usr/lib/node_modules/npm``, JavaScript), OpenSSL's C
headers (``/usr/include/openssl``), the Rust crates Debian ships (``libc``, ``memchr`` under
``/usr/share/cargo/registry``). Shell is left out: the shell trees installed here are too
small for 60 hits a symbol, or are the held-out ``read_shell``'s files.

Facts come from the language's own parser, never from headroom's code: Python definitions
by ``ast`` (functions, classes, module-level assignments), the other languages by
universal-ctags (``apt-get install universal-ctags``). A symbol is asked when the parser
finds it defined at one or two sites and the search prints 60-3,000 hit lines; the facts
are the hit lines (as the search printed them) at those sites.
"""

from __future__ import annotations

import ast
import hashlib
import json
import re
import subprocess
from collections import Counter
from pathlib import Path
from typing import Any

from ..cases import fact, make_case
from ..questions import choose

SOURCE = "search_hits"
MIN_HITS, MAX_HITS = 60, 3000
MAX_SITES = 2
MIN_NAME = 5

WORDINGS = (
    "Where is {name} defined?",
    "Which file and line define {name}? Show me the definition.",
    "I need the definition of {name}: where does it live?",
    "Find where {name} is declared in this code base.",
)

# The kinds of tag that are definitions (ctags' names); members, locals, imports, prototypes
# and impl blocks are not asked about.
_CTAGS_KINDS = {
    "JavaScript": {"function", "class", "method", "generator"},
    "C,C++": {"macro", "struct", "typedef", "enum", "union", "function"},
    "Rust": {"function", "struct", "enum", "interface", "typedef", "macro", "method", "constant"},
}
# (repository label, directory, parser, file filter for the parser, per-repo symbols).
_WORD = re.compile(r"[A-Za-z0-9_]+")
_COMMANDS = ("grep -rnw {s} .", "grep -rn {s} .", "rg -n {s}", "rg --heading -n {s}", "git grep --no-index -n {s}")


def site_packages() -> Path:
    import click  # locates the shared venv's site-packages (not the standard library)

    return Path(click.__file__).parents[1]


def repositories() -> list[tuple[str, Path, str, int]]:
    site = site_packages()
    return [
        ("rich", site / "rich", "python", 5),
        ("jinja2", site / "jinja2", "python", 4),
        ("npm", Path("/usr/lib/node_modules/npm"), "JavaScript", 6),
        ("openssl", Path("/usr/include/openssl"), "C,C++", 5),
        ("libc", Path("/usr/share/cargo/registry/libc-0.2.139"), "Rust", 4),
        ("memchr", Path("/usr/share/cargo/registry/memchr-2.5.0"), "Rust", 3),
    ]


def python_definitions(root: Path) -> dict[str, list[tuple[str, int]]]:
    """name -> [(path relative to root, line)] of functions, classes and module-level
    assignments, found by ``ast``."""
    out: dict[str, list[tuple[str, int]]] = {}
    for p in sorted(root.rglob("*.py")):
        try:
            tree = ast.parse(p.read_text(encoding="utf-8"))
        except (SyntaxError, UnicodeDecodeError):
            continue
        rel = str(p.relative_to(root))
        for node in ast.walk(tree):
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                out.setdefault(node.name, []).append((rel, node.lineno))
        for node in tree.body:
            targets = node.targets if isinstance(node, ast.Assign) else [node.target] \
                if isinstance(node, ast.AnnAssign) else []
            for t in targets:
                if isinstance(t, ast.Name):
                    out.setdefault(t.id, []).append((rel, node.lineno))
    return out


def ctags_definitions(root: Path, language: str) -> dict[str, list[tuple[str, int]]]:
    """name -> [(path relative to root, line)] of the definition kinds universal-ctags finds."""
    # -G: files without an extension by their shebang or modeline;
    # C headers are C++ to ctags by default, hence "C,C++".
    res = subprocess.run(["ctags", "-G", "-R", "--output-format=json", "--fields=+nK", f"--languages={language}",
                          "-f", "-", "."], cwd=root, capture_output=True, text=True, check=True)
    out: dict[str, list[tuple[str, int]]] = {}
    for line in res.stdout.split("\n"):  # not splitlines(): a tag's pattern may hold U+2028
        if not line.startswith("{"):
            continue
        tag = json.loads(line)
        if tag.get("_type") != "tag" or tag.get("kind") not in _CTAGS_KINDS[language]:
            continue
        out.setdefault(tag["name"], []).append((tag["path"].removeprefix("./"), int(tag["line"])))
    return out


def word_lines(root: Path) -> Counter:
    """How many lines of the tree's text files hold each word (what ``grep -rnw`` counts)."""
    counts: Counter = Counter()
    for p in root.rglob("*"):
        if not p.is_file() or p.is_symlink():
            continue
        try:
            text = p.read_bytes().decode("utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        for ln in text.splitlines():
            counts.update(set(_WORD.findall(ln)))
    return counts


def run_search(root: Path, command: str) -> str:
    res = subprocess.run(command.split(), cwd=root, capture_output=True, text=True, errors="replace", check=False)
    return res.stdout + res.stderr


def _hit_line(output: str, heading_mode: bool, rel: str, line: int) -> str | None:
    """The line the search printed for ``rel``:``line`` (rg's heading mode prints the path
    once above its hits, so there it is the ``line:text`` line under that heading)."""
    if heading_mode:
        under = None
        for ln in output.splitlines():
            if not ln:
                under = None
            elif under is None:
                under = ln
            elif under == rel and ln.startswith(f"{line}:"):
                return ln
        return None
    for prefix in (f"./{rel}:{line}:", f"{rel}:{line}:"):
        for ln in output.splitlines():
            if ln.startswith(prefix):
                return ln
    return None


def _safe(line: str) -> str:
    """The printed line up to the first character JSON would escape (corpus convention)."""
    m = re.match(r'[ -!#-\[\]-~\t]*', line)
    return line[: m.end()].rstrip() if m else line


def build(work: Path) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    k = 0
    for label, root, parser, wanted in repositories():
        defs = python_definitions(root) if parser == "python" else ctags_definitions(root, parser)
        counts = word_lines(root)
        names = [n for n, sites in defs.items()
                 if len(n) >= MIN_NAME and 1 <= len(set(sites)) <= MAX_SITES and MIN_HITS <= counts[n] <= MAX_HITS]
        names.sort(key=lambda n: hashlib.sha256(f"{label}/{n}".encode()).hexdigest())
        got = 0
        for name in names:
            if got >= wanted:
                break
            for command in (_COMMANDS[k % len(_COMMANDS)], _COMMANDS[0]):
                cmd = command.format(s=name)
                output = run_search(root, cmd)
                hits = sum(1 for ln in output.splitlines() if ln and not ln.startswith("grep:"))
                if MIN_HITS <= hits <= MAX_HITS:
                    break
            else:
                continue
            heading = "--heading" in cmd
            sites = sorted(set(defs[name]))
            lines = [_hit_line(output, heading, rel, ln) for rel, ln in sites]
            if any(ln is None for ln in lines):
                continue  # a site the search does not print (rg skips ignored files)
            facts = [_safe(ln) for ln in lines]
            if any(len(f) < 12 or output.count(f) != 1 for f in facts):
                continue
            k += 1
            got += 1
            sid = f"{label}_{name}"
            question = choose(f"{SOURCE}/{sid}", WORDINGS).format(name=name)
            out.append(make_case(
                SOURCE, sid, "text", "bash", {"command": f"cd {root} && {cmd}"}, "named", question, output,
                [fact(f, "named_item", f"the hit line at a definition site of {name} ({parser} parser: "
                                       f"{'ast' if parser == 'python' else 'universal-ctags'})", "independent")
                 for f in facts]))
    return out
