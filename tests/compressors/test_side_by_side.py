"""Side-by-side diffs (``diff -y``): the lines the gutter marks are the difference, and they
stay. Checked on real ``diff -y`` output of files the test writes and edits, at several
widths and with tabs or spaces."""

from __future__ import annotations

import shutil
import subprocess

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from headroom.compressors.side_by_side import gutter_lines

from .tool_rounds import tool_round

pytestmark = pytest.mark.skipif(shutil.which("diff") is None, reason="needs diff")


def _sdiff(tmp_path, old: list[str], new: list[str], width: int, expand: bool) -> str:
    (tmp_path / "a.conf").write_text("\n".join(old) + "\n")
    (tmp_path / "b.conf").write_text("\n".join(new) + "\n")
    cmd = ["diff", "-y", "-W", str(width), *(["-t"] if expand else []), "a.conf", "b.conf"]
    return subprocess.run(cmd, cwd=tmp_path, check=False, capture_output=True, text=True).stdout


@settings(max_examples=25, deadline=None)
@given(n=st.integers(20, 120), width=st.sampled_from([80, 100, 130, 160]), expand=st.booleans(),
       edits=st.lists(st.tuples(st.sampled_from(["drop", "add", "change"]), st.floats(0, 1)), min_size=1, max_size=6))
def test_the_marked_lines_are_exactly_the_edited_ones(tmp_path_factory, n, width, expand, edits):
    old = [f"key_{k:03d} = value-{k * 7}" for k in range(n)]
    new = list(old)
    for kind, where in edits:
        at = min(len(new) - 1, int(where * len(new)))
        if kind == "drop" and len(new) > 10:
            del new[at]
        elif kind == "add":
            new.insert(at, f"added_{at:03d}_{len(new)} = on")
        else:
            new[at] = new[at] + "-changed"
    text = _sdiff(tmp_path_factory.mktemp("d"), old, new, width, expand)
    lines = text.split("\n")
    marked = gutter_lines(lines)
    same = set(old) & set(new)
    for i, ln in enumerate(lines):
        words = set(ln.split())
        edited = any(w.startswith(("key_", "added_")) and not any(s.startswith(w + " ") for s in same)
                     for w in words)
        if i in marked:
            assert edited or "-changed" in ln, ln
        elif ln.strip():
            key = ln.split()[0]
            assert any(s.startswith(key + " ") for s in same) or not key.startswith(("key_", "added_")), ln


def test_no_gutter_in_other_texts():
    assert gutter_lines([f"{k:4d}  some text | with a pipe" for k in range(30)]) == set()
    assert gutter_lines(["a = 1"] * 30) == set()


def test_a_dropped_and_an_added_key_stay_in_view(tmp_path):
    old = [f"{name}_{k:02d} = {name}-{k * 13}" for k in range(25) for name in ("listen_port", "pool_size", "owner")]
    new = list(old)
    dropped = new.pop(40)
    new.insert(55, "canary_weight = 7percent")
    new[60] = new[60].replace("-", "+")
    text = _sdiff(tmp_path, old, new, 130, expand=False)
    out = tool_round("diff -y a.conf b.conf", text, "Which gateway setting was removed?")
    assert dropped in out and "canary_weight = 7percent" in out and new[60] in out
    assert len(out) < len(text)


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet=" \t\n|<>ab", max_size=80))
def test_the_first_mark_is_the_first_match_of_the_mark_pattern(text):
    import re

    from headroom.compressors.side_by_side import _first_mark

    m = re.search(r"[ \t][|<>](?:[ \t]|$)", text, re.MULTILINE)
    assert _first_mark(text) == (m.start() + 1 if m else -1)
