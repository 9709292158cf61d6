"""Dependency trees of a small Node project (``eslint`` 8.57.0, ``@babel/core`` 7.25.2 and ``debug`` 2.6.9)
as two package managers print them: ``pnpm list --depth Infinity`` (every path expanded,
nested eight levels; pnpm's box-drawing text and its ``--json``, nested maps of
``dependencies``) and ``yarn list`` (yarn 1: the hoisted packages with the ranges their
own dependencies ask for; its text tree and its ``--json``, nested arrays of
``children``). pnpm and yarn are fetched with ``npx`` from the configured registry.

Questions are lookups in a tree: the installed version of a package pulled in
indirectly, the deepest package, the packages installed in more than one version, the
range one package asks of another. Facts come from the parsed ``--json`` documents and
are checked to occur in the text forms as printed."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from ..cases import fact, make_case
from ..questions import choose
from ._run import run

SOURCE = "node_dep_tree"
DEPENDENCIES = {"eslint": "8.57.0", "@babel/core": "7.25.2", "debug": "2.6.9"}
PNPM, YARN = "pnpm@9.15.0", "yarn@1.22.22"
_ENV = {**os.environ, "NO_COLOR": "1", "FORCE_COLOR": "0", "npm_config_update_notifier": "false",
        "npm_config_loglevel": "error", "CI": "1"}


def _npx(tool: str, *args: str, cwd: Path) -> str:
    return run(["npx", "-y", tool, *args], cwd=cwd, env=_ENV, timeout=600).stdout


def _project(work: Path, name: str) -> Path:
    d = work / name
    d.mkdir()
    (d / "package.json").write_text(json.dumps({"name": "tree-demo", "version": "1.0.0", "private": True,
                                                "dependencies": DEPENDENCIES}))
    return d


def _tarball(resolved: str) -> str:
    """``…/-/uri-js-4.4.1.tgz`` -> ``uri-js-4.4.1.tgz`` (the name and version, once)."""
    return resolved.rsplit("/", 1)[-1]


def _pnpm_nodes(deps: dict[str, Any], depth: int, out: list[tuple[str, str, str, int]]) -> None:
    for name, node in deps.items():
        out.append((name, node["version"], node.get("resolved", ""), depth))
        _pnpm_nodes(node.get("dependencies", {}), depth + 1, out)


def _pnpm_cases(work: Path) -> list[dict[str, Any]]:
    d = _project(work, "pnpm")
    _npx(PNPM, "install", "--reporter=silent", cwd=d)
    js = _npx(PNPM, "list", "--json", "--depth", "Infinity", cwd=d)
    text = _npx(PNPM, "list", "--depth", "Infinity", cwd=d)
    nodes: list[tuple[str, str, str, int]] = []
    for project in json.loads(js):
        _pnpm_nodes(project.get("dependencies", {}), 1, nodes)
    versions: dict[str, set[str]] = {}
    for name, ver, _res, _d in nodes:
        versions.setdefault(name, set()).add(ver)
    # Indirect packages (depth >= 3) with one installed version and a tarball name in the JSON.
    indirect = sorted({(n, v, r) for n, v, r, dp in nodes if dp >= 3 and len(versions[n]) == 1 and r})
    asked = [indirect[len(indirect) // 3], indirect[2 * len(indirect) // 3]]
    deepest = max(dp for *_x, dp in nodes)
    deep = sorted({(n, v, r) for n, v, r, dp in nodes if dp == deepest})
    multi = sorted((n, sorted(vs)) for n, vs in versions.items() if len(vs) > 1)
    out = []
    for form, content, cmd in (("json", js, "pnpm list --json --depth Infinity"),
                               ("text", text, "pnpm list --depth Infinity")):
        def pin(name: str, ver: str, resolved: str, form: str = form) -> str:
            return _tarball(resolved) if form == "json" else f"{name} {ver}"

        for i, (name, ver, res) in enumerate(asked):
            sid = f"pnpm_{form}_indirect_{i}"
            q = choose(f"{SOURCE}/{sid}", (f"Which version of {name} ended up installed?",
                                           f"{name} comes in through other packages; what version of it do we have?",
                                           f"Tell me the installed version of the transitive dependency {name}."))
            out.append(make_case(SOURCE, sid, form, "bash", {"command": cmd}, "named", q, content,
                                 [fact(pin(name, ver, res), "named_item", f"version of {name} (depth >= 3)")]))
        sid = f"pnpm_{form}_deepest"
        q = choose(f"{SOURCE}/{sid}", ("Which package sits deepest in this dependency tree?",
                                       "What is at the bottom of the longest dependency chain here?"))
        out.append(make_case(SOURCE, sid, form, "bash", {"command": cmd}, "extreme", q, content,
                             [fact(pin(*n), "extreme", f"package at depth {deepest}") for n in deep]))
        if multi:
            facts = []
            for name, vs in multi[:6]:
                for v in vs:
                    res = next(r for n, vv, r, _d in nodes if n == name and vv == v)
                    facts.append(fact(pin(name, v, res), "named_item", f"{name} is installed in {len(vs)} versions"))
            sid = f"pnpm_{form}_duplicates"
            q = choose(f"{SOURCE}/{sid}", ("Are any packages installed in more than one version? Which versions?",
                                           "Which dependencies appear with several different versions in the tree?"))
            out.append(make_case(SOURCE, sid, form, "bash", {"command": cmd}, "summary", q, content, facts))
    return out


def _yarn_cases(work: Path) -> list[dict[str, Any]]:
    d = _project(work, "yarn")
    _npx(YARN, "install", "--non-interactive", "--no-progress", "--silent", cwd=d)
    js = _npx(YARN, "list", "--json", "--no-progress", cwd=d)
    text = _npx(YARN, "list", "--no-progress", cwd=d)
    trees = json.loads(js)["data"]["trees"]
    both = (js, text)

    def once(s: str) -> bool:
        return all(c.count(s) == 1 for c in both)

    # (parent, child@range) pairs whose child@range is written exactly once in each form.
    ranges = [(t["name"], c["name"]) for t in trees for c in t.get("children", []) if once(c["name"])]
    hoisted = [t["name"] for t in trees if once(t["name"]) and not t.get("children")]
    leaf = hoisted[len(hoisted) // 2]
    # (scenario, wordings, fact, note) per lookup; the same lookups on both forms.
    asks = [(f"range_{i}", (f"Which version range of {c.rsplit('@', 1)[0]} does {p.rsplit('@', 1)[0]} ask for?",
                            f"What does {p.rsplit('@', 1)[0]} require of {c.rsplit('@', 1)[0]} (the semver range)?"),
             c, f"a child of {p}")
            for i, (p, c) in enumerate([ranges[len(ranges) // 4], ranges[3 * len(ranges) // 4]])]
    asks.append(("installed", (f"Which version of {leaf.rsplit('@', 1)[0]} did yarn install?",
                               f"What version of {leaf.rsplit('@', 1)[0]} is in node_modules?"),
                 leaf, "a hoisted package without dependencies"))
    return [make_case(SOURCE, f"yarn_{form}_{name}", form, "bash", {"command": cmd}, "named",
                      choose(f"{SOURCE}/yarn_{form}_{name}", wordings), content, [fact(text_, "named_item", note)])
            for form, content, cmd in (("json", js, "yarn list --json"), ("text", text, "yarn list"))
            for name, wordings, text_, note in asks]


def build(work: Path) -> list[dict[str, Any]]:
    return _pnpm_cases(work) + _yarn_cases(work)
