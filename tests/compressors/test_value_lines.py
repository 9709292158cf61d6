"""Values a question names, and values rare among repeats (issue 33, eighth session).

A structured text read without its path is selected by the question's keys; but what is
asked is often a value: which entry of ``file *`` is a zip archive (a ``name: description``
listing that is valid YAML), which library ``ldd`` did not find (a target over tab-indented
lines: a Makefile's grammar). A question word that few lines hold brings those lines, under
their parents, in every format; and among many one-line siblings whose values mostly
repeat, the rare values stay in view whatever is asked. When a named line would cut a
bracketed value (a comment inside a TOML array), the output is made without it, and it
still parses.
"""

from __future__ import annotations

import random
import shutil
import subprocess
import tomllib
import zipfile

import pytest
import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from headroom.compressors.structured import claim

from .tool_rounds import tool_round

NAME = st.text(alphabet="abcdef0123456789", min_size=6, max_size=6)


@pytest.mark.skipif(shutil.which("file") is None, reason="file(1) is not installed")
def test_the_entry_file_calls_a_zip_archive_is_in_view(tmp_path):
    rng = random.Random(7)
    for k in range(60):
        (tmp_path / f"upload-{rng.randrange(16**6):06x}").write_text(
            f'{{"row": {k}}}\n' if k % 2 else f"plain line {k}\n")
    zipped = f"upload-z{rng.randrange(16**5):05x}"  # listed last: no outline reaches it
    with zipfile.ZipFile(tmp_path / zipped, "w") as z:
        z.writestr("member.txt", "x")
    out = subprocess.run(["file", *sorted(p.name for p in tmp_path.iterdir())], cwd=tmp_path,
                         capture_output=True, text=True, check=True).stdout
    asked = next(ln for ln in out.splitlines() if ln.startswith(zipped))  # read off file's own output
    got = tool_round("file upload-*", out, "Which of these uploads is a ZIP?")
    assert got != out
    assert asked in got


@settings(max_examples=25, deadline=None)
@given(st.lists(NAME, min_size=80, max_size=80, unique=True), st.integers(0, 2**32))
def test_rare_values_among_repeated_ones_stay_whatever_is_asked(names, seed):
    rng = random.Random(seed)
    common = ["ASCII text", "JSON text data", "empty"]
    rare = ["PNG image data, 16 x 16, 8-bit/color RGB", "SQLite 3.x database, last written using SQLite version 3040001",
            "Unicode text, UTF-16, little-endian text"]
    values = [rng.choice(common) for _ in names[:-3]] + rare
    rng.shuffle(values)
    text = "\n".join(f"upload-{n}: {v}" for n, v in zip(names, values, strict=True)) + "\n"
    got = tool_round("file upload-*", text, "Give me an overview of these uploads.")
    assert got != text
    for n, v in zip(names, values, strict=True):
        if v in rare:
            assert f"upload-{n}: {v}" in got


def test_a_word_in_a_recipe_like_line_brings_its_line_and_target():
    rng = random.Random(3)
    libs = [f"lib{''.join(rng.choice('abcdefghij') for _ in range(6))}.so.{rng.randrange(1, 9)}" for _ in range(40)]
    blocks = []
    missing = None
    for b in range(6):
        body = []
        for lib in libs[b * 6:(b + 1) * 6 + 1]:
            body.append(f"\t{lib} => /usr/lib/x86_64-linux-gnu/{lib} (0x00007f{rng.randrange(16**8):08x})")
        if b == 4:
            missing = f"\tlibspool{b}.so.1 => not found"
            body.insert(3, missing)
        blocks.append(f"/usr/bin/tool{b}:\n" + "\n".join(body))
    text = "\n".join(blocks) + "\n"
    assert claim(text) is not None  # a target over tab-indented lines: read as a Makefile
    got = tool_round("ldd /usr/bin/tool*", text, "Which library could not be found?")
    assert got != text
    assert missing in got
    assert "/usr/bin/tool4:" in got


def test_a_named_line_inside_an_array_does_not_break_toml():
    rules = "\n".join(f'  "R{k:03d}",  # rule {k}' for k in range(40))
    text = (
        '[project]\nname = "demo"\nversion = "1.0"\n\n[tool.lint]\nselect = [\n'
        f"{rules}\n"
        '  "PLR",  # the returns checker\n'
        "]\n\n"
        "[tool.lint.limits]\n"
        + "".join(f"max-thing{k} = {k}\n" for k in range(30))
        + "max-returns = 10\n"
    )
    tomllib.loads(text)
    got = tool_round("cat pyproject.toml", text, "What is `max-returns` set to under the returns checker?")
    assert got != text
    tomllib.loads(got)  # the output parses (the marker is a comment), with or without the comment's line
    assert "max-returns = 10" in got


def test_yaml_listing_output_still_parses():
    rng = random.Random(11)
    lines = [f"upload-{rng.randrange(16**6):06x}: {rng.choice(['ASCII text', 'JSON text data'])}" for _ in range(60)]
    lines.insert(31, "upload-zzzzzz: Zip archive data, at least v2.0 to extract")
    text = "\n".join(lines) + "\n"
    got = tool_round("file upload-*", text, "Which one is a zip?")
    assert "upload-zzzzzz: Zip archive data, at least v2.0 to extract" in got
    assert got != text
    yaml.safe_load(got)  # the marker is a comment


@pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")
def test_the_one_rare_status_among_many_modified_paths_stays(tmp_path):
    """git status's long form reads as a Makefile (headings over tab-led lines): among a
    hundred "modified:" lines the one "deleted:" line is a rare key and stays."""
    run = lambda *a: subprocess.run(["git", *a], cwd=tmp_path, check=True, capture_output=True, text=True)  # noqa: E731
    run("init", "-q")
    run("config", "user.email", "t@example.invalid")
    run("config", "user.name", "t")
    rng = random.Random(2)
    names = sorted({f"mod_{rng.randrange(10**5):05d}.py" for _ in range(90)})
    for n in names:
        (tmp_path / n).write_text("a = 1\n")
    run("add", "-A")
    run("commit", "-q", "-m", "init")
    gone = names[len(names) // 2]
    for n in names:
        if n == gone:
            (tmp_path / n).unlink()
        else:
            (tmp_path / n).write_text("a = 2\n")
    out = run("-c", "color.status=never", "status").stdout
    deleted = next(ln for ln in out.splitlines() if ln.strip().startswith("deleted:"))
    got = tool_round("git status", out, "Give me a summary of the working tree.")
    assert got != out
    assert deleted in got
