"""A structured text as a tree of whole lines.

Lines first group into *units*: a logical line with its continuations (a backslash at
the end, an unclosed bracket or triple quote, a YAML block scalar, a multi-line XML tag
or comment, an SQL statement up to its semicolon, a heredoc). A unit is kept or elided
whole, so no value is ever cut in two. Units then nest, by the format's shape:
indentation (YAML, XML, JSON with comments, Makefiles, templates), section headers
(TOML, INI, a Dockerfile's stages), or not at all (SQL, .env). Block openers and
closers on the same indentation (``{% if %}`` … ``{% endif %}``, ``ifeq`` … ``endif``,
``</tag>``, a closing brace) belong to the block they close: kept whenever its header is.

One pass over the lines, no regex per character: a 1 000-line file costs well under the
time tiktoken takes to count it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .formats import TEMPLATE_CLOSE, TEMPLATE_MIDDLE, TEMPLATE_OPEN, Format, sql_statement_end


@dataclass(slots=True)
class Node:
    start: int  # first line of the header unit
    head_end: int  # exclusive end of the header unit
    parent: int  # index of the parent node, -1 at the top
    depth: int
    end: int = 0  # exclusive end of the whole subtree (children and closers included)
    closers: list[tuple[int, int]] = field(default_factory=list)  # units that close this block
    opens_block: bool = False  # children are the following units at the same indentation


_BLOCK_SCALAR = re.compile(r"[:\-]\s*[|>][+-]?\d*\s*(?:#.*)?$")
_YAML_KEY = re.compile(r"^\s*(?:-\s+)*(\"[^\"]*\"|'[^']*'|[^\s#][^#]*?)\s*:(?:\s|$)")
_KV_KEY = re.compile(r"^\s*(?:export\s+)?(\"[^\"]*\"|'[^']*'|[^\s=:#;\[]+(?:\s+[^\s=:#;\[]+)*)\s*[=:]")
_SECTION = re.compile(r"^\s*\[\[?\s*([^\[\]]+?)\s*\]\]?\s*(?:[#;].*)?$")
_XML_TAG = re.compile(r"^\s*<([\w:.-]+)")
_XML_CLOSER = re.compile(r"^\s*</")
_BRACE_CLOSER = re.compile(r"^\s*[}\]]")
_MAKE_TARGET = re.compile(r"^([^\s:=#][^:=#]*?)\s*::?(?!=)")
_MAKE_OPEN = re.compile(r"^\s*(?:ifeq|ifneq|ifdef|ifndef)\b")
_MAKE_MIDDLE = re.compile(r"^\s*else\b")
_MAKE_CLOSE = re.compile(r"^\s*endif\b")
_DOCKER_STAGE = re.compile(r"^\s*FROM\s", re.IGNORECASE)
_HEREDOC = re.compile(r"<<-?\s*[\"']?(\w+)[\"']?")
_WORD = re.compile(r"[A-Za-z_][\w-]*")


def indent_of(line: str) -> int:
    k = len(line) - len(line.lstrip(" \t"))
    return k + line.count("\t", 0, k) * 7 if k else 0


# A non-blank line this finds nothing in is a logical line of its own (below: no block
# scalar or open bracket in YAML, no open bracket or triple quote in TOML, no trailing
# backslash in properties or plain lines, no comment, CDATA or unclosed tag in XML; JSON
# with comments: always), wherever a unit starts with it: most lines take no further test.
_YAML_MAY_CONTINUE = re.compile(r"[|>\[{]")
_TOML_MAY_CONTINUE = re.compile(r"[\[{(]|'''|\"\"\"")
_MAY_CONTINUE = {
    "yaml": _YAML_MAY_CONTINUE.search,
    "toml": _TOML_MAY_CONTINUE.search,
    "properties": re.compile(r"\\\s*$").search,
    "lines": re.compile(r"\\\s*$").search,
    "jsonc": lambda _line: None,
    # XML: a comment or CDATA section may run on, and so may a tag left open
    "xml": lambda line: "<!--" in line or "<![CDATA[" in line or line.count("<") > line.count(">"),
}


# The patterns above that match within one line only (no anchor, nothing that matches a
# newline): the lines they hit are found by one scan of the joined text, each line that may
# continue found once, instead of a search per line (most lines hold none: 1 of a sysctl
# dump's 1 800 lines).
_MAY_CONTINUE_IN_LINE = {"yaml": _YAML_MAY_CONTINUE, "toml": _TOML_MAY_CONTINUE}


def _lines_hit(lines: list[str], pattern: re.Pattern[str]) -> list[int]:
    """Indices of the lines ``pattern`` finds something in, ascending."""
    text = "\n".join(lines)
    if text.count("\n") != len(lines) - 1:  # a line with a newline in it (not from text.split("\n"))
        return [k for k, ln in enumerate(lines) if pattern.search(ln)]
    out: list[int] = []
    line, pos = 0, 0  # ``pos``: where line ``line`` starts
    while (m := pattern.search(text, pos)) is not None:
        line += text.count("\n", pos, m.start())
        out.append(line)
        pos = text.find("\n", m.start()) + 1  # on to the next line
        if not pos:
            break
        line += 1
    return out


def units(lines: list[str], fmt: Format) -> list[tuple[int, int]]:
    """Spans [start, end) of the logical lines of the non-blank text."""
    name = fmt.name
    n = len(lines)
    may_continue = _MAY_CONTINUE.get(name)
    if may_continue is not None:
        # Only the lines that may continue take the long test; the lines between them
        # stand alone (a blank line never may continue: it is skipped below).
        out: list[tuple[int, int]] = []
        pos = 0  # lines before this are placed
        in_line = _MAY_CONTINUE_IN_LINE.get(name)
        for i in _lines_hit(lines, in_line) if in_line else [k for k, ln in enumerate(lines) if may_continue(ln)]:
            if i < pos:
                continue  # inside the unit before
            out.extend((k, k + 1) for k in range(pos, i) if lines[k] and not lines[k].isspace())
            pos = _unit_end(lines, i, name)
            out.append((i, pos))
        out.extend((k, k + 1) for k in range(pos, n) if lines[k] and not lines[k].isspace())
        return out
    out = []
    i = 0
    while i < n:
        if not lines[i].strip():
            i += 1
            continue
        j = _unit_end(lines, i, name)
        out.append((i, j))
        i = j
    return out


def _unit_end(lines: list[str], i: int, name: str) -> int:
    """Exclusive end of the logical line starting at the non-blank line ``i``."""
    n = len(lines)
    ln = lines[i]
    s = ln.strip()
    j = i + 1
    if name == "yaml":
        if _BLOCK_SCALAR.search(s) and not s.startswith("#"):
            ind = indent_of(ln)
            while j < n and (not lines[j].strip() or indent_of(lines[j]) > ind):
                j += 1
            while j > i + 1 and not lines[j - 1].strip():
                j -= 1  # trailing blank lines are not part of the scalar's span
        else:
            j = _bracketed_end(lines, i, "[{", "]}")
    elif name == "sql":
        if s.startswith("/*"):
            while j <= n and "*/" not in lines[j - 1]:
                j += 1
            j = min(j, n)
        elif not s.startswith("--"):
            j = sql_statement_end(lines, i) or n
    elif name == "xml":
        if s.startswith("<!--"):
            while j <= n and "-->" not in lines[j - 1]:
                j += 1
        elif s.startswith("<![CDATA[") or "<![CDATA[" in s and "]]>" not in s:
            while j <= n and "]]>" not in lines[j - 1]:
                j += 1
        else:
            while j < n and lines[j - 1].count("<") > lines[j - 1].count(">") and "<" in s:
                j += 1
        j = min(j, n)
    elif name == "toml":  # a multi-line array or string is one value
        j = _bracketed_end(lines, i, "[{(", "]})", triple=True)
    # JSON with comments: one line per unit; its brackets nest by indentation and closers.
    elif name == "ini":
        ind = indent_of(ln)
        if not _SECTION.match(ln) and s[0] not in "#;":
            while j < n and lines[j].strip() and indent_of(lines[j]) > ind and lines[j].strip()[0] not in "#;":
                j += 1
    elif name == "makefile" and s.startswith("define"):
        while j < n and not lines[j - 1].strip().startswith("endef"):
            j += 1
    if name in ("dockerfile", "makefile", "properties") or (name == "lines" and s.endswith("\\")):
        while j < n and lines[j - 1].rstrip().endswith("\\"):
            j += 1
    if name == "dockerfile" and (m := _HEREDOC.search(lines[j - 1])) and not s.startswith("#"):
        word = m.group(1)
        while j < n and lines[j].strip() != word:
            j += 1
        j = min(j + 1, n)
    return max(j, i + 1)


def _bracketed_end(lines: list[str], i: int, opens: str, closes: str, triple: bool = False) -> int:
    """End of a line whose brackets (or TOML triple-quoted string) stay open past it."""
    n = len(lines)
    ln = lines[i]
    if triple and (ln.count('"""') % 2 == 1 or ln.count("'''") % 2 == 1):
        q = '"""' if ln.count('"""') % 2 == 1 else "'''"
        j = i + 1
        while j < n and q not in lines[j]:
            j += 1
        return min(j + 1, n)
    depth = _bracket_delta(ln, opens, closes)
    if depth <= 0:
        return i + 1
    j = i + 1
    while j < n and depth > 0 and j - i < 2000:
        depth += _bracket_delta(lines[j], opens, closes)
        j += 1
    return j


_STRING = re.compile(r'"(?:\\.|[^"\\])*"|\'[^\']*\'')


_ANY_BRACKET = {"[{": re.compile(r"[\[\]{}]").search, "[{(": re.compile(r"[\[\]{}()]").search}


def _bracket_delta(line: str, opens: str, closes: str) -> int:
    if not _ANY_BRACKET[opens](line):
        return 0  # most lines: no bracket at all
    s = line.split(" #", 1)[0] if "#" in line else line
    if "\"" in s or "'" in s:
        s = _STRING.sub("", s)
    return sum(map(s.count, opens)) - sum(map(s.count, closes))


def key_of(fmt: Format, line: str) -> str:
    """The name a question would use for the unit starting with ``line``."""
    name = fmt.name
    if name == "lines":  # the common case of long plain texts first
        return " ".join(_WORD.findall(line, 0, 200)[:6])
    if name == "yaml":
        m = _YAML_KEY.match(line)
        return m.group(1).strip("\"'") if m else line.strip().lstrip("- ").strip()
    if name in ("toml", "ini"):
        # A section header holds a "[": most lines are key = value, tried by one match
        m = (_SECTION.match(line) if "[" in line else None) or _KV_KEY.match(line)
        return m.group(1).strip().strip("\"'") if m else ""
    if name in ("properties", "jsonc"):
        m = _KV_KEY.match(line.lstrip().lstrip("{[,"))
        return m.group(1).strip().strip("\"'") if m else ""
    if name == "xml":
        m = _XML_TAG.match(line)
        return m.group(1) if m else ""
    if name == "makefile":
        m = _MAKE_TARGET.match(line) or _KV_KEY.match(line)
        return m.group(1).strip() if m else ""
    words = _WORD.findall(line[:200])
    return " ".join(words[:6])



class LineKeys(dict):
    """``key_of(fmt, lines[i])`` by line index ``i``, each worked out on first asking: the
    passes of one selection ask for the same one-line nodes' keys (a sysctl dump's 1 800)."""

    def __init__(self, fmt: Format, lines: list[str]):
        super().__init__()
        self.fmt, self.lines = fmt, lines

    def __missing__(self, i: int) -> str:
        key = self[i] = key_of(self.fmt, self.lines[i])
        return key


_CLOSING_FORMATS = frozenset(("xml", "jsonc", "jinja", "gotemplate", "erb", "lines", "makefile"))


def _is_closer(fmt: Format, line: str) -> bool:
    name = fmt.name
    if name == "xml":
        return bool(_XML_CLOSER.match(line))
    if name == "jsonc":
        return bool(_BRACE_CLOSER.match(line))
    if name in ("jinja", "gotemplate", "erb", "lines"):
        s = line.lstrip()
        return bool(TEMPLATE_CLOSE.match(s)) or bool(_BRACE_CLOSER.match(line)) and len(s) <= 3
    if name == "makefile":
        return bool(_MAKE_CLOSE.match(line))
    return False


def _is_keyword_closer(fmt: Format, line: str) -> bool:
    if fmt.name == "makefile":
        return bool(_MAKE_CLOSE.match(line))
    return fmt.name in ("jinja", "gotemplate", "erb", "lines") and bool(TEMPLATE_CLOSE.match(line.lstrip()))


def _is_middle(fmt: Format, line: str) -> bool:
    if fmt.name == "makefile":
        return bool(_MAKE_MIDDLE.match(line))
    return fmt.name in ("jinja", "gotemplate", "erb", "lines") and bool(TEMPLATE_MIDDLE.match(line))


def _opens_block(fmt: Format, line: str) -> bool:
    """A block opener whose body may sit at its own indentation (closed by a closer line)."""
    if fmt.name == "makefile":
        return bool(_MAKE_OPEN.match(line))
    if fmt.name in ("jinja", "gotemplate", "erb", "lines"):
        s = line.lstrip()
        return bool(TEMPLATE_OPEN.match(s)) and not TEMPLATE_CLOSE.search(s)
    return False


def _is_section(fmt: Format, line: str) -> bool:
    if fmt.name == "dockerfile":
        return bool(_DOCKER_STAGE.match(line))
    return bool(_SECTION.match(line))


def build(lines: list[str], fmt: Format) -> list[Node]:
    """The nodes of ``lines`` in line order, with parents and subtree ends. What a
    question names a node by is ``key_of(fmt, lines[node.start])``, worked out by the
    selector for the few nodes whose line holds a word of the question."""
    spans = units(lines, fmt)
    nodes: list[Node] = []
    comment = fmt.comment
    if fmt.nesting == "sections":
        section = -1
        # A TOML or INI section header holds a "[" (most lines do not: no match tried);
        # a Dockerfile's stage opens with FROM.
        docker = fmt.name == "dockerfile"
        for a, b in spans:
            if (docker or "[" in lines[a]) and _is_section(fmt, lines[a]):
                section = len(nodes)
                nodes.append(Node(a, b, -1, 0, b))
            else:
                nodes.append(Node(a, b, section, 1 if section >= 0 else 0, b))
    elif fmt.nesting == "blocks":
        nodes = _template_nodes(lines, spans, fmt)
    elif fmt.nesting == "flat":
        nodes = [Node(a, b, -1, 0, b) for a, b in spans]
    else:
        nodes = _indent_nodes(lines, spans, fmt, comment)
    for node in nodes:
        if node.closers:
            node.end = max(node.head_end, max(e for _, e in node.closers))
    for i in range(len(nodes) - 1, -1, -1):  # children come after parents: fold ends upwards
        nd = nodes[i]
        p = nd.parent
        if p >= 0 and nd.end > nodes[p].end:
            nodes[p].end = nd.end
    return nodes


# A unit's first line that this finds nothing in can neither close, continue nor open a
# block (each is a necessary condition of the format's closer, middle and opener tests
# below): most lines skip those tests. Makefiles (rare, short) take every test.
_TEMPLATE_GUARD = re.compile(r"[{}\]]").search
_CLOSE_GUARD = {"xml": _XML_CLOSER.match, "jsonc": _BRACE_CLOSER.match, "jinja": _TEMPLATE_GUARD,
                "gotemplate": _TEMPLATE_GUARD, "erb": _TEMPLATE_GUARD, "lines": _TEMPLATE_GUARD}


def _indent_nodes(lines: list[str], spans: list[tuple[int, int]], fmt: Format, comment: str) -> list[Node]:
    """Nodes nested by indentation; closers (``</tag>``, ``}``, ``{% endif %}``) join the
    block they close. One pass, the per-line work in comprehensions where it can be."""
    nodes: list[Node] = []
    heads = [lines[a] for a, _ in spans]
    # indent_of of each head, inline (a call per line costs more than the arithmetic)
    indents: list[float] = [w + h.count("\t", 0, w) * 7 if (w := len(h) - len(h.lstrip(" \t"))) else 0
                            for h in heads]
    if fmt.name == "xml" and not any(indents):
        # Unindented markup (sqlite3 -html's rows: ``<TR><TD>1</TD>`` then a ``<TD>`` line per
        # cell, then ``</TR>``): indentation says nothing, so the open elements do.
        indents = _tag_depths(lines, spans)
    if comment:
        # A comment belongs with what follows it: it nests at the indentation of the next
        # unit that is not a comment (one pass from the end, not a search per comment).
        is_comment = [h.lstrip().startswith(comment) for h in heads]
        if any(is_comment):
            following = -1
            for k in range(len(spans) - 1, -1, -1):
                if is_comment[k]:
                    indents[k] = max(indents[k], following)
                else:
                    following = indents[k]
    # Formats whose lines never close or continue a block (YAML, properties): no test.
    if fmt.name not in _CLOSING_FORMATS:
        flagged: set[int] | range = set()
    elif (guard := _CLOSE_GUARD.get(fmt.name)) is None:
        flagged = range(len(heads))
    else:
        flagged = {k for k, h in enumerate(heads) if guard(h)}
    # The open nodes, innermost last: their effective indents and indices (a block
    # opener's children may share its indent), in two lists rather than one of pairs.
    stack_ind: list[float] = []
    stack_idx: list[int] = []
    depths: list[int] = []
    for k, (a, b) in enumerate(spans):
        ind = indents[k]
        opens = False
        if k in flagged:
            ln = heads[k]
            closer, middle = _is_closer(fmt, ln), _is_middle(fmt, ln)
            if closer or middle:
                keyword = middle or _is_keyword_closer(fmt, ln)
                target = _closing_target(stack_ind, stack_idx, ind, nodes, keyword)
                if target is not None:
                    nodes[target].closers.append((a, b))
                    while stack_idx and stack_idx[-1] != target:
                        stack_ind.pop()
                        stack_idx.pop()
                    if closer and stack_idx:
                        stack_ind.pop()
                        stack_idx.pop()
                    continue
            opens = _opens_block(fmt, ln)
        while stack_ind and stack_ind[-1] >= ind:
            stack_ind.pop()
            stack_idx.pop()
        if stack_idx:
            parent = stack_idx[-1]
            depth = depths[parent] + 1
        else:
            parent, depth = -1, 0
        stack_idx.append(len(nodes))
        node = Node(a, b, parent, depth, b)
        nodes.append(node)
        depths.append(depth)
        if opens:
            node.opens_block = True
            # A block opener's body may sit at its own indentation: it nests under it.
            stack_ind.append(ind - 0.5)
        else:
            stack_ind.append(ind)
    return nodes


_OPEN_TAG = re.compile(r"<[A-Za-z_][^<>]*?(/?)>")
_CLOSE_TAG = re.compile(r"</[A-Za-z_]")
# HTML elements that never take a closing tag: they open nothing.
_VOID = re.compile(r"<(?:area|base|br|col|embed|hr|img|input|link|meta|source|track|wbr)\b", re.IGNORECASE)


def _tag_depths(lines: list[str], spans: list[tuple[int, int]]) -> list[float]:
    """The number of elements open before each unit (a closing tag's line one fewer: it
    sits where its opener sits), never below 0."""
    out: list[float] = []
    depth = 0
    for a, b in spans:
        chunk = lines[a] if b == a + 1 else "\n".join(lines[a:b])
        closes = len(_CLOSE_TAG.findall(chunk))
        opens = sum(1 for m in _OPEN_TAG.finditer(chunk) if not m.group(1)) - len(_VOID.findall(chunk))
        out.append(max(0, depth - 1) if chunk.lstrip().startswith("</") else depth)
        depth = max(0, depth + opens - closes)
    return out


def _template_nodes(lines: list[str], spans: list[tuple[int, int]], fmt: Format) -> list[Node]:
    """Templates nest by their block tags, not by indentation: a line that opens more
    blocks than it closes holds the lines up to the one that closes them (``{% if %}`` …
    ``{% endif %}``, possibly several on one line); a line that closes blocks belongs to
    each block it closes, ``{% else %}`` to the innermost open one."""
    nodes: list[Node] = []
    stack: list[list[int]] = []  # [node index, blocks it still holds open]
    for a, b in spans:
        chunk = "\n".join(lines[a:b])
        delta = len(TEMPLATE_OPEN.findall(chunk)) - len(TEMPLATE_CLOSE.findall(chunk))
        if delta < 0 and stack:
            closes = -delta
            closed: list[int] = []
            while closes and stack:
                top = stack[-1]
                nodes[top[0]].closers.append((a, b))
                closed.append(top[0])
                take = min(closes, top[1])
                top[1] -= take
                closes -= take
                if top[1] == 0:
                    stack.pop()
            # One line closing several blocks: whoever keeps it keeps every block it closes.
            for inner in closed[:-1]:
                nodes[closed[-1]].closers.append((nodes[inner].start, nodes[inner].head_end))
                nodes[closed[-1]].closers.extend(nodes[inner].closers)
            continue
        if delta == 0 and stack and _is_middle(fmt, lines[a]):
            nodes[stack[-1][0]].closers.append((a, b))
            continue
        parent = stack[-1][0] if stack else -1
        nodes.append(Node(a, b, parent, nodes[parent].depth + 1 if parent >= 0 else 0, b))
        if delta > 0:
            nodes[-1].opens_block = True
            stack.append([len(nodes) - 1, delta])
    return nodes


def _closing_target(stack_ind: list[float], stack_idx: list[int], ind: float, nodes: list[Node],
                    keyword: bool) -> int | None:
    """The open node a closer line at indentation ``ind`` closes: the innermost block
    opener for keyword closers (``{% endif %}``, ``endif``), else the innermost node at
    the same indentation (``</tag>``, a closing brace)."""
    for k in range(len(stack_idx) - 1, -1, -1):
        idx = stack_idx[k]
        if keyword:
            if nodes[idx].opens_block:
                return idx
        elif stack_ind[k] <= ind:
            return idx if stack_ind[k] == ind else None
    return None
