"""``npm install express@4.21.0 --loglevel verbose`` into an empty project with a fresh npm
cache (npm's own log: verbose/http/info/warn lines, as text and as JSON rows), then
``npm ls --all`` of the result (the dependency tree as text and as ``--json``). A package
manager's log and a nested JSON tree looked up by package name."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

from ..cases import LogLine, as_json, as_text, fact, log_cases, make_case
from ..facts import one_offs, spread
from ..questions import choose, pick
from ._run import run

SOURCE = "npm_install"
SPEC = "express@4.21.0"
_LINE = re.compile(r"^npm (?P<level>\w+) (?P<message>(?P<component>\S+).*)$")
_NODE = re.compile(r"[└├][─┬]+ (?P<name>[^@\s]+)@(?P<version>\S+)$")


def _install(project: Path) -> str:
    project.mkdir()
    (project / "package.json").write_text(json.dumps({"name": "corpus-npm", "version": "1.0.0", "private": True}))
    env = {**os.environ, "npm_config_update_notifier": "false"}
    return run(["npm", "install", SPEC, "--loglevel", "verbose", "--no-audit", "--no-fund",
                "--cache", str(project.parent / "npm-cache")], cwd=project, env=env, timeout=600).stderr


def build(work: Path) -> list[dict[str, Any]]:
    project = work / "app"
    log = _install(project)
    lines = [LogLine(raw=ln, ts="", level=m["level"], component=m["component"], message=m["message"])
             for ln in log.splitlines() if (m := _LINE.match(ln))]
    text_args = {"command": f"npm install {SPEC} --loglevel verbose"}
    json_args = {"path": "npm-debug.json"}
    out = log_cases(SOURCE, "install", lines, what="npm install log", tool_name="bash", text_args=text_args,
                    json_tool="read_log", json_args=json_args, error_levels={"error", "ERR!"},
                    warning_levels={"warn"}, intents=("errors",), json_intents=("errors",))
    # One-offs among the non-``http`` lines: each fetch/cache line names its own package, so
    # the template pass (which keeps words) would call every one of them a one-off.
    both = (as_text(lines), as_json(lines))
    rare = one_offs([ln.message for ln in lines if ln.level != "http"], both)
    for form, content, tool, args in (("text", both[0], "bash", text_args), ("json", both[1], "read_log", json_args)):
        sid = f"install_{form}_one_off"
        out.append(make_case(SOURCE, sid, form, tool, args, "one_off", pick("one_off", f"{SOURCE}/{sid}", "npm install log"),
                             content, [fact(t, "one_off", "non-http line whose template occurs once") for t in rare]))
    text = run(["npm", "ls", "--all"], cwd=project).stdout
    js = run(["npm", "ls", "--all", "--json"], cwd=project).stdout
    # Packages installed once, whose version string names only their own entry in both forms.
    nodes = [m for ln in text.splitlines() if (m := _NODE.search(ln)) and "deduped" not in ln]
    unique = [m for m in nodes if len(m["version"]) >= 5 and text.count(m["version"]) == 1
              and js.count(f'"{m["version"]}"') == 1]
    for k, m in enumerate(spread(unique[1:], 2)):
        for form, content, cmd in (("text", text, "npm ls --all"), ("json", js, "npm ls --all --json")):
            sid = f"tree_{k}_{form}"
            q = choose(f"{SOURCE}/{sid}", (f"Which version of {m['name']} ended up in the dependency tree?",
                                           f"What {m['name']} release did npm resolve for this install?"))
            out.append(make_case(SOURCE, sid, form, "bash", {"command": cmd}, "named", q, content,
                                 [fact(m["version"], "named_item", f"version of {m['name']} in the tree")]))
    return out
