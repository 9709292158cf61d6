"""CodeCompressor: source files reduced to their outline.

Imports, the module docstring, top-level statements, class bodies, decorators and every
function/method signature stay. A function body longer than ``code_body_max_lines`` is
replaced by one comment in the language's own syntax (``# … 23 lines elided`` or
``// … 23 lines elided``), after its docstring when it has one. A body that contains an
anchor from the question (an identifier, a path, a quoted string) is never elided, so
the code the user asks about survives whole.

Python is outlined with ``ast`` when it parses (exact spans, decorators, nested
functions); otherwise by indentation. Brace languages (JS/TS, Go, Java, C#, C/C++, Rust,
Kotlin, Swift, PHP) use a brace-depth scan that ignores braces in strings and comments.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass

from .base import Compressed, CompressInput


@dataclass(frozen=True)
class Body:
    """Lines ``start..end`` (0-based, inclusive) of one function body, elidable as a unit.

    ``signature`` is the line the function's definition starts on: an anchor there (the
    function's name) protects the body as much as an anchor inside it.
    """

    start: int
    end: int
    indent: str
    signature: int


# -- Python ----------------------------------------------------------------------------------

def _python_bodies_ast(source: str, lines: list[str]) -> list[Body] | None:
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    bodies: list[Body] = []

    def statements(node: ast.AST):
        # Functions live only in statement lists; skipping expressions makes the walk
        # touch a few percent of the nodes.
        for attr in ("body", "orelse", "finalbody", "handlers", "cases"):
            for child in getattr(node, attr, None) or ():
                if isinstance(child, ast.AST):
                    yield child

    def visit(node: ast.AST) -> None:
        for child in statements(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)):
                body = child.body
                first = body[0]
                # Keep the docstring: it is the function's summary.
                if (isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant)
                        and isinstance(first.value.value, str)):
                    if len(body) == 1:
                        visit(child)
                        continue
                    first = body[1]
                start = first.lineno - 1
                end = (child.end_lineno or first.lineno) - 1
                # A one-line def ("def f(): return 1") has its body on the def line.
                if start <= child.lineno - 1:
                    continue
                indent = re.match(r"[ \t]*", lines[start]).group(0) if start < len(lines) else "    "
                bodies.append(Body(start, end, indent, child.lineno - 1))
                visit(child)  # nested functions, used when the outer one is kept
            else:
                visit(child)

    visit(tree)
    return bodies


_PY_DEF = re.compile(r"^([ \t]*)(?:async[ \t]+)?def[ \t]+\w+")


def _python_bodies_indent(lines: list[str]) -> list[Body]:
    """Fallback for Python that does not parse: a def's body is the deeper-indented run."""
    bodies: list[Body] = []
    n = len(lines)
    for i, line in enumerate(lines):
        m = _PY_DEF.match(line)
        if not m:
            continue
        base = len(m.group(1).expandtabs())
        # The signature may span lines; it ends at the first line ending with ":".
        j = i
        while j < n and not lines[j].split("#")[0].rstrip().endswith(":"):
            j += 1
        if j >= n:
            continue
        k = j + 1
        last = j
        while k < n:
            s = lines[k]
            if s.strip():
                if len(s) - len(s.lstrip()) <= base and len(s.expandtabs()) - len(s.expandtabs().lstrip()) <= base:
                    break
                last = k
            k += 1
        if last > j:
            indent = re.match(r"[ \t]*", lines[j + 1]).group(0) or " " * (base + 4)
            bodies.append(Body(j + 1, last, indent, i))
    return bodies


# -- Brace languages -------------------------------------------------------------------------

_STRINGS = re.compile(r'"(?:\\.|[^"\\])*"|\'(?:\\.|[^\'\\])*\'|`(?:\\.|[^`\\])*`')
_CONTROL = re.compile(r"^\s*(?:}\s*)?(?:if|else|for|foreach|while|do|switch|try|catch|finally|with|match|select|case|return|synchronized|unsafe|loop)\b")
_TYPE_DECL = re.compile(r"\b(?:class|interface|struct|enum|trait|impl|namespace|module|object|record|extension|protocol|union)\b")
# A signature: a name followed by a parameter list, or an arrow function, then "{".
_SIGNATURE = re.compile(r"[\w$>\]]\s*\([^;]*\)[^;=]*\{\s*$|=>\s*\{\s*$|\bfunc\b[^;]*\{\s*$|\bfn\b[^;]*\{\s*$")


def _strip_code_line(line: str, in_block_comment: bool) -> tuple[str, bool]:
    """The line without strings and comments (so their braces do not count)."""
    out = []
    i = 0
    s = _STRINGS.sub('""', line) if '"' in line or "'" in line or "`" in line else line
    while i < len(s):
        if in_block_comment:
            end = s.find("*/", i)
            if end < 0:
                return "".join(out), True
            i = end + 2
            in_block_comment = False
            continue
        if s.startswith("//", i):
            break
        if s.startswith("/*", i):
            in_block_comment = True
            i += 2
            continue
        out.append(s[i])
        i += 1
    return "".join(out), in_block_comment


def _brace_bodies(lines: list[str]) -> list[Body]:
    clean: list[str] = []
    in_comment = False
    for line in lines:
        c, in_comment = _strip_code_line(line, in_comment)
        clean.append(c)
    bodies: list[Body] = []
    # Stack of (line index where a function body opened, depth before it) and plain depth.
    depth = 0
    open_fn: list[tuple[int, int, int]] = []
    for i, c in enumerate(clean):
        is_sig = (
            c.rstrip().endswith("{")
            and not _CONTROL.match(c)
            and not _TYPE_DECL.search(c)
            and (_SIGNATURE.search(c) or (i > 0 and c.strip() == "{" and clean[i - 1].rstrip().endswith(")")
                                          and not _CONTROL.match(clean[i - 1])))
        )
        for ch in c:
            if ch == "{":
                depth += 1
            elif ch == "}":
                depth -= 1
                if open_fn and depth == open_fn[-1][1]:
                    start_line, _, sig_line = open_fn.pop()
                    if i - 1 >= start_line + 1:
                        body_indent = re.match(r"[ \t]*", lines[start_line + 1]).group(0) if start_line + 1 < len(lines) else ""
                        bodies.append(Body(start_line + 1, i - 1, body_indent, sig_line))
        if is_sig:
            # The body opens on this line: the "{" is its last brace.
            sig = i - 1 if c.strip() == "{" else i
            open_fn.append((i, depth - 1, sig))
    return bodies


# -- Selection and rendering -----------------------------------------------------------------

def _select(bodies: list[Body], lines: list[str], max_lines: int, anchors) -> list[Body]:
    """Outermost bodies longer than ``max_lines`` without an anchor; inner ones otherwise."""
    chosen: list[Body] = []
    for b in sorted(bodies, key=lambda b: (b.start, -b.end)):
        if any(c.start <= b.start and b.end <= c.end for c in chosen):
            continue  # inside an already elided body
        size = b.end - b.start + 1
        if size <= max_lines:
            continue
        if anchors and anchors.matches("\n".join(lines[b.signature:b.end + 1])):
            continue  # the question is about this code: keep it whole
        chosen.append(b)
    return chosen


def _render(lines: list[str], elided: list[Body], comment: str) -> str:
    out: list[str] = []
    skip_until = -1
    starts = {b.start: b for b in elided}
    for i, line in enumerate(lines):
        if i <= skip_until:
            continue
        b = starts.get(i)
        if b is not None:
            out.append(f"{b.indent}{comment} … {b.end - b.start + 1} lines elided")
            skip_until = b.end
            continue
        out.append(line)
    return "\n".join(out)


def _looks_like_python(text: str) -> bool:
    return bool(re.search(r"^[ \t]*(?:async[ \t]+)?def[ \t]+\w+\s*\(.*$", text, re.MULTILINE)) and not re.search(
        r"^\s*(?:function\b|func\b|fn\b|public\b|private\b|#include\b|package\b)", text, re.MULTILINE
    )


class CodeCompressor:
    name = "code"

    def compress(self, inp: CompressInput) -> Compressed | None:
        text = inp.text
        lines = text.splitlines()
        if len(lines) < 10:
            return None
        scale = 1.5 - min(1.0, max(0.0, float(inp.aggressiveness)))
        max_lines = max(0, round(inp.config.router.code_body_max_lines * scale))

        bodies = _python_bodies_ast(text, lines) if "def " in text else None
        if bodies is not None and (bodies or _looks_like_python(text)):
            strategy, comment = "python_ast", "#"
        elif _looks_like_python(text):
            bodies, strategy, comment = _python_bodies_indent(lines), "python_indent", "#"
        else:
            bodies, strategy, comment = _brace_bodies(lines), "brace_outline", "//"
        if not bodies:
            return None
        elided = _select(bodies, lines, max_lines, inp.anchors)
        if not elided:
            return None
        dropped = sum(b.end - b.start + 1 for b in elided)
        # Items are function bodies; one is gone when it or a body around it was elided.
        hidden = sum(1 for b in bodies if any(e.start <= b.start and b.end <= e.end for e in elided))
        return Compressed(
            text=_render(lines, elided, comment),
            items_before=len(bodies),
            items_after=len(bodies) - hidden,
            strategy=strategy,
            lossy=True,
            summary=f"{hidden} of {len(bodies)} function bodies elided ({dropped} lines)",
        )
