"""The units of a source file: functions, classes and other blocks, with the lines an
elision may replace.

Found on the masked text (mask.py) by whole-text regex searches: Python definitions by
one ``def|class`` search and, per definition, one search for the next line indented no
deeper (checked for open brackets); brace languages by one pass over their braces; YAML by
keys that open an indented block; TOML by its ``[section]`` headers. No loop runs a regex
over every line.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from dataclasses import dataclass
from functools import lru_cache
from itertools import accumulate, repeat
from operator import sub


@dataclass(eq=False)  # compared by identity: units are positions in one file
class Unit:
    name: str
    kind: str  # "function" (body elidable), "container" (class, impl, namespace: never elided), "block"
    header: int  # line the definition starts on
    body_start: int  # first line an elision replaces
    body_end: int  # last line it replaces (inclusive)
    indent: str  # indentation of the elision comment
    keep: tuple[int, ...] = ()  # body lines that stay even when the body is elided (a docstring's ends)
    needs_statement: bool = False  # the body must keep a statement (Python, shell): the elision carries one
    doc_start: int = -1  # first line of its leading comments/decorators (for scoring)
    parent: int = -1  # index of the enclosing unit

    @property
    def size(self) -> int:
        return self.body_end - self.body_start + 1


def line_starts(text: str, lines: list[str] | None = None) -> list[int]:
    """Offset of each line's first character (lines split on "\\n"), without a Python loop;
    ``lines``: ``text.split("\\n")`` when the caller has it."""
    return list(accumulate(map((1).__add__, map(len, text.split("\n") if lines is None else lines)), initial=0))


def _line_of(starts: list[int], offset: int) -> int:
    return bisect_right(starts, offset) - 1


# Brackets become "(" and ")", everything else but line breaks is deleted: one bytes pass.
_BRACKETS = bytes.maketrans(b"[{]}", b"(())")
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"()[]{}\n")


def bracket_depths(masked: str) -> list[int]:
    """Open brackets at the start of each line of the masked text (C-level passes only)."""
    parts = masked.encode("utf-8", "surrogatepass").translate(_BRACKETS, _NOT_BRACKETS).split(b"\n")
    deltas = map(sub, map(bytes.count, parts, repeat(b"(")), map(bytes.count, parts, repeat(b")")))
    return list(accumulate(deltas, initial=0))


def _indent_of(line: str) -> str:
    return line[: len(line) - len(line.lstrip(" \t"))]


def _leading_comments(lines: list[str], header: int, prefixes: tuple[str, ...], declaration: int = 0) -> int:
    """First line of the comment/decorator run right above ``header``; with ``declaration``,
    first passing up to that many lines of the declaration itself (a C++ template line, a
    return type, parameters on lines of their own) that are no statement or block end."""
    j = header
    while declaration and j > 0:
        s = lines[j - 1].strip()
        if not s or s.endswith((";", "}", "{")) or s.startswith(prefixes):
            break
        j -= 1
        declaration -= 1
    while j > 0 and j > header - 60:
        s = lines[j - 1].lstrip()
        if not s or not s.startswith(prefixes):
            break
        j -= 1
    return j


def doc_spans(text: str, lines: list[str], units: list[Unit], lang_blocks: str,
              starts: list[int] | None = None) -> list[tuple[int, int]]:
    """Line spans (first, last) of the descriptions in the file: block comments standing on
    their own lines (brace languages), function and class docstrings (Python).

    A block comment stands on its own lines when only blanks precede its "/*" on its line
    and follow its first "*/" on that one's."""
    if lang_blocks == "python":
        return [(u.keep[0], u.keep[-1]) for u in units if len(u.keep) >= 2]
    if lang_blocks != "brace":
        return []
    if starts is None:
        starts = line_starts(text, lines)
    # From "/*" to "/*" by str.find, in C: a "^"-led regex was tried at every character.
    spans = []
    pos = 0
    while (opening := text.find("/*", pos)) >= 0:
        pos = opening + 1  # unless it stands alone: a later "/*" may
        first = _line_of(starts, opening)
        if lines[first][: opening - starts[first]].strip(" \t"):
            continue  # code before it on its line
        close = text.find("*/", opening + 2)
        if close < 0:
            break  # no comment closes after this one opens, nor after any later one
        last = _line_of(starts, close)
        if not lines[last][close + 2 - starts[last]:].strip(" \t"):
            spans.append((first, last))
            pos = close + 2
    return spans


def _link_parents(units: list[Unit]) -> list[Unit]:
    """Units in file order with their parents linked, without those inside a function:
    a function is kept whole or elided whole, so what it holds is never a choice."""
    units.sort(key=lambda u: (u.header, -u.body_end))
    out: list[Unit] = []
    stack: list[int] = []  # indices into out
    for u in units:
        while stack and out[stack[-1]].body_end < u.header:
            stack.pop()
        if stack and out[stack[-1]].kind == "function":
            continue
        u.parent = stack[-1] if stack else -1
        stack.append(len(out))
        out.append(u)
    return out


# -- Python ------------------------------------------------------------------------------------

# Searched without "^": a literal-led pattern lets the engine skip to each "def"/"class" in C
# (an anchored one is tried at every character); the line start is checked per match.
_PY_DEF = re.compile(r"(def|class)[ \t]+(\w+)")
_DOC_OPEN = re.compile(r"[ \t]*[rRuU]?(\"\"\"|''')")


@lru_cache(maxsize=64)
def _dedent_at(k: int) -> re.Pattern:
    # The next line whose code starts at column <= k (comments are masked away).
    return re.compile(r"^[ \t]{0,%d}(?=[^ \t\n\r\f\v])" % k, re.M)


@lru_cache(maxsize=64)
def _line_break_before_dedent(k: int) -> re.Pattern:
    # The same, matched from the line break before it: led by a literal, the engine skips
    # from break to break in C where the "^" form was tried at every character.
    return re.compile(rf"\n[ \t]{{0,{k}}}(?=[^ \t\n\r\f\v])")


def python_units(text: str, masked: str, lines: list[str], starts: list[int] | None = None) -> list[Unit]:
    """``starts``: line_starts(text) when the caller has it."""
    mlines = masked.split("\n")
    mstarts = line_starts(masked, mlines)
    depth = bracket_depths(masked)
    ostarts = starts
    n = len(mlines)
    units: list[Unit] = []
    # _link_parents' stack, kept during the scan (definitions come in its order, one per
    # line): a definition inside a function it would drop is not read at all.
    enclosing: list[Unit] = []
    for m in _PY_DEF.finditer(masked):
        line_start = masked.rfind("\n", 0, m.start()) + 1
        lead = masked[line_start:m.start()]
        stripped = lead.strip()
        if stripped and (stripped != "async" or not lead[-1:].isspace()):
            continue  # "undef x", "subclass y": not a definition
        first = _line_of(mstarts, m.start())
        while enclosing and enclosing[-1].body_end < first:
            enclosing.pop()
        if enclosing and enclosing[-1].kind == "function":
            continue
        k = len(lead) - len(lead.lstrip(" \t"))
        # The header ends on the first line where its brackets close; it must end with ":"
        # (else a one-line def: nothing to elide).
        base = depth[first]
        header_end = first
        while header_end + 1 < n and depth[header_end + 1] > base and header_end - first < 80:
            header_end += 1
        if header_end + 1 >= n or not mlines[header_end].rstrip().endswith(":"):
            continue
        body_start = header_end + 1
        dedent = _line_break_before_dedent(k)
        pos, end = mstarts[body_start] - 1, n
        while True:
            d = dedent.search(masked, pos)
            if d is None:
                break
            line = _line_of(mstarts, d.start() + 1)
            # Not a continuation line (open brackets, a trailing backslash): the block ends.
            if depth[line] == base and not mlines[line - 1].rstrip().endswith("\\"):
                end = line
                break
            pos = d.end() + 1
        # Trailing blank and comment lines belong to what follows; a multi-line string's
        # last lines (blank once masked) still belong to the body.
        body_end = end - 1
        while body_end >= body_start and not mlines[body_end].strip() and \
                (not lines[body_end].strip() or lines[body_end].lstrip().startswith("#")):
            body_end -= 1
        if body_end < body_start:
            continue
        # A docstring (the first statement, a triple-quoted string): its first line (and its
        # summary line when the first holds only the quotes) and its last line stay.
        keep: tuple[int, ...] = ()
        j = body_start
        while j <= body_end and (not lines[j].strip() or lines[j].lstrip().startswith("#")):
            j += 1
        doc = _DOC_OPEN.match(lines[j]) if j <= body_end else None
        if doc is not None:
            q = doc.group(1)
            if lines[j].find(q, doc.end()) >= 0:
                keep = (j,)
            else:
                if ostarts is None:
                    ostarts = line_starts(text)
                close = text.find(q, ostarts[j] + doc.end())
                last = _line_of(ostarts, close) if close >= 0 else -1
                if body_start < last <= body_end:
                    summary = (j + 1,) if not lines[j][doc.end():].strip() and j + 1 < last else ()
                    keep = (j, *summary, last)
        # Nothing to elide past a docstring.
        if keep and keep[-1] >= body_end:
            body_start = body_end + 1
        unit = Unit(
            name=m.group(2), kind="function" if m.group(1) == "def" else "container", header=first,
            body_start=body_start, body_end=body_end,
            indent=_indent_of(lines[j] if j <= body_end and lines[j].strip() else lines[body_start]) or " " * (k + 4),
            keep=keep, needs_statement=not keep, doc_start=_leading_comments(lines, first, ("#", "@")))
        if unit.body_start <= unit.body_end or unit.kind == "container":
            units.append(unit)
            enclosing.append(unit)
    return _link_parents(units)


# -- Brace languages -------------------------------------------------------------------------

_BRACES = re.compile(r"([{}])")
_CONTROL = re.compile(r"^\s*(?:}\s*)?(?:else\s+)?(?:if|for|foreach|while|switch|catch|do|try|else|with|"
                      r"synchronized|lock|using|unsafe|loop|match|select|finally|case|default)\b")
_CONTAINER = re.compile(r"\b(?:class|struct|interface|namespace|impl|trait|enum|union|extern|object|module|"
                        r"record|protocol|extension|mod)\b")
# A header that starts with a type or scope keyword (after modifiers) opens a container.
_CONTAINER_START = re.compile(
    r"^\s*(?:template\s*<[^{]*>\s*)?(?:(?:export|public|private|protected|internal|abstract|static|final|sealed|"
    r"partial|data|open|pub(?:\([^)]*\))?|unsafe|default|declare)\s+)*"
    r"(?:namespace|extern|class|struct|union|enum|interface|impl|trait|mod|module|object|record|protocol|extension)\b")
# What may follow a parameter list before a body: qualifiers, a return type, a where clause.
_AFTER_PARAMS = re.compile(r"(?:\s*(?:const|noexcept(?:\([^)]*\))?|override|final|volatile|mutable|&&?|"
                           r"[A-Z_][A-Z0-9_]{2,}(?:\([^)]*\))?|"  # a qualifier macro (_GLIBCXX_NOEXCEPT)
                           r"throws\s+[\w.,\s]+|->\s*[^{;]+|where\s+[^{;]+|:\s*[\w<>\[\].|,? ]+))*\s*")
# "function", "fn" or "func" as a word; led by its literal "f" (the word start checked
# behind it), so the engine skips to each "f" in C.
_FUNCTION_KEYWORD = re.compile(r"f(?<!\wf)(?:unction|n|unc)\b")


def _looks_like_function(header: str) -> bool:
    """A header that ends in a parameter list (and its qualifiers), or an arrow/keyword function."""
    t = header.rstrip()
    if t.endswith((")", "=>")) or _FUNCTION_KEYWORD.search(t):
        return True
    i = t.rfind(")")
    return i >= 0 and _AFTER_PARAMS.fullmatch(t, i + 1) is not None


_SHELL_FUNCTION = re.compile(r"^\s*(?:function\s+[\w.:-]+(?:\s*\(\))?|[\w.:-]+\s*\(\))\s*$")
# A name before a parameter list; JS methods may be computed ("[kName] (") or private ("#name(").
# Both start only where a name starts (the lookbehind): a match never starts inside one,
# and trying there ran the name's greedy run to its end again from every character.
_CALL_NAME = re.compile(r"\[?(?<![~\w$#])([~\w$#]+)\]?\s*(?:<[^()]*>)?\s*\(")
_ASSIGNED_NAME = re.compile(r"(?<![\w$])([\w$]+)\s*[:=]\s*(?:async\s*)?(?:function\b|\(|[\w$]+\s*=>)")
_CONTAINER_NAME = re.compile(r"\b(?:class|struct|interface|namespace|impl|trait|enum|union|object|module|mod)\s+"
                             r"(?:<[^>]*>\s*)?([\w:$]+)")
_KEYWORDS = frozenset("if for while switch catch return func fn function sizeof typeof new delete await async "
                      "throw decltype alignof noexcept static_cast const_cast".split())


def _function_name(header: str) -> str:
    m = _ASSIGNED_NAME.search(header)
    if m:
        return m.group(1)
    for c in _CALL_NAME.finditer(header):
        if c.group(1) not in _KEYWORDS:
            return c.group(1)
    return ""


def brace_units(masked: str, lines: list[str], *, shell: bool = False) -> list[Unit]:
    mlines = masked.split("\n")
    mstarts = line_starts(masked, mlines)
    stack: list[int] = []
    pairs: list[tuple[int, int]] = []
    # The braces and their offsets from one split in C (a match object per brace cost more
    # than the pairing): each brace sits one past the text before it.
    pieces = _BRACES.split(masked)
    offsets = accumulate(map((1).__add__, map(len, pieces[0::2])))
    for p, brace in zip(offsets, pieces[1::2]):
        if brace == "{":
            stack.append(p - 1)
        elif stack:
            pairs.append((stack.pop(), p - 1))
    pairs.sort()  # outer blocks first, so what a function holds is skipped unread
    comment_prefixes = ("#",) if shell else ("//", "/*", "*", "@", "#[", "[[")
    units: list[Unit] = []
    function_until = -1
    for o, c in pairs:
        if o < function_until:
            continue
        # Whole lines only: "{" ends its line, "}" starts its own, at least one line between.
        nl = masked.find("\n", o, c)
        if nl < 0 or masked[o + 1:nl].strip():
            continue
        prev = masked.rfind("\n", o, c)
        if prev == nl or masked[prev + 1:c].strip():
            continue
        lo, lc = _line_of(mstarts, o), _line_of(mstarts, c)
        open_line = mlines[lo]
        header = open_line.rstrip()[:-1]
        head_line = lo
        if not header.strip() and lo > 0:  # Allman style: the header is the line above
            head_line = lo - 1
            header = mlines[head_line]
        if not shell and header.rstrip().endswith((")", ",")) and "(" not in header:
            # Parameters on lines of their own: read the declaration from its name on.
            top = head_line
            while top > 0 and head_line - top < 8 and "(" not in mlines[top] and mlines[top - 1].strip() \
                    and not mlines[top - 1].rstrip().endswith((";", "}", "{")):
                top -= 1
            header = " ".join(mlines[top:head_line + 1])
        if shell:
            kind = "function" if _SHELL_FUNCTION.match(header) else "block"
            name = header.replace("function", "").replace("()", "").strip() if kind == "function" else ""
        elif _CONTROL.match(header):
            kind, name = "block", ""
        elif _CONTAINER_START.match(header):
            kind = "container"
            cm = _CONTAINER_NAME.search(header)
            name = cm.group(1) if cm else ""
        elif _looks_like_function(header) and ((name := _function_name(header)) or "=>" in header):
            kind = "function"
        elif _CONTAINER.search(header):
            kind = "container"
            cm = _CONTAINER_NAME.search(header)
            name = cm.group(1) if cm else ""
        else:
            kind, name = "block", ""
        if kind == "function":
            function_until = c
        doc_start = _leading_comments(lines, head_line, comment_prefixes, 0 if shell else 8)
        units.append(Unit(name=name, kind=kind, header=head_line, body_start=lo + 1, body_end=lc - 1,
                          indent=_indent_of(lines[lo + 1]) if lines[lo + 1].strip() else _indent_of(lines[lo]) + "  ",
                          needs_statement=shell, doc_start=doc_start))
    return _link_parents(units)


# -- YAML and TOML -----------------------------------------------------------------------------

_YAML_KEY = re.compile(r"^([ \t]*)(?:- )?([^\s#][^#\n]*?):[ \t]*(?:#[^\n]*)?$", re.M)
_TOML_SECTION = re.compile(r"^[ \t]*\[\[?([^\]\n]+)\]\]?[ \t]*(?:#[^\n]*)?$", re.M)


def yaml_units(text: str, lines: list[str]) -> list[Unit]:
    starts = line_starts(text)
    units: list[Unit] = []
    for m in _YAML_KEY.finditer(text):
        first = _line_of(starts, m.start())
        k = len(m.group(1)) + (2 if m.group().lstrip().startswith("- ") else 0)
        d = _dedent_at(k).search(text, starts[first + 1]) if first + 1 < len(lines) else None
        end_off = d.start() if d else len(text)
        code_end = starts[first + 1] + len(text[starts[first + 1]:end_off].rstrip()) if first + 1 < len(lines) else 0
        if first + 1 >= len(lines) or code_end <= starts[first + 1]:
            continue
        body_end = _line_of(starts, code_end - 1)
        units.append(Unit(name=m.group(2).strip("\"' "), kind="block", header=first, body_start=first + 1,
                          body_end=body_end, indent=_indent_of(lines[first + 1]),
                          doc_start=_leading_comments(lines, first, ("#",))))
    return _link_parents(units)


def toml_units(text: str, lines: list[str]) -> list[Unit]:
    starts = line_starts(text)
    heads = [(_line_of(starts, m.start()), m.group(1)) for m in _TOML_SECTION.finditer(text)]
    units: list[Unit] = []
    for i, (line, name) in enumerate(heads):
        nxt = heads[i + 1][0] if i + 1 < len(heads) else len(lines)
        end = nxt - 1
        while end > line and (not lines[end].strip() or lines[end].lstrip().startswith("#")):
            end -= 1
        if end > line:
            units.append(Unit(name=name, kind="block", header=line, body_start=line + 1, body_end=end, indent="",
                              doc_start=_leading_comments(lines, line, ("#",))))
    return units
