"""A field of few values keeps its rare values in view, in listings and in line-oriented
output where every line is a template of its own (real ``git status``).

``git status -s`` lists a hundred modified paths and one deleted, one added, one untracked:
the status column is a field of few values, and its rare ones are what a question about the
work tree is after. ``--porcelain=v2`` prints shas and modes on every line, so the log
reader saw as many templates as lines and kept some by budget.
"""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

import headroom
from headroom import Pipeline
from headroom.ccr.store import CompressionStore
from headroom.config import HeadroomConfig

pytestmark = pytest.mark.skipif(shutil.which("git") is None, reason="needs git")


def _git(repo, *args: str) -> str:
    return subprocess.run(["git", "-c", "user.name=t", "-c", "user.email=t@example.org", *args], cwd=repo,
                          capture_output=True, text=True, check=True).stdout


@pytest.fixture(scope="module")
def work_tree(tmp_path_factory):
    repo = tmp_path_factory.mktemp("wt")
    _git(repo, "init", "-q")
    for i in range(400):
        (repo / f"mod_{i:03d}.py").write_text(f"value = {i}\n")
    _git(repo, "add", ".")
    _git(repo, "commit", "-qm", "base")
    for i in range(400):
        (repo / f"mod_{i:03d}.py").write_text(f"value = {i + 1}\n")
    (repo / "mod_257.py").unlink()  # deleted, not staged
    (repo / "added_module.py").write_text("x = 1\n")
    _git(repo, "add", "added_module.py")
    (repo / "scratch_notes.txt").write_text("todo\n")  # untracked
    return repo


def _in_view(command: str, out: str, question: str) -> str:
    msgs = [{"role": "user", "content": question},
            {"role": "assistant", "content": None, "tool_calls": [{"id": "c1", "type": "function", "function": {
                "name": "bash", "arguments": json.dumps({"command": command})}}]},
            {"role": "tool", "tool_call_id": "c1", "content": out}]
    res = headroom.compress(msgs, model="gpt-4o", pipeline=Pipeline(HeadroomConfig(), store=CompressionStore()))
    text = res.messages[-1]["content"]
    assert len(text) < len(out) // 2  # compressed
    return text


@pytest.mark.parametrize("args", [["status", "-s"], ["status", "--porcelain=v2"]])
def test_the_rare_statuses_stay_in_view(work_tree, args):
    out = _git(work_tree, *args)
    text = _in_view("git " + " ".join(args), out, "Which tracked file is missing from the work tree?")
    for path in ("mod_257.py", "added_module.py", "scratch_notes.txt"):
        assert path in text, path


def test_porcelain_v2_of_a_conflicted_merge_keeps_every_rare_status():
    """The corpus's ``git status --porcelain=v2`` of a conflicted merge (headers, renames,
    staged and unstaged changes, a mode change): every line is a template of its own, and
    each asked path has a rare status."""
    from headroom.eval.corpus import load_cases

    kinds = ("conflict", "renamed", "deleted_unstaged", "both", "added", "untracked")
    cases = [c for c in load_cases(sources=["git_status"]) if c.id in {f"git_status/porcelain_v2_{k}" for k in kinds}]
    assert len(cases) == len(kinds)
    for c in cases:
        text = _in_view("git status --porcelain=v2 --branch --ignored", c.content, c.question)
        assert all(f.text in text for f in c.facts), c.id
