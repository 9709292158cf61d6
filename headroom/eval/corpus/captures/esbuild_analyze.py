"""A bundler's size analysis as esbuild prints it: ``esbuild ... --bundle --outdir=out --analyze``
(for each output bundle, largest first, a tree of the inputs it holds with their bytes in the
bundle and their share of it: ``├ src/parts/ledger-sync.js 1.2kb 3.1%``; ~140 lines, ~6 kB) and
``--analyze=verbose`` (the same, each input followed by the chain of imports that pulled it in,
drawn with ``│``/``└``; ~310 lines, ~12 kB), of a storefront the capture writes: six page entry
points, ten shared library modules, 96 page-private modules under neutral names, some importing
another.

Most private modules are small functions of a few sizes; in four pages, one private module holds
a data table far larger than anything else in its bundle. Facts come from the capture's own
record of the modules it wrote and who imports what (which bundle a private module lands in,
which module is far the largest of a bundle), never from esbuild's text; a fact is kept only
where it stands once (shared modules stand under every bundle, and an importing module stands
again in each chain it starts, so only private leaves are asked). Held out (issue 33, nineteenth
round): dev holds package trees (npm, pnpm, yarn, pipdeptree) and disk usage (``du``), but no
bundler's size analysis.
"""

from __future__ import annotations

import os
import random
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ._asked import Ask, shell_cases
from ._run import run

SOURCE = "esbuild_analyze"
ESBUILD = "esbuild@0.24.0"
PAGES = ("account", "admin", "catalog", "checkout", "refunds", "reports")
LIBS = ("money", "dates", "http", "format", "store", "events", "i18n", "auth", "cache", "router")
WORDS = ("amber", "birch", "cobalt", "delta", "ember", "fjord", "garnet", "harbor", "indigo", "juniper", "kelp",
         "lumen", "maple", "nickel", "onyx", "pylon", "quartz", "raven", "sable", "tundra", "umber", "vesper",
         "willow", "xenon", "yarrow", "zephyr")
ROLES = ("sync", "panel", "table", "guard", "hooks", "store", "codec", "query", "rules", "toast", "badge", "grid")
PRIVATE = 16
_ENV = {**os.environ, "NO_COLOR": "1", "FORCE_COLOR": "0", "npm_config_update_notifier": "false",
        "npm_config_loglevel": "error", "CI": "1"}


@dataclass
class Site:
    """The capture's record: each page's private modules, what imports what, the big tables."""

    private: dict[str, list[str]] = field(default_factory=dict)  # page -> module names (no ".js")
    imports: dict[str, list[str]] = field(default_factory=dict)  # module path -> the paths it imports
    size: dict[str, int] = field(default_factory=dict)  # module path -> functions written
    big: dict[str, str] = field(default_factory=dict)  # page -> its module with the large table


def plan(rnd: random.Random) -> Site:
    site = Site()
    names = rnd.sample([f"{w}-{r}" for w in WORDS for r in ROLES], PRIVATE * len(PAGES))
    for k, page in enumerate(PAGES):
        mods = names[k * PRIVATE:(k + 1) * PRIVATE]
        site.private[page] = mods
        paths = [f"src/parts/{m}.js" for m in mods]
        libs = [f"src/lib/{lib}.js" for lib in rnd.sample(LIBS, 4)]
        # the first half are imported by the page, each of the rest by one of the first half
        site.imports[f"src/pages/{page}.js"] = paths[:PRIVATE // 2] + libs
        for i, p in enumerate(paths[PRIVATE // 2:]):
            site.imports.setdefault(paths[i], []).append(p)
        for p in paths:
            site.size[p] = rnd.choice((2, 3, 5, 8))
    for lib in LIBS:
        site.size[f"src/lib/{lib}.js"] = rnd.choice((3, 6, 9))
    for page in rnd.sample(PAGES[1:-1], 4):
        leaves = site.private[page][PRIVATE // 2:]
        site.big[page] = f"src/parts/{rnd.choice(leaves)}.js"
    return site


def _ident(path: str) -> str:
    return path.rsplit("/", 1)[1].removesuffix(".js").replace("-", "_")


def module_text(site: Site, path: str, rnd: random.Random) -> str:
    """Imports, then the module's own functions (called, so nothing is shaken out)."""
    deps = site.imports.get(path, [])
    lines = [f'import {{ {_ident(d)} }} from "../{d.split("/", 1)[1].split("/", 1)[0]}/{d.rsplit("/", 1)[1]}";'
             for d in deps]
    me = _ident(path)
    if path.startswith("src/pages/"):
        lines += [f"console.log({_ident(d)}({n}));" for n, d in enumerate(deps)]
        return "\n".join(lines) + "\n"
    body = [f"  total += (x * {rnd.randint(2, 97)} + {rnd.randint(1, 999)}) % {rnd.randint(101, 997)};"
            for _ in range(site.size[path] * 3)]
    calls = [f"  total += {_ident(d)}(x + {n});" for n, d in enumerate(deps)]
    if path in site.big.values():
        rows = ", ".join(str(rnd.randint(10000, 99999)) for _ in range(2400))
        lines.append(f"const TABLE = [{rows}];")
        calls.append("  total += TABLE[x % TABLE.length];")
    lines += [f"export function {me}(x) {{", "  let total = 0;", *body, *calls, "  return total;", "}"]
    return "\n".join(lines) + "\n"


def write_site(root: Path, site: Site, rnd: random.Random) -> None:
    paths = sorted(set(site.size) | set(site.imports))
    for p in paths:
        (root / p).parent.mkdir(parents=True, exist_ok=True)
        (root / p).write_text(module_text(site, p, rnd))


def _asks(site: Site, rnd: random.Random) -> list[Ask]:
    note = "the capture's record of the modules it wrote and their imports"
    asks = [Ask(f"largest_{page}", "extreme", "extreme", (path,), note,
                (f"Which input takes up the most of out/{page}.js?",
                 f"What's the biggest module bundled into out/{page}.js?"))
            for page, path in site.big.items()]
    leaves = [(page, m) for page in PAGES for m in site.private[page][PRIVATE // 2:]
              if f"src/parts/{m}.js" not in site.big.values()]
    for page, m in rnd.sample(leaves, 4):
        asks.append(Ask(f"bundle_{m}", "named", "named_item", (f"out/{page}.js",), note,
                        (f"Which bundle carries src/parts/{m}.js?", f"src/parts/{m}.js ends up in which output file?")))
    # No "who imports this leaf": the importer stands once only in the plain form, which draws
    # no import at all (the verbose form's chains draw them, and repeat every importer), so
    # no reader could answer it from the output; asked until the twentieth session (four
    # cases, docs/decisions.md "Round 23, measured once, then read by class").
    return asks


def build(work: Path) -> list[dict[str, Any]]:
    rnd = random.Random(1904)
    site = plan(rnd)
    (work / "package.json").write_text('{"name": "storefront", "version": "1.0.0", "private": true}\n')
    run(["npm", "install", "--no-audit", "--no-fund", ESBUILD], cwd=work, env=_ENV, timeout=600)
    write_site(work, site, rnd)
    entries = " ".join(f"src/pages/{p}.js" for p in PAGES)
    base = f"npx esbuild {entries} --bundle --outdir=out --log-level=warning"
    commands = {"analyze": f"{base} --analyze 2>&1", "verbose": f"{base} --analyze=verbose 2>&1"}
    env = {**_ENV, "PATH": f"{work / 'node_modules' / '.bin'}:{_ENV.get('PATH', '/usr/bin:/bin')}"}
    return shell_cases(SOURCE, commands, _asks(site, rnd), cwd=work, env=env)
