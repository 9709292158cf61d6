"""A run of numbers one blank apart at the end of aligned rows is columns (issue 33, twelfth
session).

``git verify-pack -v`` prints ``sha type size size-in-pack offset``, with a delta's depth
and base after; the type is padded, the numbers are not, so the gutters cut the row in
three and the numbers stayed one text cell that no extreme could rank. Real git over a
repository this test makes; the facts come from ``git hash-object`` of the blob the test
wrote.
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess

import pytest

from headroom.compressors.tables.aligned import split_number_runs

from .tool_rounds import tool_round


def _git(cwd, *args: str) -> str:
    env = {**os.environ, "GIT_AUTHOR_NAME": "t", "GIT_AUTHOR_EMAIL": "t@x", "GIT_COMMITTER_NAME": "t",
           "GIT_COMMITTER_EMAIL": "t@x", "GIT_CONFIG_GLOBAL": os.devnull, "GIT_CONFIG_SYSTEM": os.devnull}
    return subprocess.run(["git", *args], cwd=cwd, check=True, capture_output=True, text=True, env=env).stdout


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_verify_pack_keeps_the_object_taking_the_most_space(tmp_path):
    rng = random.Random(7)
    _git(tmp_path, "init", "-q")
    heavy = tiny = None
    for k in range(90):
        name = tmp_path / f"notes_{k % 9}.txt"
        name.write_text("".join(f"line {i} of revision {k}\n" for i in range(rng.randint(20, 120))))
        if k == 47:
            (tmp_path / "asset.bin").write_bytes(rng.randbytes(300_000))  # incompressible
            heavy = _git(tmp_path, "hash-object", "asset.bin").strip()
        if k == 30:
            (tmp_path / "flag").write_text("y")  # the smallest object: two bytes
            tiny = _git(tmp_path, "hash-object", "flag").strip()
        _git(tmp_path, "add", "-A")
        _git(tmp_path, "commit", "-q", "-m", f"revision {k}")
    _git(tmp_path, "gc", "-q")
    pack = next((tmp_path / ".git" / "objects" / "pack").glob("*.idx"))
    text = _git(tmp_path, "verify-pack", "-v", str(pack))
    assert heavy in text
    out = tool_round("git verify-pack -v .git/objects/pack/*.idx", text, "Which object is the biggest one in the pack?")
    assert heavy in out
    out = tool_round("git verify-pack -v .git/objects/pack/*.idx", text, "Which object is the smallest in the pack?")
    assert tiny in out
    assert len(out) < len(text) / 2


def test_a_run_of_numbers_is_split_and_longer_runs_get_columns_of_their_own():
    names = ["column 1", "column 2", "column 3"]
    body = [[f"{k:040x}", "blob", f"{k * 10} {k} {k * 100}"] for k in range(20)]
    body += [[f"{k:040x}", "blob", f"{k} {k} {k} 3 {'a' * 40}"] for k in range(3)]
    new_names, rows = split_number_runs(names, body)
    assert new_names[2:] == ["column 3", "column 4", "column 5", "column 6", "column 7"]
    assert rows[0][2:] == ["0", "0", "0", "", ""] and rows[-1][5] == "3"
    prose = [["a", "b", "some words here"] for _ in range(20)]
    assert split_number_runs(names, prose) == (names, prose)  # words, not numbers: unchanged
