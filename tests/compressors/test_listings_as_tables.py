"""Listings of files are tables, whatever their dates (issue 33, tenth session).

``tar -tvvf`` prints mode, owner, size, date, time and path per member, no header: the
dates made it a log, and the log compressor folded the members into templates (the one
stale member, the one setuid helper left view). ``git ls-tree -r -l`` sets its paths off
with a tab, which made no aligned table, and one ``commit`` row among ``blob`` rows
closed three columns' gutters. Both read as tables now; a column of whole numbers all of
one width (file modes) has rare values like a column of words. A log whose rows end in a
repeating field (``zdump -v``: ``gmtoff=7200``) stays a log.
"""

from __future__ import annotations

import io
import random
import shutil
import subprocess
import tarfile
import time

import pytest

from headroom.compressors.detect import ContentType, detect_content_type
from headroom.query.file_kinds import suffixes_asked

from .tool_rounds import tool_round


def _tarball(tmp_path, rng: random.Random):
    """A tarball of ~150 members; one stale (dated 2019) and one setuid, in the middle."""
    path = tmp_path / "pkg.tar"
    now = time.time()
    names = [f"pkg-1.0/src/mod{k:03d}/{w}.py" for k in range(50) for w in ("core", "util", "views")]
    names[100:100] = [f"pkg-1.0/locales/{lang}/messages.po" for lang in ("de", "fr", "nl", "pl", "sv")]
    names.insert(60, "pkg-1.0/data/rates.bin")  # the biggest file, of no kind asked
    stale, setuid = names[70], names[88]
    with tarfile.open(path, "w") as tar:
        for name in names:
            size = 90_000 if name.endswith(".bin") else rng.randrange(100, 7000)
            data = bytes(rng.randrange(256) for _ in range(size))
            info = tarfile.TarInfo(name)
            info.size = len(data)
            info.mtime = now - rng.randrange(0, 86400 * 20) if name != stale else 1560000000
            info.mode = 0o4755 if name == setuid else 0o644
            info.uname = info.gname = "root"
            tar.addfile(info, io.BytesIO(data))
    return path, stale, setuid


@pytest.mark.skipif(shutil.which("tar") is None, reason="tar not installed")
@pytest.mark.parametrize("seed", range(2))
def test_tar_listing_reads_as_a_table_and_keeps_the_odd_members(tmp_path, seed):
    path, stale, setuid = _tarball(tmp_path, random.Random(seed))
    text = subprocess.run(["tar", "-tvvf", str(path)], capture_output=True, text=True, check=True).stdout
    assert detect_content_type(text) == ContentType.TABLE
    assert stale in tool_round(f"tar -tvvf {path}", text, "Is there a stale file in this archive? Which one?")
    assert setuid in tool_round(f"tar -tvvf {path}", text, "Does anything in here run with elevated privileges?")


@pytest.mark.skipif(shutil.which("tar") is None, reason="tar not installed")
def test_the_largest_file_of_the_kind_asked_stays(tmp_path):
    path, _, _ = _tarball(tmp_path, random.Random(5))
    text = subprocess.run(["tar", "-tvvf", str(path)], capture_output=True, text=True, check=True).stdout
    with tarfile.open(path) as tar:  # the facts from the archive itself, not from tar's text
        members = tar.getmembers()
    biggest_po = max((m for m in members if m.name.endswith(".po")), key=lambda m: m.size).name
    biggest_py = max((m for m in members if m.name.endswith(".py")), key=lambda m: m.size).name
    assert biggest_po in tool_round(f"tar -tvvf {path}", text, "Which translation file is the largest?")
    assert biggest_py in tool_round(f"tar -tvvf {path}", text, "Which Python module in here is the biggest?")


def test_kinds_of_file_named_in_words():
    assert ".py" in suffixes_asked("Which Python modules are the biggest?")
    assert ".po" in suffixes_asked("the largest translation file")
    assert ".md" in suffixes_asked("Which markdown page is the longest?")
    assert suffixes_asked("which key is set?") == () and suffixes_asked("what does option c do?") == ()
    assert suffixes_asked("which file is the largest?") == ()


@pytest.mark.skipif(shutil.which("git") is None, reason="git not installed")
def test_git_ls_tree_reads_as_a_table_with_its_rare_modes(tmp_path):
    rng = random.Random(3)
    repo = tmp_path / "repo"
    repo.mkdir()
    run = lambda *a: subprocess.run(["git", "-C", str(repo), *a], capture_output=True, text=True, check=True)
    run("init", "-q")
    for k in range(120):
        f = repo / "docs" / f"sec{k // 10}" / f"page{k}.md"
        f.parent.mkdir(parents=True, exist_ok=True)
        f.write_text("x" * rng.randrange(100, 6000))
    script = repo / "docs" / "sec5" / "check.sh"
    script.write_text("#!/bin/sh\nexit 0\n")
    script.chmod(0o755)
    (repo / "docs" / "sec7" / "latest").symlink_to("page70.md")
    run("add", "-A")
    run("-c", "user.name=t", "-c", "user.email=t@e", "commit", "-qm", "docs")
    text = run("ls-tree", "-r", "-l", "HEAD").stdout
    assert detect_content_type(text) == ContentType.TABLE
    got = tool_round("git ls-tree -r -l HEAD", text, "Is any file committed with the executable bit? Which?")
    assert "docs/sec5/check.sh" in got
    assert "docs/sec7/latest" in tool_round("git ls-tree -r -l HEAD", text, "Which path is a symlink?")


@pytest.mark.skipif(shutil.which("zdump") is None, reason="zdump not installed")
def test_a_listing_of_times_ending_in_a_repeating_field_stays_a_log():
    text = subprocess.run(["zdump", "-v", "-c", "1990,2030", "Europe/Berlin"], capture_output=True, text=True, check=False).stdout
    if len(text.splitlines()) < 30:
        pytest.skip("no time zone data here")
    assert detect_content_type(text) != ContentType.TABLE
