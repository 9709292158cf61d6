"""Lines of ``key=value`` numbers sharing their keys are a table without a header: a
question asking for an extreme keeps the line holding it, whatever the keys are called."""

from __future__ import annotations

import glob
import random
import shutil
import subprocess

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from headroom.compressors.base import CompressInput
from headroom.compressors.kv_extremes import extreme_lines
from headroom.compressors.text import TextCrusher
from headroom.config import HeadroomConfig
from headroom.query.anchors import extract_anchors
from headroom.tokens import counter_for

KEY = st.text(alphabet="abcdefghijklmnopqrstuvwxyz_", min_size=2, max_size=10).filter(lambda k: k[0] != "_")


@settings(max_examples=50, deadline=None)
@given(keys=st.lists(KEY, min_size=2, max_size=5, unique=True), n=st.integers(5, 40), seed=st.integers(0, 10_000))
def test_the_line_of_each_keys_maximum_is_found(keys, n, seed):
    rng = random.Random(seed)
    rows = [{k: rng.randint(0, 10**6) for k in keys} for _ in range(n)]
    lines = [f"stat_{i}:" + ",".join(f"{k}={r[k]}" for k in keys) for i, r in enumerate(rows)]
    got = extreme_lines(lines, "Which one has the highest count?")
    want = set()
    for k in keys:
        col = [r[k] for r in rows]
        if min(col) != max(col):
            want.add(col.index(max(col)))
    assert got == want
    assert extreme_lines(lines, "What does the first one say?") == set()  # no extreme asked


def test_constant_keys_and_short_groups_name_nothing():
    lines = [f"row{i}:calls={i + 1},failed=0" for i in range(4)]
    assert extreme_lines(lines, "which has the most calls?") == set()  # four lines are no table
    lines += ["row4:calls=2,failed=0"]
    assert extreme_lines(lines, "which has the most calls?") == {3}  # failed=0 everywhere names none


def stats_report() -> tuple[str, int]:
    rng = random.Random(5)
    prose = ("The service keeps counters for every command it has run since it started. "
             "Each line below gives the calls, the total microseconds and the mean per call. ") * 3
    rows = []
    for i in range(60):
        calls = rng.randint(10, 500)
        usec = calls * rng.randint(1, 80)
        rows.append((f"cmd_{chr(97 + i % 26)}{i}", calls, usec))
    hot = max(range(60), key=lambda i: rows[i][2])
    lines = [f"{name}:calls={c},usec={u},usec_per_call={u / c:.2f}" for name, c, u in rows]
    return prose + "\n\n" + "\n".join(lines) + "\n\n" + prose, hot


def test_text_crusher_keeps_the_line_with_the_most_time():
    text, hot = stats_report()
    q = "Where did the service spend most of its time?"
    out = TextCrusher().compress(CompressInput(text=text, config=HeadroomConfig(), counter=counter_for("gpt-4o"),
                                               query=q, anchors=extract_anchors(q)))
    assert out is not None and len(out.text) < len(text)
    hot_line = text.split("\n\n")[1].split("\n")[hot]
    assert hot_line in out.text.split("\n")


# -- whitespace-separated fields (nm -S) ------------------------------------------------------

@settings(max_examples=40, deadline=None)
@given(n=st.integers(12, 80), seed=st.integers(0, 10_000), width=st.sampled_from([8, 16]))
def test_a_fixed_width_hex_column_has_its_extremes(n, seed, width):
    rng = random.Random(seed)
    sizes = rng.sample(range(1, 16 ** 5), n)
    names = [f"sym_{rng.getrandbits(24):06x}" for _ in range(n)]
    lines = [f"{rng.getrandbits(4 * width - 1):0{width}x} {s:0{width}x} {rng.choice('tTdDbB')} {nm}"
             for s, nm in zip(sizes, names)]
    got = extreme_lines(lines, "Which symbol is the largest?")
    assert sizes.index(max(sizes)) in got
    assert sizes.index(min(sizes)) in extreme_lines(lines, "Which symbol is the smallest?")
    assert extreme_lines(lines, "Which symbols are data?") == set()  # no extreme asked


def test_real_nm_sizes_keep_the_largest_symbol():
    libs = sorted(glob.glob("/usr/lib/x86_64-linux-gnu/libz.so.*") + glob.glob("/usr/lib/*/libz.so.*"))
    if shutil.which("nm") is None or not libs:
        pytest.skip("needs nm and libz")
    out = subprocess.run(["nm", "-D", "-S", "--defined-only", libs[0]], capture_output=True, text=True).stdout
    lines = out.splitlines()
    sized = [(int(p[1], 16), i) for i, ln in enumerate(lines) if len(p := ln.split()) == 4]
    if len(sized) < 12:
        pytest.skip("too few sized symbols")
    assert max(sized)[1] in extreme_lines(lines, "Which exported function is the largest?")
