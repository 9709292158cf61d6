"""Records that open on the same field without a blank line between them, several fields
on a line, times as a column (issue 33, eighth session).

``stat`` prints each file as eight lines, "File:" opening each, no blank line between
files, and several "Name: value" fields on some lines ("Size: 2682  Blocks: 8  IO Block:
4096"). Its times made it read as a log, whose templates folded the files apart: the one
setuid file, the one with two links, the largest, left view. Such records are now a table
on its side (tables/stanzas.py): one row per file, one column per field, a repeated name
numbered ("Access (2)"), and a column of date-times or of Unix times ranks by time, both
ends kept when an extreme is asked ("modified longest ago" says a maximum, asks a minimum).
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess

import pytest

from headroom.compressors.detect import ContentType, detect
from headroom.compressors.tables.stanzas import Stanzas, infer, parse

from .tool_rounds import tool_round

pytestmark = pytest.mark.skipif(shutil.which("stat") is None, reason="stat is not installed")


def _spool(tmp_path, rng: random.Random) -> dict[str, str]:
    """40 files of varied sizes and times, and the few odd ones, by what makes them odd."""
    names = sorted({f"job-{rng.randrange(10**4):04d}.dat" for _ in range(45)})[:40]
    for k, n in enumerate(names):
        p = tmp_path / n
        p.write_bytes(b"x" * rng.randrange(100, 6000))
        t = 1_790_000_000 + rng.randrange(0, 900_000)
        os.utime(p, (t, t))
    odd = {"setuid": names[7], "largest": names[13], "oldest": names[29]}
    os.chmod(tmp_path / odd["setuid"], 0o4755)
    (tmp_path / odd["largest"]).write_bytes(b"y" * 2_400_000)
    os.utime(tmp_path / odd["oldest"], (1_700_000_000, 1_700_000_000))
    return odd


def test_stat_records_are_a_table_that_keeps_the_odd_file_out(tmp_path):
    rng = random.Random(12)
    odd = _spool(tmp_path, rng)
    files = sorted(p.name for p in tmp_path.iterdir())
    out = subprocess.run(["stat", *files], cwd=tmp_path, capture_output=True, text=True, check=True,
                         env={**os.environ, "LC_ALL": "C", "TZ": "UTC"}).stdout
    lines = out.split("\n")
    layout = infer(lines)
    assert isinstance(layout, Stanzas)
    records = parse(lines, layout)
    assert records is not None and len(records.rows) == len(files)
    assert "Access (2)" in records.names and "Blocks" in records.names  # a repeated name; a field mid-line
    assert detect(out).type is ContentType.TABLE
    for question, key in (("Is anything here setuid? Which file?", "setuid"),
                          ("What is the biggest file here?", "largest"),
                          ("Which file was modified longest ago?", "oldest")):
        got = tool_round("stat job-*", out, question)
        assert got != out
        assert f"File: {odd[key]}" in got, question


def test_stanzas_with_blank_lines_still_parse_as_before():
    text = "\n\n".join(f"Package: p{i}\nVersion: 1.{i}\nStatus: install ok installed" for i in range(12)) + "\n"
    lines = text.split("\n")
    layout = infer(lines)
    assert layout is not None
    records = parse(lines, layout)
    assert records is not None and records.names == ["Package", "Version", "Status"] and len(records.rows) == 12


@pytest.mark.skipif(not os.path.exists("/proc/self/status"), reason="no /proc")
def test_long_records_cut_by_the_sample_still_count():
    """/proc/<pid>/status has ~60 fields a process: the 200-line sample holds three whole
    records and part of a fourth, which counts."""
    procs = [subprocess.Popen(["sleep", "30"]) for _ in range(5)]
    try:
        text = "".join(open(f"/proc/{p.pid}/status").read() for p in procs)
    finally:
        for p in procs:
            p.kill()
            p.wait()
    lines = text.split("\n")
    per_record = text.count("\n") // len(procs)
    assert 50 <= per_record <= 80  # the shape this test is about
    layout = infer(lines)
    assert layout is not None and layout.opener == "Name"
    records = parse(lines, layout)
    assert records is not None and len(records.rows) == len(procs)


@pytest.mark.skipif(not os.path.exists("/proc/self/status") or shutil.which("head") is None, reason="no /proc or head")
def test_records_under_a_title_line_each():
    """head over several files puts "==> file <==" over each: a title line, kept with its
    record, not a line that ends the records."""
    procs = [subprocess.Popen(["sleep", "30"]) for _ in range(5)]
    try:
        out = subprocess.run(["head", "-n", "25", *(f"/proc/{p.pid}/status" for p in procs)],
                             capture_output=True, text=True, check=True).stdout
    finally:
        for p in procs:
            p.kill()
            p.wait()
    lines = out.split("\n")
    layout = infer(lines)
    assert layout is not None and layout.titled and layout.opener == "Name"
    records = parse(lines, layout)
    assert records is not None and len(records.rows) == len(procs)
    for (a, _), p in zip(records.spans, procs, strict=True):
        assert lines[a] == f"==> /proc/{p.pid}/status <=="


def test_line_numbers_under_a_path_are_no_titled_records():
    """ripgrep's heading mode: a path, then "N:" hit lines. A number is no field name."""
    blocks = []
    for f in range(6):
        blocks.append(f"src/mod{f}.js\n" + "\n".join(f"{10 * k + 3}:    const depth = node.depth + {k}" for k in range(5)))
    text = "\n\n".join(blocks) + "\n"
    assert infer(text.split("\n")) is None
