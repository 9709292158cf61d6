"""``pipdeptree`` (pinned, in a throwaway venv) over the shared venv, for a few of its
top-level distributions: the nested ``json-tree`` (each package holds its dependencies,
several levels deep) and the flat ``json`` (one record per package with a dependency
array). Dependency trees and records with inner arrays: lookups of a range one package
puts on another and of the version installed for a package pulled in indirectly."""

from __future__ import annotations

import json
import sys
from importlib import metadata
from pathlib import Path
from typing import Any

from ..cases import fact, make_case
from ..questions import choose
from ._run import run

SOURCE = "pipdeptree_json"
RELEASE = "pipdeptree==4.2.14"
# Top-level distributions whose trees are captured (those installed in the venv).
ROOTS = ("fastapi", "sentence-transformers", "scikit-learn", "httpx", "uvicorn")


def _pipdeptree(work: Path) -> Path:
    venv = work / "venv"
    run([sys.executable, "-m", "venv", str(venv)])
    run([str(venv / "bin" / "pip"), "install", "--disable-pip-version-check", "-q", RELEASE], timeout=900)
    return venv / "bin" / "pipdeptree"


def _edges(nodes: list[dict[str, Any]], parent: str | None, depth: int, out: list[tuple]) -> None:
    """(parent name, node, depth) for every node of the json-tree, depth-first."""
    for node in nodes:
        out.append((parent, node, depth))
        _edges(node.get("dependencies", []), node["package_name"], depth + 1, out)


def _once(value: str, contents: tuple[str, ...]) -> bool:
    """The answer names one place in each form, verbatim (no JSON escapes inside it)."""
    return json.dumps(value)[1:-1] == value and all(c.count(f'"{value}"') == 1 for c in contents)


def build(work: Path) -> list[dict[str, Any]]:
    roots = []
    for name in ROOTS:
        try:
            metadata.version(name)
        except metadata.PackageNotFoundError:
            continue
        roots.append(name)
    tool = _pipdeptree(work)
    base = [str(tool), "--python", sys.executable, "--packages", ",".join(roots)]
    tree_js = run([*base, "-o", "json-tree"]).stdout
    flat_js = run([*base, "-o", "json"]).stdout
    both = (tree_js, flat_js)
    edges: list[tuple] = []
    _edges(json.loads(tree_js), None, 0, edges)
    ranges = [(p, n) for p, n, d in edges if p is not None and n.get("required_version") not in (None, "Any")
              and _once(n["required_version"], both)]
    # A package pulled in indirectly is listed wherever something depends on it: its
    # version must name that package alone (no other package or range shares the string).
    holders: dict[str, set[str]] = {}
    for _, n, _ in edges:
        holders.setdefault(n["installed_version"], set()).add(n["package_name"])
        holders.setdefault(n.get("required_version") or "", set()).add("\0range")
    deep = [(p, n) for p, n, d in edges if d >= 2 and len(holders[n["installed_version"]]) == 1
            and len(n["installed_version"]) >= 4 and json.dumps(n["installed_version"])[1:-1] == n["installed_version"]
            and all(c.count(n["installed_version"]) == c.count(f'"{n["installed_version"]}"') for c in both)]
    out = []
    for form, content, fmt in (("json", tree_js, "json-tree"), ("json", flat_js, "json")):
        args = {"command": f"pipdeptree --packages {','.join(roots)} -o {fmt}"}
        tag = fmt.replace("-", "_")
        if ranges:
            parent, node = ranges[len(ranges) // 2]
            sid = f"{tag}_required_range"
            q = choose(f"{SOURCE}/{sid}", (f"Which version range of {node['package_name']} does {parent} declare?",
                                           f"What does {parent} require of {node['package_name']} (the specifier)?"))
            out.append(make_case(SOURCE, sid, form, "bash", args, "named", q, content,
                                 [fact(node["required_version"], "named_item",
                                       f"required_version of {node['package_name']} under {parent}")]))
        if deep:
            parent, node = deep[len(deep) // 2]
            sid = f"{tag}_installed_version"
            q = choose(f"{SOURCE}/{sid}", (f"Which version of {node['package_name']} got installed (it comes in "
                                           f"through {parent})?",
                                           f"{parent} pulls in {node['package_name']}: which release of it is in "
                                           "the environment?"))
            out.append(make_case(SOURCE, sid, form, "bash", args, "named", q, content,
                                 [fact(node["installed_version"], "named_item",
                                       f"installed_version of {node['package_name']}")]))
    return out
