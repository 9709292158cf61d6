"""A work tree's state as ``git status`` prints it: the long form (branch, "Changes to be
committed", "Unmerged paths", "Changes not staged", "Untracked files"), ``git status -s``
and ``git status --porcelain=v2 --branch --ignored`` (one line per path with the index and
work-tree codes, modes and object ids), of a throwaway repository the capture builds from
the Pygments lexers installed in the venv (~260 files): a merge left with one conflicted
file, then 120 files edited, a few staged, one edited after staging, one renamed, one
deletion staged and one not, one made executable, new files staged, untracked and ignored
files.

Facts come from the capture's own record of what it did to the tree (which file it renamed,
deleted, left conflicted ...), never from git's output. A fact is kept only where its text
occurs once in the output. Held out (issue 33, fourth round): no dev source holds a work
tree's status (``git_history`` and the release repositories hold logs and diffs).
"""

from __future__ import annotations

import os
import random
import shutil
import sysconfig
from pathlib import Path
from typing import Any

from ..cases import fact, make_case
from ..questions import choose
from ._run import run

SOURCE = "git_status"
OUTPUTS = {"long": ["git", "status"], "short": ["git", "status", "-s"],
           "porcelain_v2": ["git", "status", "--porcelain=v2", "--branch", "--ignored"]}
ENV = {"GIT_AUTHOR_NAME": "Dana Reyes", "GIT_AUTHOR_EMAIL": "dana@example.org", "GIT_COMMITTER_NAME": "Dana Reyes",
       "GIT_COMMITTER_EMAIL": "dana@example.org", "GIT_AUTHOR_DATE": "2026-11-02T09:00:00+00:00",
       "GIT_COMMITTER_DATE": "2026-11-02T09:00:00+00:00", "GIT_CONFIG_GLOBAL": "/dev/null",
       "GIT_CONFIG_NOSYSTEM": "1", "LC_ALL": "C"}


def _git(repo: Path, *args: str, check: bool = True) -> str:
    return run(["git", *args], cwd=repo, env={**os.environ, **ENV}, check=check).stdout


def make_tree(repo: Path) -> dict[str, list[str]]:
    """The repository and what was done to it: category -> paths (relative to the root)."""
    src = Path(sysconfig.get_paths()["purelib"]) / "pygments" / "lexers"
    shutil.copytree(src, repo / "lexers", ignore=shutil.ignore_patterns("__pycache__"))
    (repo / ".gitignore").write_text("*.log\nbuild/\n")
    _git(repo, "init", "-q", "-b", "main")
    _git(repo, "add", "-A")
    _git(repo, "commit", "-q", "-m", "Import the lexers")
    files = sorted(p.relative_to(repo).as_posix() for p in (repo / "lexers").glob("*.py") if p.name != "__init__.py")
    rng = random.Random(44)
    pool = rng.sample(files, 150)
    did: dict[str, list[str]] = {}
    # A merge that conflicts on one file: both branches rewrite its first line.
    conflict = pool.pop()
    _git(repo, "checkout", "-q", "-b", "feature/markup")
    _edit_first_line(repo / conflict, "# lexer tuned on the feature branch\n")
    _git(repo, "commit", "-q", "-am", "Tune one lexer on the branch")
    _git(repo, "checkout", "-q", "main")
    _edit_first_line(repo / conflict, "# lexer tuned on main\n")
    _git(repo, "commit", "-q", "-am", "Tune the same lexer on main")
    _git(repo, "merge", "-q", "feature/markup", check=False)
    did["conflict"] = [conflict]
    did["modified"] = [pool.pop() for _ in range(120)]
    for path in did["modified"]:
        with open(repo / path, "a") as fh:
            fh.write("# reviewed\n")
    did["staged"] = [pool.pop() for _ in range(8)]
    for path in did["staged"]:
        with open(repo / path, "a") as fh:
            fh.write("# staged change\n")
    _git(repo, "add", *did["staged"])
    both = pool.pop()
    with open(repo / both, "a") as fh:
        fh.write("# first pass\n")
    _git(repo, "add", both)
    with open(repo / both, "a") as fh:
        fh.write("# second pass, not staged\n")
    did["both"] = [both]
    old = pool.pop()
    new = f"lexers/legacy_{Path(old).stem}.py"
    _git(repo, "mv", old, new)
    did["renamed_from"], did["renamed_to"] = [old], [new]
    did["deleted_staged"] = [pool.pop()]
    _git(repo, "rm", "-q", did["deleted_staged"][0])
    did["deleted_unstaged"] = [pool.pop()]
    os.remove(repo / did["deleted_unstaged"][0])
    did["executable"] = [pool.pop()]
    os.chmod(repo / did["executable"][0], 0o755)
    did["added"] = ["lexers/wasm_text.py", "lexers/nginx_conf.py", "tests/test_wasm_text.py"]
    for path in did["added"]:
        (repo / path).parent.mkdir(exist_ok=True)
        (repo / path).write_text('"""A new lexer module."""\n')
    _git(repo, "add", *did["added"])
    did["untracked"] = ["notes/benchmarks.txt", "scratch_profile.py"]
    for path in did["untracked"]:
        (repo / path).parent.mkdir(exist_ok=True)
        (repo / path).write_text("scratch\n")
    for path in ("build/lexers.whl", "lexer-timing.log"):
        (repo / path).parent.mkdir(exist_ok=True)
        (repo / path).write_text("ignored\n")
    return did


def _edit_first_line(path: Path, line: str) -> None:
    text = path.read_text()
    path.write_text(line + text.split("\n", 1)[1])


QUESTIONS = (  # scenario, categories whose paths answer, outputs where it is visible, wordings
    ("conflict", ("conflict",), None,
     ("Which file has an unresolved merge conflict?", "Which path still needs the merge conflict resolved?")),
    ("renamed", ("renamed_from", "renamed_to"), None,
     ("Which file was renamed, and what is its new name?", "Is a rename staged? From which path to which?")),
    ("deleted_unstaged", ("deleted_unstaged",), None,
     ("Which tracked file is missing from the work tree without its deletion being staged?",
      "Which file was deleted but the deletion is not staged yet?")),
    ("deleted_staged", ("deleted_staged",), None,
     ("Which file's removal is staged for the next commit?", "Which deletion is already in the index?")),
    ("both", ("both",), None,
     ("Which file has staged changes and also further changes that are not staged?",
      "Which path was changed again after it was staged?")),
    ("executable", ("executable",), ("porcelain_v2",),
     ("Which file had its mode changed (made executable)?", "Whose file permissions changed in the work tree?")),
    ("added", ("added",), None,
     ("Which new files are staged to be added?", "Which files will the next commit add to the repository?")),
    ("untracked", ("untracked",), None,
     ("Which files are untracked?", "What is in the work tree that git does not track (ignored files aside)?")),
)


def build(work: Path) -> list[dict[str, Any]]:
    if shutil.which("git") is None:
        raise RuntimeError("needs git")
    repo = work / "repo"
    repo.mkdir()
    did = make_tree(repo)
    out = []
    for output, cmd in OUTPUTS.items():
        content = _git(repo, *cmd[1:])
        for scen, cats, where, wordings in QUESTIONS:
            if where and output not in where:
                continue
            pairs = [(p, c) for c in cats for p in did[c]]
            if scen == "untracked":
                # Every form lists an untracked directory, not the files in it.
                pairs = [(p.split("/")[0] + "/" if "/" in p else p, c) for p, c in pairs]
            if any(content.count(p) != 1 for p, _ in pairs):
                continue
            sid = f"{output}_{scen}"
            facts = [fact(p, "named_item", f"the capture's record: {c}", basis="independent") for p, c in pairs]
            out.append(make_case(SOURCE, sid, "text", "bash", {"command": " ".join(cmd)}, "named",
                                 choose(f"{SOURCE}/{sid}", wordings), content, facts))
    assert len(out) >= 12, f"too few git_status cases: {len(out)}"
    return out
