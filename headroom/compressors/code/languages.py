"""Which language a source file is in, and what that decides: its line-comment syntax and
how its blocks are found (indentation, braces, sections).

The language comes from the path in the tool call when there is one (``read_file
{"path": "src/app.ts"}``), else from the text itself: a shebang, then a few whole-text
counts of each family's telltale lines on a bounded sample (one regex pass each, never a
loop over lines).
"""

from __future__ import annotations

import json
import re
import sys
from dataclasses import dataclass
from pathlib import PurePosixPath


@dataclass(frozen=True)
class Language:
    name: str
    comment: str  # line-comment prefix: elisions and the retrieval marker are written behind it
    blocks: str  # "python" | "brace" | "yaml" | "toml"
    strings: str = "c"  # which string/comment syntax mask.py removes before looking for blocks


PYTHON = Language("python", "#", "python", "python")
JAVASCRIPT = Language("javascript", "//", "brace", "js")
TYPESCRIPT = Language("typescript", "//", "brace", "js")
GO = Language("go", "//", "brace", "go")
RUST = Language("rust", "//", "brace", "rust")
JAVA = Language("java", "//", "brace", "c")
C = Language("c", "//", "brace", "c")
CPP = Language("cpp", "//", "brace", "c")
CSHARP = Language("csharp", "//", "brace", "c")
KOTLIN = Language("kotlin", "//", "brace", "c")
SWIFT = Language("swift", "//", "brace", "c")
PHP = Language("php", "//", "brace", "c")
SCALA = Language("scala", "//", "brace", "c")
SHELL = Language("shell", "#", "brace", "shell")
YAML = Language("yaml", "#", "yaml", "none")
TOML = Language("toml", "#", "toml", "none")

_BY_SUFFIX = {
    ".py": PYTHON, ".pyi": PYTHON, ".pyw": PYTHON,
    ".js": JAVASCRIPT, ".mjs": JAVASCRIPT, ".cjs": JAVASCRIPT, ".jsx": JAVASCRIPT,
    ".ts": TYPESCRIPT, ".tsx": TYPESCRIPT, ".mts": TYPESCRIPT, ".cts": TYPESCRIPT,
    ".go": GO, ".rs": RUST, ".java": JAVA, ".kt": KOTLIN, ".kts": KOTLIN, ".swift": SWIFT,
    ".c": C, ".h": C, ".cc": CPP, ".cpp": CPP, ".cxx": CPP, ".hpp": CPP, ".hh": CPP, ".hxx": CPP,
    ".ipp": CPP, ".tcc": CPP, ".cs": CSHARP, ".php": PHP, ".scala": SCALA,
    ".sh": SHELL, ".bash": SHELL, ".zsh": SHELL, ".ksh": SHELL,
    ".yaml": YAML, ".yml": YAML, ".toml": TOML,
}
# Extension-less files known by name.
_BY_NAME = {"Makefile": None, "Dockerfile": None, "Cargo.lock": TOML, "Pipfile": TOML, ".bashrc": SHELL,
            ".profile": SHELL, ".zshrc": SHELL}
PATH_KEYS = ("path", "file", "filename", "file_path", "filePath", "target_file")


def language_for_path(path: str) -> Language | None:
    p = PurePosixPath(path.strip().replace("\\", "/"))
    if p.name in _BY_NAME:
        return _BY_NAME[p.name]
    lang = _BY_SUFFIX.get(p.suffix.lower())
    # libstdc++ headers have no suffix but live under include/c++/.
    if lang is None and not p.suffix and "/c++/" in f"/{p.as_posix()}":
        return CPP
    return lang


def path_argument(tool_arguments: str | dict | None) -> str | None:
    """The file path a tool call names (``path``, ``file``, ``filename``, ``file_path``), if any."""
    if not tool_arguments:
        return None
    args = tool_arguments
    if isinstance(args, str):
        try:
            args = json.loads(args)
        except ValueError:
            return None
    if not isinstance(args, dict):
        return None
    for key in PATH_KEYS:
        v = args.get(key)
        if isinstance(v, str) and v and len(v) < 4096:
            return v
    return None


_SHEBANG = re.compile(r"#![ \t]*(?:\S*/)?(?:env[ \t]+(?:-\S+[ \t]+)*)?(\w+)")
_SHEBANG_LANG = {"python": PYTHON, "python3": PYTHON, "python2": PYTHON, "node": JAVASCRIPT, "bash": SHELL,
                 "sh": SHELL, "zsh": SHELL, "ksh": SHELL, "dash": SHELL, "deno": TYPESCRIPT}

# Telltale lines of each family, counted over the sample in one pass each. Each pattern is
# led by a literal "\n" (the sample starts with one), not by "^": the engine then jumps from
# line break to line break in C instead of trying every character.
# A line's indent is matched possessively (``*+``): no alternative opens with a blank, so
# giving blanks back could never let one match, and not trying it makes the passes 1.5-3x
# faster (detection asks this of every text output;
# tests/compressors/test_language_memo.py checks the counts against the backtracking forms).
# Python 3.10 (still supported) reads no possessive quantifier: there the same patterns
# backtrack, with the same matches.
_INDENT = r"[ \t]*+" if sys.version_info >= (3, 11) else r"[ \t]*"
_PY_LINES = re.compile(r"\n" + _INDENT + r"(?:(?:async[ \t]+)?def[ \t]+\w+[ \t]*\(|class[ \t]+\w+[\w.,() \t]*:|"
                       r"from[ \t]+[\w.]+[ \t]+import[ \t]|import[ \t]+\w+[\w., \t]*(?=\n)|@\w[\w.]*|"
                       r"(?:if|elif|else|for|while|with|try|except|finally)\b[^\n;{]*:[ \t]*(?=\n)|if[ \t]+__name__)")
_BRACE_LINES = re.compile(r"[{;]" + _INDENT + r"(?=\n)|\n" + _INDENT + r"(?:[{}]|#include|#define|#if|package[ \t]+\w|"
                          r"func[ \t]|fn[ \t]|pub[ \t]|impl\b|use[ \t]+\w+::|import[ \t]+(?:[{*\"']|[\w$]+[ \t]+from\b)|export[ \t]|"
                          r"const[ \t]+\w|let[ \t]+\w|var[ \t]+\w|function\b|public[ \t]|private[ \t]|namespace\b|"
                          r"template[ \t]*<)")
_SHELL_LINES = re.compile(r"\n" + _INDENT + r"(?:fi|done|esac|then|do|elif\b[^\n]*;[ \t]*then|local[ \t]|export[ \t]+\w+=|"
                          r"\w+\(\)[ \t]*\{|if[ \t]+\[|for[ \t]+\w+[ \t]+in\b|case[ \t][^\n]*[ \t]in(?=\n)|echo[ \t]|"
                          r"set[ \t]+-)")
_YAML_LINES = re.compile(r"\n" + _INDENT + r"(?:- )?[\w.\"'/-]+:(?:[ \t]|(?=\n))|\n" + _INDENT + r"- \S|\n---(?=\n)")
_TOML_LINES = re.compile(r"\n(?:\[\[?[\w.\"'-]+\]\]?[ \t]*(?=\n)|[\w.\"-]+[ \t]*=[ \t]*\S)")
_SAMPLE = 24_000


# guess_language's answers for the last few texts, by (length, str hash): detection asks
# about a whole output and the code compressor then asks about the same text again (five
# regex passes over 24 kB, ~0.5 ms quiet, were paid twice). Keyed by hash rather than by
# the text so that no tool output is kept alive here.
_GUESSED: dict[tuple[int, int], Language | None] = {}
_GUESSED_MAX = 8


def guess_language(text: str) -> Language | None:
    """The language ``text`` is most likely in, or None when no family stands out."""
    key = (len(text), hash(text))
    try:
        return _GUESSED[key]
    except KeyError:
        pass
    lang = _guess_language(text)
    if len(_GUESSED) >= _GUESSED_MAX:
        _GUESSED.clear()
    _GUESSED[key] = lang
    return lang


def _guess_language(text: str) -> Language | None:
    head = text.lstrip("\ufeff")
    if head.startswith("#!"):
        m = _SHEBANG.match(head)
        if m and m.group(1) in _SHEBANG_LANG:
            return _SHEBANG_LANG[m.group(1)]
    sample = "\n" + head[:_SAMPLE] + "\n"
    lines = sample.count("\n") - 1
    counts = {
        PYTHON: 3 * len(_PY_LINES.findall(sample)),  # docstrings hold "Args:" lines that read as YAML
        JAVASCRIPT: len(_BRACE_LINES.findall(sample)),
        SHELL: 2 * len(_SHELL_LINES.findall(sample)),
        YAML: len(_YAML_LINES.findall(sample)),
        TOML: len(_TOML_LINES.findall(sample)),
    }
    best = max(counts, key=counts.__getitem__)
    if counts[best] < max(3, 0.08 * lines):
        return None
    if best is JAVASCRIPT:
        return _brace_dialect(sample)
    return best


def _brace_dialect(sample: str) -> Language:
    """Which brace language: only the comment and string syntax depends on it."""
    if re.search(r"^[ \t]*(?:fn|pub|impl|use)[ \t]", sample, re.M):
        return RUST
    if re.search(r"^package[ \t]+\w+[ \t]*$", sample, re.M) and re.search(r"^func[ \t]", sample, re.M):
        return GO
    if re.search(r"^[ \t]*#[ \t]*(?:include|define|ifndef|pragma)\b", sample, re.M):
        return CPP
    if re.search(r"^[ \t]*(?:public|private|protected)[ \t]+(?:static[ \t]+)?(?:final[ \t]+)?\w", sample, re.M) \
            and re.search(r"^(?:package|import)[ \t]+[\w.]+;", sample, re.M):
        return JAVA
    return JAVASCRIPT
