"""Records behind a mark the program prints before every line (Valgrind's ``==29812== ``):
a line the question names brings its record, as in the same text without the mark (issue 33,
seventh session). A leak's size is on its record's head line, the allocating function on a
frame below it; with the mark on every line no line was blank, so no record was found.
"""

from __future__ import annotations

import random
import shutil
import subprocess

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from headroom.compressors.text_records import record_mates, without_line_prefix

from .tool_rounds import tool_round

WORD = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=4, max_size=9)

_SITES = 24  # leaking functions besides the asked ones: a report long enough to compress


def _leaky_source(sizes: dict[str, int]) -> str:
    """A C program leaking one buffer from each named loader and one from each of
    ``_SITES`` other functions (each its own loss record)."""
    out = ["#include <stdlib.h>", "#include <string.h>"]
    calls = []
    for name, size in sizes.items():
        out.append(f"char *load_{name}(void) {{ char *p = malloc({size}); memset(p, 1, {size}); return p; }}")
        calls.append(f"load_{name}();")
    for k in range(_SITES):
        out.append(f"char *site_{k}(void) {{ char *p = malloc({16 + k}); p[0] = 0; return p; }}")
        calls.append(f"site_{k}();")
    out.append("int main(void) { " + " ".join(calls) + " return 0; }")
    return "\n".join(out) + "\n"


@pytest.mark.slow
def test_real_memcheck_leak_keeps_its_size_with_its_function(tmp_path):
    if shutil.which("valgrind") is None or shutil.which("gcc") is None:
        pytest.skip("needs valgrind and gcc")
    (tmp_path / "leaky.c").write_text(_leaky_source({"tariffs": 4904, "ledger": 312, "catalog": 77}))
    subprocess.run(["gcc", "-g", "-O0", "-o", str(tmp_path / "leaky"), str(tmp_path / "leaky.c")], check=True,
                   timeout=120)
    run = subprocess.run(["valgrind", "--leak-check=full", "--show-leak-kinds=all", str(tmp_path / "leaky")],
                         capture_output=True, text=True, timeout=300, check=False)
    report = run.stderr
    lines = report.splitlines()
    frame = next((k for k, ln in enumerate(lines) if "load_tariffs (" in ln), None)
    if frame is None:
        pytest.skip("valgrind printed no leak record here")
    # The record's head, read off by a plain walk: the nearest line above saying "bytes in".
    head = next(lines[k] for k in range(frame, -1, -1) if " bytes in " in lines[k])
    kept = tool_round("valgrind --leak-check=full ./leaky", report,
                      "How many bytes does the buffer allocated by load_tariffs leak?")
    assert head in kept.splitlines()


@settings(max_examples=50, deadline=None)
@given(pid=st.integers(100, 99999), words=st.lists(WORD, min_size=8, max_size=16, unique=True),
       depth=st.integers(2, 5), seed=st.integers(0, 10_000))
def test_a_named_line_behind_a_mark_brings_its_record(pid, words, depth, seed):
    rng = random.Random(seed)
    mark = f"=={pid}=="
    raw = [f"{mark} {words[0]} starts", mark]
    spans = []
    for w in words[1:]:
        start = len(raw)
        raw.append(f"{mark} {rng.randint(1, 9999)} units held by {w}")
        raw += [f"{mark}    at 0x{rng.getrandbits(32):08X}: {rng.choice(words)}_{k}" for k in range(depth)]
        spans.append((start, len(raw)))
        raw.append(mark)
    k = rng.randrange(len(spans))
    a, b = spans[k]
    named = {rng.randrange(a, b)}
    assert record_mates(raw, named) == set(range(a, b)) - named
    # Without the mark, the same records.
    assert record_mates([ln[len(mark) + 1:] for ln in raw], named) == set(range(a, b)) - named


def test_words_are_no_mark():
    lines = [f"Name {k} is here" for k in range(20)]
    assert without_line_prefix(lines) is lines
    marked = [f">> step {k}" for k in range(20)]
    assert without_line_prefix(marked) == [f"step {k}" for k in range(20)]


# -- the same record in a structured format ------------------------------------------------------

@pytest.mark.slow
def test_real_memcheck_xml_leak_keeps_its_size_with_its_function(tmp_path):
    """``--xml=yes``: an ``<error>`` among ``<error>``s is a record; the anchor names a frame's
    ``<fn>``, the size is in the record's ``<xwhat>``."""
    if shutil.which("valgrind") is None or shutil.which("gcc") is None:
        pytest.skip("needs valgrind and gcc")
    (tmp_path / "leaky.c").write_text(_leaky_source({"tariffs": 4904, "ledger": 312, "catalog": 77}))
    subprocess.run(["gcc", "-g", "-O0", "-o", str(tmp_path / "leaky"), str(tmp_path / "leaky.c")], check=True,
                   timeout=120)
    xml = tmp_path / "report.xml"
    subprocess.run(["valgrind", "--leak-check=full", "--show-leak-kinds=all", "--xml=yes", f"--xml-file={xml}",
                    str(tmp_path / "leaky")], capture_output=True, timeout=300, check=False)
    report = xml.read_text() if xml.exists() else ""
    errors = report.split("<error>")[1:]
    mine = [e for e in errors if "<fn>load_tariffs</fn>" in e]
    if len(errors) < 4 or len(mine) != 1:
        pytest.skip("valgrind wrote no such XML report here")
    size = next(ln for ln in mine[0].splitlines() if "<leakedbytes>" in ln)
    kept = tool_round("cat report.xml", report, "How many bytes does the buffer allocated by load_tariffs leak?")
    assert len(kept) < len(report)
    assert size in kept.splitlines()


@settings(max_examples=40, deadline=None)
@given(tags=st.lists(WORD, min_size=6, max_size=6, unique=True), n=st.integers(8, 30), seed=st.integers(0, 10_000))
def test_an_anchor_in_a_record_brings_the_record(tags, n, seed):
    """Whatever the elements are called: records of the same tag, each a few fields and a
    nested list; an id deep in one of them keeps that record's other fields."""
    from headroom.compressors.structured.formats import FORMATS
    from headroom.compressors.structured.select import select
    from headroom.compressors.structured.tree import build
    from headroom.query.anchors import extract_anchors

    rec, size, items, item, fn, other = tags
    rng = random.Random(seed)
    asked = rng.randrange(n // 2, n)  # past what the outline keeps anyway
    lines = ["<root>"]
    for r in range(n):
        lines += [f"  <{rec}>", f"    <{size}>{rng.randint(1, 99999)}</{size}>",
                  *[f"    <{other}>{rng.randint(1, 9)}</{other}>" for _ in range(3)], f"    <{items}>"]
        for k in range(3):
            name = f"fn_target_{r}" if (r == asked and k == 1) else f"{rng.choice(tags)}_{rng.randint(1, 9)}"
            lines += [f"      <{item}>", f"        <{fn}>{name}</{fn}>", f"        <{other}>{k}</{other}>",
                      f"      </{item}>"]
        lines += [f"    </{items}>", f"  </{rec}>"]
    lines.append("</root>")
    q = f"How large is the one holding fn_target_{asked}?"  # (the field is not named)
    fmt = FORMATS["xml"]
    keep = select(lines, build(lines, fmt), q, extract_anchors(q), 12, fmt)
    at = lines.index(f"        <{fn}>fn_target_{asked}</{fn}>")
    size_line = max(k for k in range(at) if lines[k].startswith(f"    <{size}>"))
    assert keep[at] and keep[size_line]


@settings(max_examples=40, deadline=None)
@given(words=st.lists(WORD, min_size=6, max_size=12, unique=True), rule=st.sampled_from(["---", "=====", "***"]),
       size=st.integers(2, 8), seed=st.integers(0, 10_000))
def test_a_rule_line_separates_records_as_a_blank_line_does(words, rule, size, seed):
    rng = random.Random(seed)
    raw, spans = [], []
    for w in words:
        start = len(raw)
        raw += [f"Name: {w}", *[f"Field{k}: {rng.randint(1, 999)}" for k in range(size)]]
        spans.append((start, len(raw)))
        raw.append(rule)
    raw.pop()
    a, b = spans[rng.randrange(len(spans))]
    assert record_mates(raw, {a}) == set(range(a + 1, b))
