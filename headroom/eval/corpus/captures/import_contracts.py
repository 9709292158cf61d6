"""A Python project's architecture contracts checked by import-linter 2.1: ``lint-imports``
(a summary of every contract, KEPT or BROKEN, then one block a broken contract with its illegal
import chains, each hop with its line number; ~185 lines, ~5 kB) and ``lint-imports --verbose`` (the same
after a log of the graph build and of each contract's check; ~335 lines, ~12 kB), of a shop package the
capture writes: twelve features, each with ``api``, ``logic`` and ``store`` layers of a few
modules, a ``shared`` package of helpers, a layers contract over every feature and 36
"feature X stays apart from feature Y" contracts. The capture plants upward imports (a store module
importing its feature's api) and cross-feature chains (one module of X through one shared helper
to one module of Y); most contracts are kept. import-linter runs from a throwaway venv (PyPI at
build time); the project sits in a fixed folder so no temporary path is printed.

Facts come from the capture's own record of the imports it planted, checked by ``ast`` over the
files it wrote (asserted: the upward imports are exactly the planted ones, and each broken
contract's only path is its planted chain), never from import-linter's text; a fact is kept only
where it stands once. Every module has a word of its own and every planted import a line number
of its own. Held out (issue 33, twenty-fifth round): dev holds linters' diagnostics, dependency
trees and import timings, but no check of declared import rules between a package's parts.
"""

from __future__ import annotations

import ast
import random
import shutil
from pathlib import Path
from typing import Any

from ._asked import Ask, shell_cases
from ._run import pinned_tool

SOURCE = "import_contracts"
RELEASE = "import-linter==2.1"
ROOT = Path("/tmp/shop-architecture")
FEATURES = ("catalog", "pricing", "carts", "checkout", "payments", "invoicing", "shipping", "returns", "loyalty",
            "reviews", "reporting", "search")
LAYERS = ("api", "logic", "store")
WORDS = ("anchor", "basket", "cobalt", "dagger", "easel", "fennel", "goblet", "hazel", "igloo", "juniper", "kayak",
         "locket", "mantle", "nutmeg", "oyster", "pebble", "quiver", "raisin", "saddle", "thimble", "urchin",
         "velvet", "wicker", "yarrow", "zephyr", "acorn", "bramble", "cinder", "dormer", "ember", "flint", "garnet",
         "hollow", "ivory", "jasper", "kernel", "lintel", "marble", "nettle", "onyx", "parsley", "quartz", "russet",
         "sorrel", "tallow", "umber", "vervain", "willow", "almond", "birch", "cedar", "damson", "elder", "fig",
         "ginger", "heather", "iris", "jute", "kelp", "lotus", "maple", "nectar", "olive", "poppy", "quince",
         "rowan", "sage", "tansy", "ulmus", "vetch", "wasabi", "yucca", "zinnia", "aster", "borage", "clover",
         "dill", "endive", "fescue", "gorse", "hyssop", "indigo", "jonquil", "kale", "lupin", "mallow", "nigella",
         "orris", "peony", "radish", "sedge", "thyme", "valerian", "woad", "alder", "beech", "cypress", "dogwood",
         "elm", "fir", "gingko", "hawthorn", "ilex", "juglans", "larch", "myrtle", "nyssa", "oak", "pine", "redwood",
         "spruce", "teak", "yew", "aspen", "balsa", "catalpa", "deodar", "ebony", "fustic", "guava", "hickory")
ENV = {"PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8"}


def plan(rnd: random.Random) -> dict[str, Any]:
    """The capture's record: modules by feature and layer, the planted upward imports and chains."""
    words = iter(rnd.sample(WORDS, len(WORDS)))
    modules = {(f, layer): [next(words) for _ in range(2)] for f in FEATURES for layer in LAYERS}
    shared = [next(words) for _ in range(10)]
    lines = iter(rnd.sample(range(8, 99), 60))
    upward = {}  # feature -> (store module, api module, line)
    for f in rnd.sample(FEATURES, 7):
        upward[f] = (rnd.choice(modules[(f, "store")]), rnd.choice(modules[(f, "api")]), next(lines))
    pairs = rnd.sample([(a, b) for a in FEATURES for b in FEATURES if a != b], 36)
    chains = {}  # (from feature, to feature) -> (api module of a, shared helper, store module of b, line, line)
    for (a, b), helper in zip(pairs[:10], shared, strict=True):
        # the end is a store module without a planted upward import, so no chain runs on past it
        ends = [m for m in modules[(b, "store")] if m != upward.get(b, ("",))[0]]
        chains[(a, b)] = (rnd.choice(modules[(a, "api")]), helper, rnd.choice(ends),
                          next(lines), next(lines))
    return {"modules": modules, "shared": shared, "upward": upward, "pairs": pairs, "chains": chains}


def _mod(f: str, layer: str, name: str) -> str:
    return f"shop.{f}.{layer}.{name}"


def write(p: dict[str, Any], root: Path) -> None:
    """The package: each layer imports the one below; then the planted imports at their lines."""
    imports: dict[str, dict[int, str]] = {}
    for f in FEATURES:
        for k, layer in enumerate(LAYERS):
            for name in p["modules"][(f, layer)]:
                mine = imports.setdefault(_mod(f, layer, name), {})
                if k + 1 < len(LAYERS):
                    mine[3] = _mod(f, LAYERS[k + 1], p["modules"][(f, LAYERS[k + 1])][0])
    for f, (low, high, line) in p["upward"].items():
        imports[_mod(f, "store", low)][line] = _mod(f, "api", high)
    for (a, b), (start, helper, end, l1, l2) in p["chains"].items():
        imports[_mod(a, "api", start)][l1] = f"shop.shared.{helper}"
        imports.setdefault(f"shop.shared.{helper}", {})[l2] = _mod(b, "store", end)
    for helper in p["shared"]:
        imports.setdefault(f"shop.shared.{helper}", {})
    for module, at in imports.items():
        path = root / (module.replace(".", "/") + ".py")
        path.parent.mkdir(parents=True, exist_ok=True)
        body = [f"# {module}: line {n}" for n in range(1, max(at, default=1) + 1)]
        for n, target in at.items():
            body[n - 1] = f"import {target}  # noqa: F401"
        path.write_text("\n".join(body) + "\n")
    for d in [root / "shop", *(p for p in (root / "shop").rglob("*") if p.is_dir())]:
        (d / "__init__.py").touch()
    contracts = ["[importlinter]", "root_package = shop", "", "[importlinter:contract:layers]",
                 "name = Every feature keeps api over logic over store", "type = layers",
                 "containers =", *(f"    shop.{f}" for f in FEATURES), "layers =", *(f"    {x}" for x in LAYERS), ""]
    for n, (a, b) in enumerate(p["pairs"]):
        contracts += [f"[importlinter:contract:apart-{n:02d}]", f"name = {a.title()} stays apart from {b}",
                      "type = forbidden", f"source_modules = shop.{a}", f"forbidden_modules = shop.{b}", ""]
    (root / ".importlinter").write_text("\n".join(contracts))


def graph(root: Path) -> dict[str, dict[str, int]]:
    """Module -> {imported module: line}, by ast over the files written."""
    out: dict[str, dict[str, int]] = {}
    for path in sorted((root / "shop").rglob("*.py")):
        parts = path.relative_to(root).with_suffix("").parts
        module = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        out[module] = {a.name: node.lineno for node in ast.walk(ast.parse(path.read_text()))
                       if isinstance(node, ast.Import) for a in node.names}
    return out


def paths(g: dict[str, dict[str, int]], a: str, b: str) -> list[list[str]]:
    """Every import path that leaves package ``a`` and reaches package ``b`` without coming back
    into ``a`` (depth-first): the routes an import chain out of ``a`` can take."""
    found = []

    def walk(at: str, trail: list[str]) -> None:
        for nxt in g.get(at, {}):
            if nxt in trail or nxt.startswith(a + "."):
                continue
            if nxt.startswith(b + "."):
                found.append([*trail, nxt])
            else:
                walk(nxt, [*trail, nxt])
    for m in g:
        if m.startswith(a + "."):
            walk(m, [m])
    return found


def _asks(p: dict[str, Any], g: dict[str, dict[str, int]], rnd: random.Random) -> list[Ask]:
    note = "the capture's record of the imports it planted, checked by ast over the files it wrote"
    asks = []
    for f, (low, high, line) in rnd.sample(sorted(p["upward"].items()), 4):
        asks.append(Ask(f"upward_{f}", "named", "named_item", (_mod(f, "store", low),), note,
                        (f"Which store module of the {f} feature imports its api layer?",
                         f"In {f}, what store-layer module breaks the layering?")))
        asks.append(Ask(f"upline_{f}", "named", "named_item", (f"l.{line}",), note,
                        (f"On which line does {f}'s store module import {_mod(f, 'api', high)}?",
                         f"What line holds the upward import of {_mod(f, 'api', high)}?")))
    for (a, b), (start, helper, end, l1, _) in rnd.sample(sorted(p["chains"].items()), 5):
        asks.append(Ask(f"chain_{a}_{b}", "named", "named_item", (_mod(a, "api", start),), note,
                        (f"Which {a} module starts the illegal chain into {b}?",
                         f"What module of {a} leads, through a shared helper, into {b}?")))
    return asks


def build(work: Path) -> list[dict[str, Any]]:
    rnd = random.Random(2501)
    p = plan(rnd)
    tool = pinned_tool(work, RELEASE, "lint-imports")
    shutil.rmtree(ROOT, ignore_errors=True)
    ROOT.mkdir()
    try:
        write(p, ROOT)
        g = graph(ROOT)
        for f, (low, high, line) in p["upward"].items():
            assert g[_mod(f, "store", low)][_mod(f, "api", high)] == line
        for a, b in p["pairs"]:
            found = paths(g, f"shop.{a}", f"shop.{b}")
            chain = p["chains"].get((a, b))
            want = [[_mod(a, "api", chain[0]), f"shop.shared.{chain[1]}", _mod(b, "store", chain[2])]] if chain else []
            assert found == want, (a, b, found)
        # a broken contract exits 1: the report is the finding, not a failure
        commands = {"plain": "lint-imports --no-cache; true", "verbose": "lint-imports --no-cache --verbose; true"}
        env = {**ENV, "PATH": f"{tool.parent}:/usr/bin:/bin"}
        cases = shell_cases(SOURCE, commands, _asks(p, g, rnd), cwd=ROOT, env=env, least=12)
    finally:
        shutil.rmtree(ROOT, ignore_errors=True)
    return cases
