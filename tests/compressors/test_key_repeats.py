"""Rows a key sets apart, versions and listing dates (issue 33, eleventh session).

Round 9's misses, read by class, on outputs of real tools over trees this test makes:

- two files of one checksum among hundreds of unique ones, and the empty file (the row
  whose digest is the digest of zero bytes);
- two paths of one inode in ``find -ls`` (hard links), and the newest file by the date
  inside a cell the aligned layout did not split;
- the lowest and highest versions of a listing of versions.

The facts are the test's own record of what it made.
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import time

import pytest

from headroom.compressors.tables.repeats import empty_content_rows, repeated_key_rows

from .tool_rounds import tool_round


def _tree(root, rng: random.Random) -> dict:
    """A few hundred files of distinct content, one copied, one empty, one hard link and
    one touched last."""
    files = []
    for d in ("src", "docs/guide", "assets/img", "vendor/lib", "tests/unit"):
        (root / d).mkdir(parents=True)
        for k in range(60):
            p = root / d / f"{d.split('/')[-1]}-{k:03d}.dat"
            p.write_bytes(rng.randbytes(rng.randint(20, 400)))
            files.append(p)
    base = time.time() - 30 * 86400
    for k, p in enumerate(files):
        os.utime(p, (base + k * 600, base + k * 600))
    copy_of, copy = rng.choice(files[10:100]), rng.choice(files[150:250])
    copy.write_bytes(copy_of.read_bytes())
    os.utime(copy, (base + 7, base + 7))
    empty = rng.choice(files[100:150])
    empty.write_bytes(b"")
    os.utime(empty, (base + 9, base + 9))
    linked = rng.choice(files[250:290])
    link = root / "vendor" / "lib" / "pinned.dat"
    os.link(linked, link)
    newest = rng.choice(files[120:200])
    os.utime(newest, (base + 29 * 86400, base + 29 * 86400))
    for d in [p for p in root.rglob("*") if p.is_dir()] + [root]:  # entries added long ago
        os.utime(d, (base, base))
    rel = lambda p: "./" + str(p.relative_to(root))
    return {"copy_of": rel(copy_of), "copy": rel(copy), "empty": rel(empty), "linked": rel(linked),
            "link": rel(link), "newest": rel(newest)}


@pytest.mark.skipif(shutil.which("md5sum") is None, reason="needs coreutils")
@pytest.mark.parametrize("tool", ["md5sum", "sha256sum"])
@pytest.mark.parametrize("seed", [2, 9])
def test_checksum_listings_keep_duplicates_and_the_empty_file(tmp_path, tool, seed):
    facts = _tree(tmp_path, random.Random(seed))
    paths = sorted("./" + str(p.relative_to(tmp_path)) for p in tmp_path.rglob("*") if p.is_file())
    text = subprocess.run([tool, *paths], cwd=tmp_path, check=True, capture_output=True, text=True).stdout
    out = tool_round(f"find . -type f | xargs {tool}", text, "Do any two files here have the same content?")
    assert facts["copy"] in out and facts["copy_of"] in out and len(out) < len(text) / 4
    out = tool_round(f"find . -type f | xargs {tool}", text, "Is one of these files empty?")
    assert facts["empty"] in out


@pytest.mark.skipif(shutil.which("find") is None, reason="needs findutils")
def test_find_ls_keeps_hard_links_and_the_newest_file(tmp_path):
    facts = _tree(tmp_path, random.Random(4))
    text = subprocess.run(["find", ".", "-ls"], cwd=tmp_path, check=True, capture_output=True, text=True).stdout
    out = tool_round("find . -ls", text, "Are two of these paths the same file on disk?")
    assert facts["linked"] in out and facts["link"] in out
    out = tool_round("find . -ls", text, "Which file was modified latest?")
    assert facts["newest"] in out


def test_a_listing_of_versions_keeps_its_lowest_and_highest():
    rng = random.Random(6)
    names = [f"lib{rng.choice(['core', 'net', 'io', 'db', 'ui'])}{k:02d}" for k in range(80)]
    versions = [f"{rng.randint(1, 4)}.{rng.randint(0, 19)}.{rng.randint(0, 12)}" for _ in names]
    versions[31], versions[52] = "0.9.4", "7.0.1"
    text = "\n".join(f"{n} {v}" for n, v in zip(names, versions)) + "\n"
    out = tool_round("pkg-config --list-package-versions", text, "Is anything still before 1.0?")
    assert names[31] in out
    out = tool_round("pkg-config --list-package-versions", text, "Which package is the furthest along?")
    assert names[52] in out


def test_repeated_keys_need_a_column_of_distinct_identifiers():
    ids = tuple(f"{k:08x}" for k in range(100))
    dup = ids[:40] + (ids[3],) + ids[41:]
    assert repeated_key_rows([dup], 100) == [3, 40]
    assert repeated_key_rows([ids], 100) == []  # nothing repeats
    states = tuple(["running"] * 60 + ["stopped"] * 40)
    assert repeated_key_rows([states], 100) == []  # a column of few values is no key
    assert empty_content_rows([("d41d8cd98f00b204e9800998ecf8427e", "0" * 32)]) == [0]
