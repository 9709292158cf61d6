"""A repository's hooks run before a commit, as pre-commit 3.8 reports them: ``pre-commit run
--all-files`` (one dotted ``name....Passed/Failed/Skipped`` line a hook; under each failed hook
its id, exit code, whether it modified files, and what it printed; ~145 lines, ~7 kB) and
``pre-commit run --all-files --verbose`` (the same with the id and duration of every hook, and
the output of the passing ones too; ~210 lines, ~8 kB), of a service repository the capture
writes and commits: ~130 files and 38 local hooks, each a rule of a checker script the capture
writes (``tools/rules.py``), most of them clean; in the middle, six rules that find what the
capture planted (each exiting with a code of its own), one fixer that rewrites files, and one
hook with no files to check.

Facts come from the capture's own record of what it planted where and of the hooks it
configured, never from pre-commit's text; a fact is kept only where it stands once. Files
planted with a finding carry one finding each (tabs in several). pre-commit 3.8.0 from PyPI in a
throwaway venv; its cache under the work folder. Held out (issue 33, twenty-fourth round): dev
holds linters' and type checkers' reports and test runs, but no hook runner's report.
"""

from __future__ import annotations

import random
import shutil
from pathlib import Path
from typing import Any

from ._asked import Ask, shell_cases
from ._run import git_env, pinned_tool, run

SOURCE = "precommit_hooks"
RELEASE = "pre-commit==3.8.0"
WORDS = ("ledger", "invoice", "refund", "payout", "tariff", "voucher", "parcel", "carrier", "escrow", "pallet",
         "rebate", "quota", "settle", "batch", "audit", "export", "import", "notify", "retry", "schedule")
CLEAN = ("no-debugger-imports", "no-print-calls", "no-assert-in-src", "no-bare-except", "no-star-imports",
         "max-line-length", "no-wildcard-hosts", "no-secret-env", "yaml-indent", "json-sorted-keys",
         "shell-strict-mode", "no-absolute-paths", "md-heading-levels", "no-todo-in-docs", "ascii-filenames",
         "no-empty-files", "no-unused-noqa", "no-mutable-defaults", "no-eval-calls", "no-shell-true",
         "no-hardcoded-ports", "no-http-urls", "yaml-no-anchors", "yaml-quoted-versions", "json-no-comments",
         "md-link-targets", "md-no-raw-html", "shell-no-backticks", "shell-quoted-vars", "no-large-literals")
FINDING = {"no-tabs": 3, "todo-needs-ticket": 4, "detect-private-key": 5, "no-merge-markers": 6,
           "no-breakpoint": 7, "no-crlf": 9}
RULES = r'''"""Repository rules for pre-commit: one rule a hook; prints findings, exits with the rule's code."""
import sys

CODES = {codes}
rule, files = sys.argv[1], sys.argv[2:]
found = []
for name in files:
    data = open(name, "rb").read()
    text = data.decode("utf-8", "replace")
    for n, line in enumerate(text.split("\n"), 1):
        if rule == "no-tabs" and "\t" in line:
            found.append(f"{{name}}:{{n}}: tab character")
        elif rule == "todo-needs-ticket" and "TODO" in line and "SHOP-" not in line:
            found.append(f"{{name}}:{{n}}: TODO without a ticket")
        elif rule == "detect-private-key" and "BEGIN RSA PRIVATE KEY" in line:
            found.append(f"Private key found: {{name}}")
        elif rule == "no-merge-markers" and line.startswith("<<<<<<< "):
            found.append(f"{{name}}:{{n}}: merge conflict marker")
        elif rule == "no-breakpoint" and "breakpoint()" in line:
            found.append(f"{{name}}:{{n}}: breakpoint() left in")
    if rule == "no-crlf" and b"\r\n" in data:
        found.append(f"{{name}}: CRLF line endings")
    if rule == "end-of-file-fixer" and data and not data.endswith(b"\n"):
        open(name, "ab").write(b"\n")
        found.append(f"Fixing {{name}}")
for f in found:
    print(f)
sys.exit(CODES.get(rule, 1) if found else 0)
'''


def plan(rnd: random.Random) -> dict[str, Any]:
    """The capture's record: the files, the hooks in order, and which file got which finding."""
    names = rnd.sample([f"{a}_{b}" for a in WORDS for b in WORDS if a != b], 132)
    files = [f"src/shop/{n}.py" for n in names[:70]] + [f"config/{n}.yaml" for n in names[70:96]]
    files += [f"docs/{n}.md" for n in names[96:118]] + [f"scripts/{n}.sh" for n in names[118:]]
    hooks = list(CLEAN)
    rnd.shuffle(hooks)
    odd = list(FINDING) + ["end-of-file-fixer", "toml-syntax"]
    rnd.shuffle(odd)
    for n, h in enumerate(odd):  # in the middle of the run
        hooks.insert(4 + 2 * n, h)
    pool = rnd.sample(files[70:], 9)  # single findings outside src, a breakpoint in src
    tabbed = rnd.sample(files[:70], 30)
    planted = {"no-tabs": tabbed[1:], "todo-needs-ticket": [pool[0]], "detect-private-key": [pool[1]],
               "no-merge-markers": [pool[2]], "no-breakpoint": tabbed[:1], "no-crlf": [pool[3]],
               "end-of-file-fixer": pool[4:9]}
    return {"files": files, "hooks": hooks, "planted": planted}


def write(p: dict[str, Any], repo: Path, rnd: random.Random) -> None:
    for f in p["files"]:
        path = repo / f
        path.parent.mkdir(parents=True, exist_ok=True)
        stem = Path(f).stem
        lines = [f"# {stem}: part of the shop service"]
        lines += [f"# step {i}: {rnd.choice(WORDS)} {rnd.choice(WORDS)}" for i in range(rnd.randint(3, 12))]
        path.write_text("\n".join(lines) + "\n")
    planted = p["planted"]
    for f in planted["no-tabs"]:  # one to four tabbed lines a file
        with (repo / f).open("a") as fh:
            fh.write("".join(f"\tstep = {rnd.randint(1, 99)}  # indented with a tab\n" for _ in range(rnd.randint(1, 4))))
    extra = {"todo-needs-ticket": "# TODO tidy this up\n", "detect-private-key": "-----BEGIN RSA PRIVATE KEY-----\n",
             "no-merge-markers": "<<<<<<< HEAD\n", "no-breakpoint": "breakpoint()\n"}
    for rule, line in extra.items():
        with (repo / planted[rule][0]).open("a") as fh:
            fh.write(line)
    crlf = repo / planted["no-crlf"][0]
    crlf.write_bytes(crlf.read_bytes().replace(b"\n", b"\r\n"))
    for f in planted["end-of-file-fixer"]:
        path = repo / f
        path.write_bytes(path.read_bytes().rstrip(b"\n"))
    (repo / "tools").mkdir()
    (repo / "tools" / "rules.py").write_text(RULES.format(codes=FINDING))
    config = ["repos:", "-   repo: local", "    hooks:"]
    for h in p["hooks"]:
        files = r"\.toml$" if h == "toml-syntax" else r"^(src|config|docs|scripts)/"
        config += [f"    -   id: {h}", f"        name: {h.replace('-', ' ')} check",
                   f"        entry: python3 tools/rules.py {h}", "        language: system", f"        files: '{files}'"]
    (repo / ".pre-commit-config.yaml").write_text("\n".join(config) + "\n")


def _asks(p: dict[str, Any], rnd: random.Random) -> list[Ask]:
    note = "the capture's record of the hooks it configured and the findings it planted"
    planted = p["planted"]
    asks = []
    for rule in rnd.sample(sorted(FINDING), 4):
        asks.append(Ask(f"code_{FINDING[rule]}", "named", "named_item", (rule,), note,
                        (f"Which hook failed with exit code {FINDING[rule]}?",
                         f"What hook id exited with status {FINDING[rule]}?")))
    for rule, what in rnd.sample([("todo-needs-ticket", "a TODO without a ticket"),
                                  ("detect-private-key", "a private key"),
                                  ("no-merge-markers", "a merge conflict marker"),
                                  ("no-breakpoint", "a leftover breakpoint()"),
                                  ("no-crlf", "CRLF line endings")], 3):
        asks.append(Ask(f"file_{rule}", "named", "named_item", (planted[rule][0],), note,
                        (f"Which file has {what}?", f"What file did the hooks flag for {what}?")))
    asks.append(Ask("fixer", "named", "named_item", ("end-of-file-fixer",), note,
                    ("Which hook modified files?", "What hook rewrote files in place?")))
    asks.append(Ask("skipped", "named", "named_item", ("toml syntax check",), note,
                    ("Which hook was skipped because it had no files to check?",
                     "What hook did not run for want of matching files?")))
    return asks


def build(work: Path) -> list[dict[str, Any]]:
    rnd = random.Random(2404)
    p = plan(rnd)
    tool = pinned_tool(work, RELEASE, "pre-commit")
    repo = work / "shop-service"
    repo.mkdir()
    write(p, repo, rnd)
    env = {**git_env(), "PATH": f"{tool.parent}:/usr/bin:/bin", "PRE_COMMIT_HOME": str(work / "pc-cache"),
           "HOME": str(work)}
    run(["git", "init", "-q", "-b", "main"], cwd=repo, env=env)
    run(["git", "add", "-A"], cwd=repo, env=env)
    run(["git", "commit", "-q", "-m", "shop service"], cwd=repo, env=env)
    commands = {"plain": "pre-commit run --all-files", "verbose": "pre-commit run --all-files --verbose"}
    # each run starts from the commit (the fixer rewrites files): the tree is restored first
    cmds = {k: f"git checkout -q -- . && {v}" for k, v in commands.items()}
    cases = shell_cases(SOURCE, cmds, _asks(p, rnd), cwd=repo, env=env, least=12, check=False)
    for c in cases:
        c["tool_arguments"]["command"] = c["tool_arguments"]["command"].removeprefix("git checkout -q -- . && ")
    shutil.rmtree(work / "pc-cache", ignore_errors=True)
    return cases
