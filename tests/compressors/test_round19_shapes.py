"""Round 19's misses, read by class (issue 33, eighteenth session), on outputs of real tools
over inputs this test makes (other names, sizes and wordings than the corpus), or on shapes
written here with other words; the facts are the test's own record of what it made.

- A search hit's line number is part of its name: "what overflowed at prog.c:405" names
  the hit on line 405 of prog.c (the path alone is on every hit).
- Among hits of a few common shapes, a hit of a rare shape stays (a sanitizer's one
  negation among a hundred and fifty overflows, all ``path:line:col: runtime error: …``).
- A row over a run of rows drawn as its branches (``├ src/…``) titles them: a kept branch
  brings the row that says whose it is.
- A number in parentheses ranks lines as a bare one does (radon's ``- B (7)``), and a number
  the question writes in digits names the lines holding it in such a column.
"""

from __future__ import annotations

import random
import shutil
import subprocess

import pytest

from headroom.compressors.base import CompressInput
from headroom.compressors.logs import LogCompressor
from headroom.config import HeadroomConfig
from headroom.query.anchors import extract_anchors
from headroom.query.said_numbers import written_numbers
from headroom.tokens import counter_for

from .tool_rounds import tool_round


def _sanitizer_report(tmp_path) -> tuple[str, dict[int, str], int]:
    """A C program of 150 functions that each overflow an int, and one that negates INT_MIN,
    built with -fsanitize=undefined and run: its report, each overflow's operands by line,
    and the negation's line."""
    rng = random.Random(19)
    src = ["#include <limits.h>", "volatile int sink;"]
    operands: dict[int, str] = {}
    for k in range(150):
        op = rng.choice("+-*")
        if op == "*":
            a, b = rng.randrange(50_000, 90_000), rng.randrange(50_000, 90_000)
        elif op == "+":
            a, b = rng.randrange(1_000, 20_000), 2_147_483_647 - rng.randrange(0, 900)
        else:
            a, b = -rng.randrange(1_000, 20_000), 2_147_483_647 - rng.randrange(0, 900)
        src.append(f"int step_{k}(int x, int y) {{ return x {op} y; }}")
        operands[len(src)] = f"{a} {op} {b}"
        src.append(f"void call_{k}(void) {{ sink = step_{k}({a}, {b}); }}")
    src.append("int flip(int x) { return -x; }")
    negation = len(src)
    src.append("int main(void) {")
    src += [f"  call_{k}();" for k in range(150)]
    src += ["  sink = flip(INT_MIN);", "  return 0;", "}"]
    (tmp_path / "prog.c").write_text("\n".join(src) + "\n")
    subprocess.run(["gcc", "-O0", "-fsanitize=undefined", "-o", "prog", "prog.c"], cwd=tmp_path, check=True)
    run = subprocess.run(["./prog"], cwd=tmp_path, capture_output=True, text=True, check=False)  # UBSan reports, then exits 0
    return run.stderr, operands, negation


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
def test_a_sanitizer_report_keeps_the_hit_a_line_names_and_the_one_odd_error(tmp_path):
    text, operands, negation = _sanitizer_report(tmp_path)
    if "runtime error" not in text:
        pytest.skip("this gcc has no working UBSan runtime")
    assert text.count("signed integer overflow") == 150
    rng = random.Random(5)
    for line in rng.sample(sorted(operands), 4):
        for question in (f"What operands overflowed at prog.c:{line}?",
                         f"Which arithmetic overflowed on line {line} of prog.c?"):
            out = tool_round("./prog", text, question)
            assert len(out) < 0.4 * len(text)
            assert operands[line] in out, question
    out = tool_round("./prog", text, "Which spot negates the most negative int? (file and line)")
    assert f"prog.c:{negation}:" in out


def _bundles() -> tuple[str, dict[str, str]]:
    """A storage report in the shape of a bundler's analysis, with other words: per volume a
    row (its size and share) over its files drawn as branches, largest first; which volume
    each file is in."""
    rng = random.Random(23)
    volumes = ["vol/amber", "vol/basalt", "vol/cedar", "vol/dune", "vol/ember", "vol/flint"]
    words = ["atlas", "beacon", "cinder", "delta", "ferro", "glyph", "hollow", "ingot", "jasper", "kelp"]
    names = [f"files/{a}-{b}.dat" for a in words for b in words if a != b]
    rng.shuffle(names)
    where: dict[str, str] = {}
    out = []
    for v, vol in enumerate(volumes):
        files = names[v * 14:(v + 1) * 14]
        sizes = sorted((rng.randrange(200, 990) for _ in files), reverse=True)
        total = sum(sizes)
        out.append("")
        out.append(f"  {vol:<28}{total / 1000:>6.1f}kb  100.0%")
        for k, (f, size) in enumerate(zip(files, sizes)):
            glyph = "└" if k == len(files) - 1 else "├"
            out.append(f"   {glyph} {f:<27}{size:>5}b  {100 * size / total:>5.1f}%")
            where[f] = vol
    return "\n".join(out) + "\n", where


def test_a_kept_branch_row_brings_the_row_it_hangs_from():
    text, where = _bundles()
    rng = random.Random(3)
    for f in rng.sample(sorted(where), 6):
        for question in (f"Which volume holds {f}?", f"{f} ends up on which volume?"):
            out = tool_round("storage-report --analyze", text, question)
            assert len(out) < 0.7 * len(text)
            assert f in out and where[f] in out, question


def _scores() -> tuple[str, dict[int, str], str]:
    """Per module, one line a function: ``F line:col name - grade (score)`` (a complexity
    report's shape, other names): most score 1-5 (A), a few dozen 6-10 (B) and 11-19 (C),
    where 7 and 9 are held once each, and one function scores highest."""
    rng = random.Random(29)
    verbs = ["mend", "weigh", "stow", "tally", "sort", "bind", "trim", "vent", "wick", "yoke", "haul", "lash"]
    nouns = ["crate", "bale", "drum", "reel", "sack", "tote", "skid", "coil", "cask", "hod", "tun", "keg"]
    funcs = [f"{v}_{n}" for v in verbs for n in nouns]
    rng.shuffle(funcs)
    score_of = {fn: rng.choice([1, 2, 3, 4, 5]) for fn in funcs}
    for fn in funcs[20:50]:
        score_of[fn] = rng.choice([6, 8, 10])
    for fn in funcs[50:62]:
        score_of[fn] = rng.randrange(11, 19)
    score_of[funcs[70]], score_of[funcs[90]], score_of[funcs[110]] = 7, 9, 23
    lines = []
    for m in range(12):
        lines.append(f"depot/mod_{m}.py")
        for k, fn in enumerate(funcs[m * 12:(m + 1) * 12]):
            s = score_of[fn]
            grade = "A" if s <= 5 else "B" if s <= 10 else "C" if s <= 20 else "D"
            lines.append(f"    F {4 + 9 * k}:0 {fn} - {grade} ({s})")
    return "\n".join(lines) + "\n", {7: funcs[70], 9: funcs[90]}, funcs[110]


def _log_view(text: str, question: str) -> str:
    """The log compressor's output for ``text`` and ``question`` (called directly: a report
    this small and even reads as a table of fields to the router, the real one as a log)."""
    inp = CompressInput(text=text, config=HeadroomConfig(), counter=counter_for("gpt-4o"), query=question,
                        anchors=extract_anchors(question))
    got = LogCompressor().compress(inp)
    assert got is not None and len(got.text) < 0.7 * len(text)
    return got.text


def test_scores_in_parentheses_rank_and_a_written_number_names_its_line():
    assert written_numbers("Which function has a complexity of 9?") == [9.0]
    assert written_numbers("What operands overflowed at prog.c:405?") == []
    assert written_numbers("an 8-element array, version 1.2.3, at 10:45") == []
    text, by_score, highest = _scores()
    for question in ("Which function has the highest complexity?", "Which function scores highest?"):
        assert highest in _log_view(text, question), question
    for score in (7, 9):
        for question in (f"Which function has a complexity of {score}?", f"Name the function scored at {score}."):
            assert by_score[score] in _log_view(text, question), question
