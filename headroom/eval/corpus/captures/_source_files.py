"""Source files as an agent reads them: the shared shape of the ``read_*`` sources.

A case is one real file installed on this machine (site-packages, npm's own
node_modules, libstdc++'s headers, shell scripts Debian ships; never the Python standard
library), read by a ``read_file`` tool call or by ``cat -n`` in a shell. Its question
describes one function by its purpose, in the words of that function's own docstring or
leading comment, never by its name; its facts are two distinctive statements of that
function's body (lines that occur once in the file). Functions are found here without
headroom's code: Python by ``ast``, brace languages and shell by the closing brace at the
header's own indentation (how these files are formatted), and a leading comment block.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..cases import fact, make_case
from ..questions import choose

MIN_BODY_LINES = 8  # long enough that an outline would elide it
MIN_FACT_CHARS = 20

WORDINGS = (
    'I am reading this file. Which part of it does this: "{purpose}"? Show me how it does it.',
    'Where in this file is the code for "{purpose}", and what exactly does it do?',
    'Explain how this file implements the following: "{purpose}"',
    'Walk me through the code responsible for this behaviour: "{purpose}"',
)


@dataclass(frozen=True)
class Described:
    name: str
    purpose: str  # a sentence of its docstring or leading comment
    body: list[str]  # the body's lines


def _sentence(doc: str) -> str:
    """The first sentence of a docstring or comment, whitespace folded."""
    text = " ".join(doc.split())
    m = re.match(r"(.{12,240}?[.!?])(?:\s|$)", text)
    return (m.group(1) if m else text[:240]).strip()


def python_functions(source: str) -> list[Described]:
    tree = ast.parse(source)
    lines = source.split("\n")
    out = []
    for node in ast.walk(tree):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            continue
        doc = ast.get_docstring(node)
        if not doc or len(node.body) < 2:
            continue
        start = node.body[1].lineno - 1
        body = lines[start:node.end_lineno]
        out.append(Described(node.name, _sentence(doc), body))
    return out


_BRACE_HEADER = re.compile(r"^([ \t]*)(?:[\w$<>:,*&~\[\] ]+?\s)?(~?[A-Za-z_$#][\w$]*)\s*\([^;{}]*\)?[^;{}]*\{?\s*$")
_SHELL_HEADER = re.compile(r"^([ \t]*)(?:function\s+)?([A-Za-z_][\w:-]*)\s*\(\)\s*\{?\s*$")
_NOT_NAMES = {"if", "for", "while", "switch", "catch", "return", "function", "else", "do", "sizeof"}


def _comment_above(lines: list[str], i: int, shell: bool) -> str:
    """The comment block right above line ``i`` (doc comment or line comments), as text."""
    j = i - 1
    # Declaration lines between the comment and the name (template<...>, return type, macros).
    while j >= 0 and i - j <= 4 and lines[j].strip() and not lines[j].strip().startswith(("*", "/", "#", "}")) \
            and ";" not in lines[j] and "{" not in lines[j]:
        j -= 1
    got: list[str] = []
    while j >= 0:
        s = lines[j].strip()
        if shell and s.startswith("#") and not s.startswith("#!"):
            got.append(s.lstrip("#").strip())
        elif not shell and (s.startswith(("*", "/*", "//"))):
            got.append(re.sub(r"^(?:/\*\*?|\*/?|//+)\s*", "", s).replace("*/", "").strip())
        else:
            break
        j -= 1
    text = " ".join(reversed([g for g in got if g]))
    return re.sub(r"@(?:brief|return|param\s+\S+|tparam\s+\S+|pre|post)\s*", "", text)


def brace_functions(source: str, *, shell: bool = False) -> list[Described]:
    """Functions whose body closes with "}" at the header's own indentation."""
    lines = source.split("\n")
    out = []
    header = _SHELL_HEADER if shell else _BRACE_HEADER
    for i, line in enumerate(lines):
        m = header.match(line)
        if not m or m.group(2) in _NOT_NAMES:
            continue
        indent = m.group(1)
        # The body opens on the header line, on the next line alone ("{"), or after the
        # parameter list continued on the next lines (its parentheses balance there).
        if line.rstrip().endswith("{"):
            opens = i
        elif i + 1 < len(lines) and lines[i + 1].strip() == "{":
            opens = i + 1
        elif line.count("(") > line.count(")"):
            opens = next((k for k in range(i + 1, min(len(lines), i + 8)) if lines[k].rstrip().endswith("{")), -1)
            span = "".join(lines[i:opens + 1])
            if opens < 0 or ";" in span or span.count("(") != span.count(")"):
                continue
        else:
            continue
        close = next((k for k in range(opens + 1, min(len(lines), opens + 400))
                      if lines[k].startswith(indent + "}") and not lines[k][len(indent) + 1:].strip().startswith("}")), -1)
        if close < 0:
            continue
        purpose = _sentence(_comment_above(lines, i, shell))
        if len(purpose) < 20:
            continue
        out.append(Described(m.group(2), purpose, lines[opens + 1:close]))
    return out


def _facts(content: str, d: Described, question: str) -> list[str]:
    candidates = []
    for ln in d.body:
        s = ln.strip()
        if len(s) < MIN_FACT_CHARS or s.startswith(("#", "//", "*", "/*")) or s in question:
            continue
        if content.count(s) == 1 and s not in candidates:
            candidates.append(s)
    if len(candidates) < 2:
        return []
    return [candidates[len(candidates) // 3], candidates[(2 * len(candidates)) // 3]] \
        if len(candidates) > 2 else candidates


def numbered(text: str) -> str:
    """``cat -n`` of ``text``."""
    return "".join(f"{i:6d}\t{ln}\n" for i, ln in enumerate(text.split("\n")[:-1] if text.endswith("\n")
                                                             else text.split("\n"), 1))


def file_cases(source: str, files: Iterable[tuple[str, Path]], finder, *, per_file: int = 2,
               numbered_every: int = 3) -> list[dict[str, Any]]:
    """Cases for each (shown path, real file): ``per_file`` functions spread over the file
    whose purpose sentence avoids their name and whose body has two distinctive lines."""
    out = []
    k = 0
    for shown, path in files:
        text = path.read_text(encoding="utf-8")
        picked = []
        for d in finder(text):
            if len(d.body) < MIN_BODY_LINES or d.name.lower() in d.purpose.lower() or len(d.purpose) < 20:
                continue
            picked.append(d)
        step = max(1, len(picked) // per_file)
        for d in picked[step // 2::step][:per_file]:
            sid = f"{shown.replace('/', '_').replace('.', '_')}_{d.name}"
            if any(c["id"] == f"{source}/{sid}" for c in out):
                continue
            question = choose(f"{source}/{sid}", WORDINGS).format(purpose=d.purpose)
            facts = _facts(text, d, question)
            if len(facts) < 2:
                continue
            k += 1
            if numbered_every and k % numbered_every == 0:
                content, tool, args, form = numbered(text), "bash", {"command": f"cat -n {shown}"}, "text"
            else:
                content, tool, args, form = text, "read_file", {"path": shown}, "text"
            out.append(make_case(source, sid, form, tool, args, "describe", question, content,
                                 [fact(f, "code_body", f"a statement occurring once in the file, from the body of "
                                          f"{d.name}, the function the question describes", "independent")
                                  for f in facts]))
    return out
