"""``npm view`` against the configured npm registry: a package's publish-time map (npm's
JS-object text and ``--json``) and its full metadata document (the human summary and
``--json``). Lookups by attribute (when was version V published, which range of a
dependency is required) and the most recent release, on registry JSON rather than logs.
The times are the registry's own (a mirror records when it received each version)."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

from ..cases import fact, make_case
from ..questions import choose
from ._run import run

SOURCE = "npm_view"
PACKAGES = ("express", "lodash")
_ENV = {**os.environ, "NO_COLOR": "1", "npm_config_loglevel": "error", "npm_config_update_notifier": "false"}


def _npm(*args: str, cwd: Path) -> str:
    return run(["npm", "view", *args, "--color=false"], cwd=cwd, env=_ENV, timeout=120).stdout


def _once(text: str, contents: tuple[str, ...]) -> bool:
    return all(c.count(text) == 1 for c in contents)


def _time_cases(pkg: str, work: Path) -> list[dict[str, Any]]:
    text, js = _npm(pkg, "time", cwd=work), _npm(pkg, "time", "--json", cwd=work)
    times = {v: t for v, t in json.loads(js).items() if v not in ("created", "modified")}
    both = (text, js)
    versions = [v for v, t in times.items() if _once(t, both)]
    asked = versions[len(versions) // 3]
    newest = max(times, key=lambda v: times[v])
    out = []
    for form, content, cmd in (("text", text, f"npm view {pkg} time"), ("json", js, f"npm view {pkg} time --json")):
        sid = f"{pkg}_time_{form}_lookup"
        q = choose(f"{SOURCE}/{sid}", (f"When was {pkg} {asked} published to the registry?",
                                       f"Give me the publish timestamp of version {asked} of {pkg}."))
        out.append(make_case(SOURCE, sid, form, "bash", {"command": cmd}, "named", q, content,
                             [fact(times[asked], "named_item", f"time entry of version {asked}")]))
        if _once(times[newest], both):
            sid = f"{pkg}_time_{form}_newest"
            q = choose(f"{SOURCE}/{sid}", (f"Which {pkg} release reached the registry most recently?",
                                           f"What is the latest-published version of {pkg}, by publish time?"))
            out.append(make_case(SOURCE, sid, form, "bash", {"command": cmd}, "extreme", q, content,
                                 [fact(times[newest], "extreme", f"greatest publish time (version {newest})")]))
    return out


def _metadata_cases(pkg: str, work: Path) -> list[dict[str, Any]]:
    text, js = _npm(pkg, cwd=work), _npm(pkg, "--json", cwd=work)
    doc = json.loads(js)
    both = (text, js)
    # npm's summary lists only some dependencies; ask about one it shows, with a unique range.
    deps = [(d, r) for d, r in doc.get("dependencies", {}).items() if f"{d}: {r}" in text and _once(r, both)]
    out = []
    for form, content, cmd in (("text", text, f"npm view {pkg}"), ("json", js, f"npm view {pkg} --json")):
        if deps:
            dep, rng = deps[len(deps) // 2]
            sid = f"{pkg}_meta_{form}_dependency"
            q = choose(f"{SOURCE}/{sid}", (f"Which version range of {dep} does the current {pkg} depend on?",
                                           f"What does {pkg} require of {dep} (the semver range)?"))
            out.append(make_case(SOURCE, sid, form, "bash", {"command": cmd}, "named", q, content,
                                 [fact(rng, "named_item", f"dependencies[{dep}]")]))
        integrity = doc["dist"]["integrity"]
        if _once(integrity, both) and json.dumps(integrity)[1:-1] == integrity:
            sid = f"{pkg}_meta_{form}_integrity"
            q = choose(f"{SOURCE}/{sid}", (f"What integrity hash should the {pkg} tarball have?",
                                           f"Quote the subresource-integrity string of the current {pkg} tarball."))
            out.append(make_case(SOURCE, sid, form, "bash", {"command": cmd}, "named", q, content,
                                 [fact(integrity, "named_item", "dist.integrity")]))
    return out


def build(work: Path) -> list[dict[str, Any]]:
    out = []
    for pkg in PACKAGES:
        out += _time_cases(pkg, work) + _metadata_cases(pkg, work)
    return out
