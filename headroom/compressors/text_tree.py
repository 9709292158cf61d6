"""Box-drawing text trees: ``npm ls``, ``pnpm list``, ``yarn list``, ``tree``, ``cargo tree``.

Each line is a node: a drawing prefix (``│ ├─┬ ``, ``|-- ``) whose width is the depth,
then a label (``uri-js 4.4.1``, ``ajv@^6.12.4``). The same folding as JSON trees
(``smart_crusher/tree.py``), by whole lines: a line shown is the tool's line verbatim,
and each run of lines left out is one marker line (``… 9 lines omitted``), so the tree
stays the drawing the tool printed (issue 33: lines are kept or elided, never joined or
rewritten).

1. **Repeated subtrees once**: a node whose subtree (its label and every line below)
   was already shown keeps its own line; the lines below it become a marker saying they
   are a subtree shown above.
2. **When the whole is long** (more than a third of the original), the children of
   nodes below the top level are left out, and if that is still long, the top level's
   too — except for salient nodes, which always stay with their ancestors: names the
   question mentions (or a word a few labels hold), the deepest nodes, every node of a
   name that occurs in several versions, and lines saying something is wrong (``UNMET``,
   ``invalid``, ``missing``, ``extraneous``, ``ERR``).

Lines that are not part of the drawing (headers, legends) stay. The result is lossy
(the router keeps the original in CCR); the first line says what was left out.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .base import Compressed, CompressInput

# Drawing prefix: bars and spaces, then a branch (├ └ |- `- +-) and its dashes/tees.
# One character class for the bars and spaces (no nested repetition: linear on any line).
_PREFIX = re.compile(r"^([│| \t]*)([├└]─*[┬─]?\s?|[|`+\\]-{1,3}\s?)(?=\S)")
_PROBLEM = re.compile(r"\b(?:UNMET|invalid|missing|extraneous|ERR!?|error|conflict)\b", re.IGNORECASE)
_PROBLEM_LOWER = re.compile(_PROBLEM.pattern[2:].lower())  # lower-case, without the leading \b
_CASE_FOLDED = "\u0130\u0131\u017f"  # İ ı ſ: IGNORECASE matches them to i, i, s
_WORD = re.compile(r"[\w@./+-]+")
_VERSIONISH = re.compile(r"^v?\d+(?:\.\d+)*")
_MIN_NODES = 20
_MIN_SHARE = 0.6  # of nonblank lines that must be drawn nodes
_MIN_REF = 2  # a repeated subtree is folded from this many lines below it
_FOLD_ABOVE = 1 / 3  # fold children lists when the result is still above this share
_UNCOUNTED_ABOVE = 2  # x that share, estimated from characters: folded further without a count
_SAMPLE = 200
# A named node shows all its children up to this many (a root named like the tool,
# "yarn list v1", is not a dependency whose requirements were asked for).
_NAMED_KIDS = 40
_LABEL_WORD = re.compile(r"[\w@./:+-]+")  # a label's words, times ("03:45") and addresses whole
_TRIM = ".,;:?!()'\"`"
_LABEL_WORD_MIN = 12
_LABEL_WORD_SHARE = 0.02
_MAX_DEEPEST = 10  # deepest nodes kept (the first ones; in a uniform tree every leaf is deepest)


def is_text_tree(nonblank: list[str]) -> bool:
    """Most lines are tree-drawn nodes, at two depths at least."""
    sample = nonblank[:_SAMPLE]
    if len(sample) < _MIN_NODES:
        return False
    depths = set()
    hits = 0
    for ln in sample:
        m = _PREFIX.match(ln)
        if m:
            hits += 1
            depths.add(m.end(1))
    return hits >= _MIN_SHARE * len(sample) and len(depths) >= 2


@dataclass(slots=True)
class _Node:
    line: int
    prefix: str
    label: str
    depth: int
    parent: int | None
    children: list[int] = field(default_factory=list)
    level: int = 0  # drawn ancestors
    shape: int = -1  # equal for nodes with the same label and the same subtree below
    size: int = 1


def _parse(lines: list[str]) -> tuple[list[_Node], dict[int, int]]:
    nodes: list[_Node] = []
    at: dict[int, int] = {}  # line number -> node
    stack: list[int] = []
    depths: list[int] = []  # the stack's depths (no attribute look-up per step)
    matches = list(map(_PREFIX.match, lines))  # each line's prefix, matched once
    last = len(lines) - 1
    for k, m in enumerate(matches):
        ln = lines[k]
        if m is None:
            # An unindented label just before drawn children (a root): depth -1.
            if ln.strip() and k < last and matches[k + 1] is not None and not ln.startswith(" "):
                nodes.append(_Node(k, "", ln, -1, None))
                at[k] = len(nodes) - 1
                stack, depths = [len(nodes) - 1], [-1]
            else:
                stack, depths = [], []
            continue
        depth = m.end(1)
        while depths and depths[-1] >= depth:
            stack.pop()
            depths.pop()
        parent = stack[-1] if stack else None
        end = m.end()
        i = len(nodes)
        if parent is None:
            nodes.append(_Node(k, ln[:end], ln[end:].rstrip(), depth, None))
        else:
            up = nodes[parent]
            nodes.append(_Node(k, ln[:end], ln[end:].rstrip(), depth, parent, level=up.level + 1 if up.depth >= 0 else 0))
            up.children.append(i)
        at[k] = i
        stack.append(i)
        depths.append(depth)
    # Subtrees numbered by shape: a node's (label, children's shapes) is looked up exactly,
    # so equal numbers mean equal subtrees (no digest to collide, no text to hash).
    shapes: dict[tuple[str, tuple[int, ...]], int] = {}
    for n in reversed(nodes):
        kids = n.children
        if kids:
            n.shape = shapes.setdefault((n.label, tuple([nodes[c].shape for c in kids])), len(shapes))
            n.size = 1 + sum([nodes[c].size for c in kids])
        else:  # most nodes are leaves: no generator to start
            n.shape = shapes.setdefault((n.label, ()), len(shapes))
    return nodes, at


def _salient(nodes: list[_Node], query: str) -> tuple[set[int], set[int]]:
    """Nodes that stay in view with their ancestors, and among them the ones the question
    names (shown with all their children)."""
    words = {w.strip(".,;:?!()'\"`").lower() for w in _WORD.findall(query or "")}
    versions: dict[str, set[str]] = {}
    names = []
    versionish = _VERSIONISH.match
    for n in nodes:
        # _name and _version of the label from one split.
        label = n.label
        parts = label.split(None, 2)
        head = parts[0] if parts else label
        sign = head.rfind("@")
        nm = (head[:sign] if sign > 0 else head).lower()
        names.append(nm)
        if len(parts) > 1 and versionish(parts[1]):
            v = parts[1]
        else:
            v = head[sign + 1:] if sign > 0 else ""
        if versionish(v):  # installed versions, not the ranges asked for
            versions.setdefault(nm, set()).add(v)
    multi = {nm for nm, vs in versions.items() if len(vs) > 1}
    deepest = max(n.depth for n in nodes)
    out, named = set(), set()
    n_deep = 0
    problems = _problem_nodes([n.label for n in nodes])
    by_word = _labels_naming_words(nodes, query)
    for i, (n, nm) in enumerate(zip(nodes, names)):
        if i in by_word:
            out.add(i)
        if nm in words or ("/" in nm and len(nm.rsplit("/", 1)[-1]) > 3 and nm.rsplit("/", 1)[-1] in words):
            named.add(i)
        deep = n.depth == deepest and n_deep < _MAX_DEEPEST
        n_deep += deep
        if i in problems or deep or nm in multi or i in named:
            out.add(i)
    return out, named


def _labels_naming_words(nodes: list[_Node], query: str) -> set[int]:
    """Nodes whose label holds a word of the question anywhere, not only as its name: a
    value ("{ansible_port = 2222}" for "which host has SSH on port 2222?"), a setting's
    name ("ansible_user"). A word of four letters or more, or one with a digit, held by
    few labels (``_LABEL_WORD_SHARE`` of the nodes, at least ``_LABEL_WORD_MIN``): a word
    most labels hold is the tree's own vocabulary and names nothing."""
    wanted = {w.strip(_TRIM) for w in _LABEL_WORD.findall((query or "").lower())}
    wanted = {w for w in wanted if len(w) >= 4 or any(ch.isdigit() for ch in w)}
    if not wanted:
        return set()
    labels = [n.label.lower() for n in nodes]
    joined = "\n".join(labels)
    wanted = {w for w in wanted if w in joined}  # one scan drops the words no label holds
    if not wanted:
        return set()
    hits: dict[str, list[int]] = {w: [] for w in wanted}
    for i, label in enumerate(labels):
        if any(w in label for w in wanted):
            for tok in _LABEL_WORD.findall(label):
                if (at := hits.get(tok.strip(_TRIM))) is not None and (not at or at[-1] != i):
                    at.append(i)
    limit = max(_LABEL_WORD_MIN, round(_LABEL_WORD_SHARE * len(nodes)))
    return {i for at in hits.values() if len(at) <= limit for i in at}


def _problem_nodes(labels: list[str]) -> set[int]:
    """Indices of the labels ``_PROBLEM`` finds something in.

    A case-blind alternation is tried at every position of every label (two thirds of
    _salient's time on a 380-node tree); the same words, lower-case, over the lower-cased
    labels joined by newlines are scanned for five times faster. That pass finds at least
    what _PROBLEM finds (lower() keeps a word character a word character, and the
    lower-case pattern does not ask for the leading boundary), so when it finds nothing
    there is nothing, and otherwise only the labels it finds are searched with _PROBLEM.
    Three letters that IGNORECASE matches to an ASCII letter and lower() does not turn
    into one send the labels to _PROBLEM one by one.
    """
    joined = "\n".join(labels)
    if any(ch in joined for ch in _CASE_FOLDED):
        return {i for i, label in enumerate(labels) if _PROBLEM.search(label)}
    if _PROBLEM_LOWER.search(joined.lower()) is None:
        return set()
    return {i for i, label in enumerate(labels) if _PROBLEM_LOWER.search(label.lower()) and _PROBLEM.search(label)}


def _render(lines: list[str], nodes: list[_Node], at: dict[int, int], salient: set[int], named: set[int],
            fold: int, stats: dict[str, int]) -> list[str]:
    """The lines shown, each verbatim (drawing and label as printed), with one marker line
    for each run of lines left out: the tree stays the tool's own drawing, so a reader (or
    a parser) sees the lines it printed, never a rewriting of them (issue 33)."""
    holds = [False] * len(nodes)
    for i in sorted(salient, reverse=True):
        j: int | None = i
        while j is not None and not holds[j]:
            holds[j] = True
            j = nodes[j].parent
    seen: set[int] = set()
    hidden: set[int] = set()  # nodes inside a folded subtree
    repeated: set[int] = set()  # nodes hidden as a subtree shown above
    for n_i, n in enumerate(nodes):
        if n_i in hidden or not n.children:
            continue
        if n.shape in seen and not holds[n_i] and n.size - 1 >= _MIN_REF:
            stats["refs"] += 1
            stats["ref_lines"] += n.size - 1
            _hide(nodes, n.children, repeated)
            _hide(nodes, n.children, hidden)
            continue
        seen.add(n.shape)
        # Folding (1: below the top level, 2: everywhere): only children on a salient path
        # (all children of a named node) are shown; the rest are left out.
        keep_all = fold == 0 or (fold == 1 and n.depth < 0) or (n_i in named and len(n.children) <= _NAMED_KIDS)
        if not keep_all:
            folded = [c for c in n.children if not holds[c]]
            stats["folded"] += sum([nodes[c].size for c in folded])
            _hide(nodes, folded, hidden)
    out: list[str] = []
    run: list[int] = []  # the nodes of the current run of left-out lines

    def close_run() -> None:
        if run:
            first = nodes[run[0]]
            same = all(i in repeated for i in run)
            lead = " " * len(first.prefix)
            out.append(f"{lead}… {_lines(len(run))} omitted" + (" (a subtree shown above)" if same else ""))
            run.clear()

    for k, ln in enumerate(lines):
        i = at.get(k)
        if i is not None and i in hidden:
            run.append(i)
            continue
        close_run()
        out.append(ln)
    close_run()
    return out


def _lines(n: int) -> str:
    return f"{n} line" if n == 1 else f"{n} lines"


def _hide(nodes: list[_Node], tops: list[int], hidden: set[int]) -> None:
    """Hide each of ``tops`` and everything below it."""
    stack = list(tops)
    while stack:
        c = stack.pop()
        hidden.add(c)
        stack.extend(nodes[c].children)


def compress_text_tree(inp: CompressInput) -> Compressed | None:
    lines = inp.text.splitlines()
    nodes, at = _parse(lines)
    if len(nodes) < _MIN_NODES:
        return None
    salient, named = _salient(nodes, inp.query)
    tokens = inp.text_tokens()
    # Tokens per character of the input: a rendering whose length at this density is over
    # twice the folding threshold is folded further without being counted. A rendering is
    # the input's labels under shorter prefixes ("- " for "│  ├─ "), and the box-drawing
    # characters it drops cost more tokens per character than the labels it keeps, so
    # this density overstates its tokens by far less than the factor of two.
    density = tokens / max(1, len(inp.text))
    best = None
    for fold in (0, 1, 2):
        stats = {"refs": 0, "ref_lines": 0, "folded": 0}
        body = _render(lines, nodes, at, salient, named, fold, stats)
        parts = [f"tree of {len(nodes)} nodes"]
        if stats["refs"]:
            parts.append(f"{stats['refs']} repeated subtrees ({stats['ref_lines']} lines) shown once")
        if stats["folded"]:
            where = "below the top level " if fold == 1 else ""
            parts.append(f"{stats['folded']} nodes {where}left out "
                         "(kept: names the question mentions, deepest, several versions, problems)")
        text = f"[{'; '.join(parts)}]\n" + "\n".join(body)
        best = (text, len(body), "; ".join(parts))
        if len(text) * density <= _UNCOUNTED_ABOVE * tokens * _FOLD_ABOVE \
                and inp.counter.quick_count(text) <= tokens * _FOLD_ABOVE:
            break
    text, kept, summary = best
    if inp.counter.quick_count(text) > tokens * (1 - inp.config.router.min_savings):
        return None
    return Compressed(text, len(lines), kept, "text_tree", lossy=True, summary=summary)
