"""The folders are the architecture (docs/architecture.md): no import cycle, and no lower
layer imports a higher one — lazy imports inside functions included."""

from __future__ import annotations

import ast
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2] / "headroom"

# Lowest first. Units of one layer do not import each other; imports go strictly down.
LAYERS: list[set[str]] = [
    {"modes", "config", "tokens", "formats", "query", "py.typed", "sqlite_files"},  # data and vocabulary, file opening
    {"ml", "providers", "metrics", "cache"},  # model loading, prices, metric rows, provider caches
    {"relevance"},  # bm25 / embeddings
    {"ccr"},  # store, markers, the retrieve tool
    {"toin"},  # learned tool-output patterns (read CCR retrievals)
    {"compressors"},  # per-content compressors
    {"transforms"},  # conversation stages
    {"image"},  # the image stage
    {"pipeline"},  # parse -> transforms -> render
    {"api", "exchange", "exchange_stream", "report", "data", "models"},  # front door, call core, reports
    {"client", "proxy", "integrations", "mcp_server", "eval"},  # IO shells
    {"cli"},
    {"__main__", "__init__"},  # `python -m headroom`, and the package's public surface
]
LAYER_OF = {unit: i for i, units in enumerate(LAYERS) for unit in units}
# `from .. import __version__` reads a constant of the package root, allowed anywhere.
ANYWHERE = {"__version__"}


def _modules() -> dict[str, Path]:
    out = {}
    for p in ROOT.rglob("*.py"):
        parts = p.with_suffix("").relative_to(ROOT.parent).parts
        out[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = p
    return out


MODULES = _modules()


def _imports(mod: str, path: Path, top_level_only: bool) -> set[str]:
    """headroom modules that ``mod`` imports (module-level statements only, if asked)."""
    pkg = mod if path.name == "__init__.py" else mod.rsplit(".", 1)[0]
    tree = ast.parse(path.read_text(encoding="utf-8"))
    nodes = []
    if top_level_only:
        for node in tree.body:
            if isinstance(node, ast.If):
                typing_only = isinstance(node.test, ast.Name) and node.test.id == "TYPE_CHECKING"
                nodes.extend([] if typing_only else node.body + node.orelse)
            elif isinstance(node, ast.Try):
                nodes.extend(node.body)
            else:
                nodes.append(node)
    else:
        nodes = list(ast.walk(tree))
    out: set[str] = set()
    for node in nodes:
        if isinstance(node, ast.ImportFrom):
            if node.level:
                base = pkg.split(".")[: len(pkg.split(".")) - (node.level - 1)]
                target = ".".join(base + ([node.module] if node.module else []))
            else:
                target = node.module or ""
            if target.split(".")[0] != "headroom":
                continue
            for alias in node.names:
                sub = f"{target}.{alias.name}"
                out.add(sub if sub in MODULES or alias.name in ANYWHERE else target)
        elif isinstance(node, ast.Import):
            out |= {a.name for a in node.names if a.name.split(".")[0] == "headroom"}
    return out - {mod}


def _unit(mod: str) -> str:
    parts = mod.split(".")
    return parts[1] if len(parts) > 1 else "__init__"


def test_every_unit_has_a_layer():
    units = {_unit(m) for m in MODULES} | {p.name for p in ROOT.iterdir() if p.is_dir() and p.name != "__pycache__"}
    assert sorted(units - set(LAYER_OF) - ANYWHERE) == []


def test_no_lower_layer_imports_a_higher_one():
    offences = []
    for mod, path in MODULES.items():
        here = _unit(mod)
        for target in _imports(mod, path, top_level_only=False):
            there = _unit(target)
            if there in ANYWHERE or target.endswith(".__version__") or there == here:
                continue
            if LAYER_OF[there] >= LAYER_OF[here]:
                offences.append(f"{mod} imports {target} ({here} is layer {LAYER_OF[here]}, "
                                f"{there} layer {LAYER_OF[there]})")
    assert offences == []


def test_no_import_cycle():
    graph = {m: {t for t in _imports(m, p, top_level_only=True) if t in MODULES} for m, p in MODULES.items()}
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    cycles: list[list[str]] = []

    def visit(v: str) -> None:  # Tarjan's strongly connected components
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in graph[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                cycles.append(sorted(comp))

    for v in graph:
        if v not in index:
            visit(v)
    assert cycles == []


def test_the_checker_sees_lazy_imports():
    found = _imports("headroom.cli.cmd_compress", MODULES["headroom.cli.cmd_compress"], top_level_only=False)
    assert "headroom.api" in found  # imported inside run()
