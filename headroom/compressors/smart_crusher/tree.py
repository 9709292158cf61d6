"""Recursive JSON trees: dependency trees and anything shaped like them.

A *tree* is a JSON value in which one key (the *child key*: ``dependencies``,
``children``, ``nodes`` …) holds the node's children — a map of name → node or an
array of nodes — and the children hold the same key again, at least two levels down.
``pnpm list --json --depth Infinity``, ``npm ls --all --json``, ``pipdeptree -o
json-tree``, ``findmnt -J``, ``lsblk -J`` are such trees. The array keep plan sees them
as a few tiny arrays and maps, so they used to pass through almost whole.

What a question about a tree needs is the identity of nodes (name and version), where
a named node sits, what is deepest, which names occur in several versions, and nodes
that report a problem. The rest is mostly repetition the tree's producer expanded:

1. **Repeated subtrees once.** A subtree identical to one already shown (the same
   package with the same dependencies, expanded again under another parent) keeps its
   node's identifying fields and replaces its children with a reference string,
   ``"= as under <label> above (N nodes)"``.
2. **Restating fields dropped.** A string field that restates the node's own name in
   (nearly) every node — a tarball URL, an install path, a ``from`` equal to the key —
   carries no information the reader lacks, so it is left out, except on salient nodes.
3. **Salient nodes whole.** Nodes whose name the question mentions, nodes at the
   greatest depth, every node of a name present in several versions, and nodes carrying
   a problem field (``missing``, ``invalid``, ``problems``, ``error`` …) keep all their
   fields and are never collapsed into a reference; their ancestors stay on the path.

The output keeps the tree's shape and stays valid JSON; the router stores the original
(lossy result), and the marker's summary says what was folded.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass, field
from typing import Any

from ..base import Compressed, CompressInput
from .compact import dumps

# A child key must recur at least this deep (child of a child) to make a tree.
_MIN_RECURSION = 2
# Share of nodes in which a string field must restate the node's name to be dropped.
_RESTATE_SHARE = 0.9
_NAME_FIELDS = ("name", "key", "package_name", "package", "id", "title", "label", "target", "path")
_VERSION_FIELD = re.compile(r"version", re.IGNORECASE)
_PROBLEM_FIELD = re.compile(r"^(?:problems?|missing|invalid|extraneous|errors?|warnings?|conflicts?|peerMissing)$",
                            re.IGNORECASE)
_WORD = re.compile(r"[\w@./+-]+")
_MAX_NODES = 200_000
# Nodes at the greatest depth kept whole (the first ones): in a uniformly deep tree every
# leaf is deepest, and keeping them all would keep every subtree from being referenced.
_MAX_DEEPEST = 10
# A repeated subtree becomes a reference only from this many nodes below it (a reference
# string is longer than one small child).
_MIN_REF_NODES = 2
# The cheap look before the full walk: values visited, items looked at per array/map.
_PEEK_BUDGET, _PEEK_ITEMS = 400, 6


@dataclass
class _Node:
    value: dict  # the original node
    name: str
    depth: int
    parent: int | None
    label: str = ""
    digest: str = ""
    size: int = 1  # nodes in this subtree, itself included
    children: list[int] = field(default_factory=list)


@dataclass
class TreeResult:
    value: Any  # the folded JSON value
    nodes: int
    shown: int  # nodes rendered with their own fields (not inside a reference)
    summary: str


def _child_container(v: Any) -> str | None:
    """'map' for a non-empty object of objects, 'list' for a non-empty array of objects."""
    if isinstance(v, dict) and v and all(isinstance(x, dict) for x in v.values()):
        return "map"
    if isinstance(v, list) and v and all(isinstance(x, dict) for x in v):
        return "list"
    return None


def looks_like_tree(data: Any) -> bool:
    """A bounded look (a few items of each array and map): does some key hold nodes that
    hold the same key again? Flat record arrays and documents answer in microseconds."""
    stack: list[tuple[Any, frozenset[str]]] = [(data, frozenset())]
    budget = _PEEK_BUDGET
    while stack and budget > 0:
        v, above = stack.pop()
        budget -= 1
        if isinstance(v, list):
            stack.extend((x, above) for x in v[:_PEEK_ITEMS] if isinstance(x, (dict, list)))
            continue
        if not isinstance(v, dict):
            continue
        for n, (k, x) in enumerate(v.items()):
            if n >= 64:
                break
            if not isinstance(x, (dict, list)) or not x:
                continue
            kind = _child_container(x) if len(x) <= _PEEK_ITEMS else None
            if kind is None and isinstance(x, (dict, list)):
                items = list(x.values())[:_PEEK_ITEMS] if isinstance(x, dict) else x[:_PEEK_ITEMS]
                kind = "some" if all(isinstance(i, dict) for i in items) else None
            if kind is not None:
                if k in above:
                    return True
                items = list(x.values())[:_PEEK_ITEMS] if isinstance(x, dict) else x[:_PEEK_ITEMS]
                stack.extend((i, above | {k}) for i in items)
            else:
                stack.append((x, above))
    return False


def find_child_key(data: Any) -> str | None:
    """The key that nests nodes in nodes at least ``_MIN_RECURSION`` levels, if any."""
    depth: dict[str, int] = {}
    stack: list[tuple[Any, dict[str, int]]] = [(data, {})]
    seen = 0
    while stack:
        v, run = stack.pop()
        seen += 1
        if seen > _MAX_NODES:
            return None
        if isinstance(v, list):
            stack.extend((x, run) for x in v if isinstance(x, (dict, list)))
            continue
        if not isinstance(v, dict):
            continue
        for k, x in v.items():
            kind = _child_container(x)
            if kind is not None:
                r = {**run, k: run.get(k, 0) + 1}
                depth[k] = max(depth.get(k, 0), r[k])
                kids = x.values() if kind == "map" else x
                stack.extend((c, r) for c in kids)
            elif isinstance(x, (dict, list)):
                stack.append((x, run))
    best = max(depth.items(), key=lambda kv: kv[1], default=(None, 0))
    return best[0] if best[1] >= _MIN_RECURSION + 1 else None


def _name_field(nodes: list[dict]) -> str | None:
    """For array children: the scalar field that names a node (a conventional name, else
    the string field with the most distinct values)."""
    counts: dict[str, set] = {}
    for n in nodes:
        for k, v in n.items():
            if isinstance(v, str):
                counts.setdefault(k, set()).add(v)
    if not counts:
        return None
    for k in _NAME_FIELDS:
        if k in counts and len(counts[k]) * 2 >= len(nodes):
            return k
    return max(counts, key=lambda k: len(counts[k]))


class _Tree:
    def __init__(self, data: Any, child_key: str):
        self.key = child_key
        self.nodes: list[_Node] = []
        self.roots: list[int] = []
        array_nodes: list[dict] = []
        self._collect_array_nodes(data, array_nodes)
        self.name_field = _name_field(array_nodes) if array_nodes else None
        self._index(data, None, 0)

    def _collect_array_nodes(self, v: Any, out: list[dict]) -> None:
        if isinstance(v, dict):
            for k, x in v.items():
                if k == self.key and _child_container(x) == "list":
                    out.extend(x)
                self._collect_array_nodes(x, out)
        elif isinstance(v, list):
            for x in v:
                self._collect_array_nodes(x, out)

    def _index(self, v: Any, parent: int | None, depth: int) -> None:
        """Number every node (an object under the child key) in document order."""
        if isinstance(v, dict):
            for k, x in v.items():
                if k == self.key and _child_container(x) is not None:
                    self._add_children(x, parent, depth)
                elif isinstance(x, (dict, list)) and parent is None:
                    self._index(x, parent, depth)
        elif isinstance(v, list) and parent is None:
            for x in v:
                self._index(x, parent, depth)

    def _add_children(self, kids: Any, parent: int | None, depth: int) -> None:
        """Add the nodes of a child container (a map by name, or an array named by field)."""
        kind = _child_container(kids)
        if kind == "map":
            for nm, c in kids.items():
                self._add(c, str(nm), parent, depth + 1)
        elif kind == "list":
            for c in kids:
                nm = c.get(self.name_field) if self.name_field else None
                self._add(c, str(nm) if nm is not None else "", parent, depth + 1)

    def _add(self, node: dict, name: str, parent: int | None, depth: int) -> None:
        i = len(self.nodes)
        version = next((str(v) for k, v in node.items() if _VERSION_FIELD.search(k) and isinstance(v, (str, int, float))
                        and not isinstance(v, bool)), "")
        label = f"{name}@{version}" if version and name else (name or f"#{i}")
        self.nodes.append(_Node(node, name, depth, parent, label))
        if parent is None:
            self.roots.append(i)
        else:
            self.nodes[parent].children.append(i)
        self._add_children(node.get(self.key), i, depth)
        self.nodes[i].size = 1 + sum(self.nodes[c].size for c in self.nodes[i].children)

    def digests(self) -> None:
        for n in reversed(self.nodes):  # children come after their parent
            own = {k: v for k, v in n.value.items() if k != self.key}
            kids = [self.nodes[c].digest for c in n.children]
            n.digest = hashlib.blake2b(dumps([n.name, own, kids]).encode(), digest_size=12).hexdigest()


def _restating_fields(tree: _Tree) -> set[str]:
    """String fields that contain the node's own name in nearly every node holding them."""
    hits: dict[str, list[int]] = {}
    for n in tree.nodes:
        if not n.name:
            continue
        short = n.name.rsplit("/", 1)[-1]
        for k, v in n.value.items():
            if k == tree.key or k == tree.name_field or not isinstance(v, str) or _PROBLEM_FIELD.match(k):
                continue
            h = hits.setdefault(k, [0, 0])
            h[1] += 1
            if short and short in v:
                h[0] += 1
    return {k for k, (yes, total) in hits.items() if total >= 3 and yes >= _RESTATE_SHARE * total}


def _query_names(query: str, tree: _Tree) -> set[str]:
    """Node names the question mentions (whole, or a scoped name's last part)."""
    if not query:
        return set()
    words = {w.strip(".,;:?!()'\"`").lower() for w in _WORD.findall(query)}
    words.discard("")
    out = set()
    for n in tree.nodes:
        nm = n.name.lower()
        if nm and (nm in words or ("/" in nm and nm.rsplit("/", 1)[-1] in words and len(nm.rsplit("/", 1)[-1]) > 3)):
            out.add(n.name)
    return out


def _salient(tree: _Tree, query: str) -> tuple[set[int], dict[str, int]]:
    named = _query_names(query, tree)
    maxdepth = max(n.depth for n in tree.nodes)
    labels: dict[str, set[str]] = {}
    for n in tree.nodes:
        labels.setdefault(n.name, set()).add(n.label)
    multi = {nm for nm, ls in labels.items() if nm and len(ls) > 1}
    out: set[int] = set()
    counts = {"named": 0, "deepest": 0, "multi-version": 0, "problem": 0}
    for i, n in enumerate(tree.nodes):
        why = None
        if any(_PROBLEM_FIELD.match(k) and v not in (None, False, "", [], {}) for k, v in n.value.items()):
            why = "problem"
        elif n.name in named:
            why = "named"
        elif n.name in multi:
            why = "multi-version"
        elif n.depth == maxdepth and counts["deepest"] < _MAX_DEEPEST:
            why = "deepest"
        if why:
            out.add(i)
            counts[why] += 1
    return out, counts


def fold_tree(data: Any, query: str = "") -> TreeResult | None:
    """The folded tree, or None when ``data`` is not a tree worth folding."""
    key = find_child_key(data)
    if key is None:
        return None
    tree = _Tree(data, key)
    if len(tree.nodes) < 20:
        return None
    tree.digests()
    restate = _restating_fields(tree)
    salient, why = _salient(tree, query)
    # Subtrees holding a salient node: never collapsed into a reference.
    holds = [False] * len(tree.nodes)
    for i in sorted(salient, reverse=True):
        j: int | None = i
        while j is not None and not holds[j]:
            holds[j] = True
            j = tree.nodes[j].parent
    first: dict[str, int] = {}
    first_label: dict[str, str] = {}
    stats = {"refs": 0, "ref_nodes": 0, "shown": 0}

    def node_out(i: int) -> dict:
        n = tree.nodes[i]
        stats["shown"] += 1
        keep_all = i in salient
        out = {k: v for k, v in n.value.items() if k != key and (keep_all or k not in restate)}
        if key not in n.value:
            return out
        seen = first.get(n.digest)
        if seen is not None and not holds[i] and n.size - 1 >= _MIN_REF_NODES:
            stats["refs"] += 1
            stats["ref_nodes"] += n.size - 1
            where = n.label if first_label.get(n.label) == n.digest else _path(tree, seen)
            out[key] = f"= same as {where} above ({n.size - 1} nodes)"
            return out
        first.setdefault(n.digest, i)
        first_label.setdefault(n.label, n.digest)
        kids = n.value[key]
        if _child_container(kids) == "map":
            out[key] = {nm: node_out(c) for nm, c in zip(kids, n.children)}
        elif _child_container(kids) == "list":
            out[key] = [node_out(c) for c in n.children]
        else:
            out[key] = kids
        return out

    root_iter = iter(tree.roots)

    def rebuild(v: Any, top: bool = True) -> Any:
        if isinstance(v, dict):
            res = {}
            for k, x in v.items():
                kind = _child_container(x) if k == key else None
                if kind == "map":
                    res[k] = {nm: node_out(next(root_iter)) for nm in x}
                elif kind == "list":
                    res[k] = [node_out(next(root_iter)) for _ in x]
                elif isinstance(x, (dict, list)):
                    res[k] = rebuild(x, False)
                else:
                    res[k] = x
            return res
        if isinstance(v, list):
            return [rebuild(x, False) for x in v]
        return v

    folded = rebuild(data)
    parts = [f"tree of {len(tree.nodes)} nodes under {json.dumps(key)}"]
    if stats["refs"]:
        parts.append(f"{stats['refs']} repeated subtrees ({stats['ref_nodes']} nodes) shown once and referenced")
    if restate:
        parts.append(f"fields restating the node name left out except on kept nodes: {', '.join(sorted(restate))}")
    kept = ", ".join(f"{n} {k}" for k, n in why.items() if n)
    if kept:
        parts.append(f"whole: {kept} nodes")
    return TreeResult(folded, len(tree.nodes), stats["shown"], "; ".join(parts))


def _path(tree: _Tree, i: int) -> str:
    names = []
    j: int | None = i
    while j is not None:
        names.append(tree.nodes[j].label)
        j = tree.nodes[j].parent
    return " > ".join(reversed(names))


def compress_tree(data: Any, tokens: int, inp: CompressInput) -> Compressed | None:
    """SmartCrusher's hook: the folded tree as a lossy result, or None to go on as before
    (not a tree, minifying alone already saves enough, or folding saves too little)."""
    if not isinstance(data, (list, dict)) or not looks_like_tree(data):
        return None
    minified = dumps(data)
    if inp.counter.quick_count(minified) <= tokens * (1 - inp.config.smart_crusher.lossless_min_savings):
        return None  # the lossless form wins; SmartCrusher returns it
    folded = fold_tree(data, inp.query)
    if folded is None:
        return None
    text = dumps(folded.value)
    if inp.counter.quick_count(text) > tokens * (1 - inp.config.router.min_savings):
        return None
    return Compressed(text, folded.nodes, folded.shown, "tree", lossy=True, summary=folded.summary)
