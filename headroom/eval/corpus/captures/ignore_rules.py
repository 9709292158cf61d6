"""Which ignore rule matches which path, as ``git check-ignore -v --stdin`` reports it (one
``source:line:pattern<TAB>path`` line a matched path, a re-including ``!`` rule shown too) and
with ``-n`` (every path asked about, the unmatched ones as ``::<TAB>path``), for ~420 paths of
a throwaway repository's work tree: build output, caches, logs and editor files under a root
``.gitignore`` of ~40 rules, nested ``.gitignore`` files in three folders and
``.git/info/exclude``.

Most paths are matched by a few broad rules (``__pycache__/``, ``*.log``, ``node_modules/``
...) or by none; the odd paths, in the middle of the list, are each matched by a rule no other
listed path meets: a nested folder's own rule, a re-including ``!`` rule, a rule in
``info/exclude``, an anchored root rule, a ``**`` rule. Facts come from the capture's record of
the ignore files it wrote (each rule's file and line), never from git's report; a fact is kept
only where it stands once. Held out (issue 33, seventeenth round): dev holds git's status
(ignored files among them), config origins and object listings, but no ignore-rule report.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from ._asked import Ask, shell_cases
from ._run import git_env, run

SOURCE = "ignore_rules"
COMMANDS = {"verbose": "git check-ignore -v --stdin < paths.txt",
            "all": "git check-ignore -v -n --stdin < paths.txt"}
BROAD = ("__pycache__/", "*.pyc", "*.log", "node_modules/", ".env", "dist/", "build/", "*.tmp", "coverage/",
         ".DS_Store", "*.swp", ".pytest_cache/", ".mypy_cache/", "*.egg-info/", ".venv/", "*.bak", ".idea/",
         ".vscode/", "*.orig", "htmlcov/")
FILLER = ("*.rej", "*.o", "*.so", "*.class", "*.jar", ".gradle/", "target/", "*.iml", "npm-debug.log*",
          ".cache/", "*.pid", "*.sqlite-journal", ".terraform/", "*.tfstate", "cover.out", "Thumbs.db")
# Odd rules: (ignore file, pattern, the one listed path it matches, what an agent would ask about).
ODD = (("web/.gitignore", "*.map", "web/assets/app.3f9c1e.js.map", "the source map"),
       ("web/.gitignore", "!vendor-legal.map", "web/assets/vendor-legal.map", "the legal map file"),
       ("services/billing/.gitignore", "fixtures/*.sqlite", "services/billing/fixtures/prod-copy.sqlite",
        "the billing fixture database"),
       ("services/billing/.gitignore", "!fixtures/seed.sqlite", "services/billing/fixtures/seed.sqlite",
        "the seed database"),
       (".git/info/exclude", "scratch-*.md", "notes/scratch-q3-pricing.md", "my scratch note"),
       (".git/info/exclude", "/local-*.sh", "local-tunnel.sh", "the local tunnel script"),
       ("docs/.gitignore", "_generated/", "docs/_generated/api/orders.html", "the generated API docs"),
       (".gitignore", "/config/local.toml", "config/local.toml", "the local config"),
       (".gitignore", "**/uploads/tmp/**", "api/uploads/tmp/7f3a91.bin", "the upload in api"),
       (".gitignore", "*.pem", "deploy/certs/staging-key.pem", "the staging key"),
       (".gitignore", "profile-*.json", "perf/profile-checkout.json", "the checkout profile"))
MODULES = ("orders", "billing", "catalog", "search", "auth", "media", "stock", "reports", "mailer", "gateway")


def write_rules(repo: Path, rnd: random.Random) -> dict[str, str]:
    """Write the ignore files; return each odd path's rule as ``file:line:pattern``."""
    files: dict[str, list[str]] = {".gitignore": ["# build and caches"], ".git/info/exclude": ["# local only"],
                                   "web/.gitignore": ["# web build"], "services/billing/.gitignore": ["# billing"],
                                   "docs/.gitignore": ["# docs"]}
    root = [*BROAD, *FILLER]
    rnd.shuffle(root)
    files[".gitignore"] += root[:18]
    files["web/.gitignore"] += [".parcel-cache/", "*.tsbuildinfo"]
    rules = {}
    for where, pattern, path, _ in ODD:
        files[where].append(pattern)
        rules[path] = f"{where}:{len(files[where])}:{pattern}"
    files[".gitignore"] += root[18:]
    for name, lines in files.items():
        (repo / name).parent.mkdir(parents=True, exist_ok=True)
        (repo / name).write_text("\n".join(lines) + "\n")
    return rules


def listed_paths(rnd: random.Random) -> list[str]:
    """The paths asked about: routine ones (broad rules or none) with the odd ones in the middle."""
    routine = []
    for m in MODULES:
        base = f"services/{m}"
        routine += [f"{base}/src/{m}/{f}.py" for f in ("models", "views", "tasks", "api")]
        routine += [f"{base}/src/{m}/__pycache__/{f}.cpython-311.pyc" for f in ("models", "views", "tasks")]
        routine += [f"{base}/logs/{m}-{d}.log" for d in ("2026-11-28", "2026-11-29", "2026-11-30")]
        routine += [f"{base}/{f}" for f in ("README.md", "pyproject.toml", ".env", "dist/wheel.whl", "notes.tmp",
                                            "coverage/index.html", "src/.DS_Store", "setup.py.orig")]
        routine += [f"{base}/.pytest_cache/v/cache/{f}" for f in ("nodeids", "lastfailed")]
        routine += [f"{base}/node_modules/{p}/index.js" for p in ("left-pad", "chalk", "debug")]
        routine += [f"{base}/tests/test_{m}_{f}.py" for f in ("api", "models", "tasks")]
    rnd.shuffle(routine)
    odd = [path for _, _, path, _ in ODD]
    rnd.shuffle(odd)
    cut = len(routine) // 3
    return routine[:cut] + odd[:6] + routine[cut:2 * cut] + odd[6:] + routine[2 * cut:]


def _asks(rules: dict[str, str]) -> list[Ask]:
    note = "the capture's record of the ignore files it wrote"
    asks = []
    for n, (_, pattern, path, what) in enumerate(ODD):
        if pattern.startswith("!"):
            wordings = (f"Why isn't {path} ignored? Which rule lets it back in?",
                        f"What re-includes {what} ({path})? Give the file, line and rule.")
        else:
            wordings = (f"Which ignore rule matches {path}? File and line, please.",
                        f"Why is {what} ignored? Which rule, where? ({path})")
        only = () if n < 5 else ("verbose",)  # ~16 cases: the rest asked of the matched lines only
        asks.append(Ask(f"rule_{Path(path).name}", "named", "named_item", (rules[path],), note, wordings, only))
    return asks


def build(work: Path) -> list[dict[str, Any]]:
    rnd, env = random.Random(1704), git_env()
    repo = work / "shop"
    run(["git", "init", "-q", "-b", "main", str(repo)], env=env)
    rules = write_rules(repo, rnd)
    (repo / "paths.txt").write_text("\n".join(listed_paths(rnd)) + "\n")
    return shell_cases(SOURCE, COMMANDS, _asks(rules), cwd=repo, env=env)
