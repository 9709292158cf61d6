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

_LEAKY = r"""
#include <stdlib.h>
#include <string.h>
static void *keep;
char *load_%(a)s(void) { char *p = malloc(%(na)d); memset(p, 1, %(na)d); return p; }
char *load_%(b)s(void) { char *p = malloc(%(nb)d); memset(p, 2, %(nb)d); return p; }
char *load_%(c)s(void) { char *p = malloc(%(nc)d); memset(p, 3, %(nc)d); return p; }
int main(void) {
    load_%(a)s(); load_%(b)s(); load_%(c)s();
    for (int i = 0; i < 20; i++) { char *q = malloc(16 + i); q[0] = 0; if (i == 7) keep = q; }
    return 0;
}
"""


@pytest.mark.slow
def test_real_memcheck_leak_keeps_its_size_with_its_function(tmp_path):
    if shutil.which("valgrind") is None or shutil.which("gcc") is None:
        pytest.skip("needs valgrind and gcc")
    names = {"a": "tariffs", "b": "ledger", "c": "catalog", "na": 4904, "nb": 312, "nc": 77}
    (tmp_path / "leaky.c").write_text(_LEAKY % names)
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
