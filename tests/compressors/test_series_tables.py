"""Tables of samples in time, read by shape (issue 33, ninth session).

``vmstat -t`` prints two header lines (groups, then short right-aligned names), repeats
them every screenful, and lets a value wider than its column push the rest of its row
right. Read as before, the repeated header closed the gutters, the group line became the
header, and "us", "cs" were never matched by a question that spells them out ("user CPU",
"context switches"). The samples of a burst left view.

Also here: a total row is no answer to "which has the most", the rows tying an extreme
are the same answer, and short column names are spelled out only when the question asks
for an extreme or the table is a series.
"""

from __future__ import annotations

import random
from datetime import datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from headroom.compressors.tables import select as S
from headroom.compressors.tables.aligned import infer
from headroom.compressors.tables.select import Table, select_rows

from .tool_rounds import tool_round

_GROUPS = ("--procs-- -----------------------memory---------------------- ---swap-- -----io---- -system-- "
           "----------cpu---------- -----timestamp-----")
_NAMES = ("   r    b         swpd         free         buff        cache   si   so    bi    bo   in   cs  us  sy  id"
          "  wa  st  gu                 UTC")


def _vmstat(rng: random.Random, rows: int, storm: range, burst: range) -> tuple[str, list[str]]:
    """Rows as vmstat prints them (format per field, no column overflow handling: a wide value
    pushes the rest right), with a context-switch storm and a user-CPU burst."""
    t0 = datetime(2026, 11, 29, 21, 23, 30)
    out, stamps = [_GROUPS, _NAMES], []
    for k in range(rows):
        if k and k % 20 == 0:
            out += [_GROUPS, _NAMES]  # the header again, every screenful
        cs = rng.randrange(250_000, 320_000) if k in storm else rng.randrange(50, 600)
        inter = rng.randrange(20_000, 60_000) if k in storm else rng.randrange(50, 700)
        us = 100 if k in burst else rng.randrange(0, 20)
        sy, idle = (30, 0) if k in storm else (rng.randrange(0, 3), max(0, 100 - us - 2))
        stamp = (t0 + timedelta(seconds=k)).strftime("%Y-%m-%d %H:%M:%S")
        stamps.append(stamp)
        out.append(f"{rng.randrange(1, 6):>4} {0:>4} {0:>12} {12783524:>12} {325144:>12} {11101252:>12} {0:>4} {0:>4} "
                   f"{rng.randrange(0, 200):>5} {rng.randrange(0, 900):>5} {inter:>4} {cs:>4} {us:>3} {sy:>3} {idle:>3} "
                   f"{0:>3} {0:>3} {0:>3} {stamp}")
    return "\n".join(out) + "\n", stamps


@pytest.mark.parametrize("seed", range(3))
def test_vmstat_reads_as_its_columns(seed):
    text, _ = _vmstat(random.Random(seed), 45, range(20, 24), range(8, 12))
    layout = infer(text.split("\n"))
    assert layout is not None
    assert layout.names[-9:] == ("cs", "us", "sy", "id", "wa", "st", "gu", "UTC")[-9:] or "cs" in layout.names
    assert layout.names[:2] == ("r", "b") and layout.names[-1] == "UTC" and "us" in layout.names


@pytest.mark.parametrize("seed", range(3))
def test_a_burst_keeps_its_samples(seed):
    rng = random.Random(seed)
    storm, burst = range(26, 29), range(9, 12)
    text, stamps = _vmstat(rng, 45, storm, burst)
    for question, rows in (("When did context switches spike?", storm),
                           ("Which samples show the burst of user CPU?", burst)):
        got = tool_round("vmstat -t 1 45", text, question)
        assert got != text
        # the stretch's inner samples (its edges may tie with the samples next to them)
        for k in list(rows)[1:]:
            assert stamps[k] in got, (question, stamps[k])


def _table(names, rows):
    return Table(names=list(names), rows=[list(r) for r in rows], costs=[40] * len(rows), texts=None, strings=True)


def test_a_total_row_is_no_answer_to_which_has_the_most():
    rng = random.Random(3)
    sizes = [rng.randrange(10, 900) for _ in range(30)]
    rows = [[f"pkg/mod{k}.py", str(v), f"{rng.randrange(0, 100)}%"] for k, v in enumerate(sizes)]
    rows.append(["TOTAL", str(sum(sizes)), "51%"])
    sel = select_rows(_table(("Name", "Stmts", "Cover"), rows), query="Which file has the most statements?",
                      anchors=None, budget=200)
    assert sizes.index(max(sizes)) in sel.kept and len(rows) - 1 in sel.kept


def test_rows_tying_an_extreme_stay_together():
    rows = [[f"f{k}", str(10 + k)] for k in range(25)]
    for k in (4, 17):
        rows[k][1] = "0"
    sel = select_rows(_table(("Name", "Cover"), rows), query="Which files were never run at all?", anchors=None,
                      budget=170)  # first and last rows, one more, and its tie on top
    assert {4, 17} <= set(sel.kept)


def test_short_names_are_spelled_out_only_for_extremes_or_series():
    rows = [[str(100 + k), f"{1000 + 37 * k}", f"worker --role r{k}"] for k in range(30)]
    table = _table(("PID", "RES", "COMMAND"), rows)
    cols = S._columns(table)
    lookup = "How much resident memory does the r7 worker use?"
    assert S._named_columns(cols, lookup.lower(), False) == []
    assert [c.name for c in S._named_columns(cols, "which worker has the most resident memory?", True)] == ["RES"]
    # a question spelling out many short names names none of them
    many = [_table(("us", "sy", "st", "so"), [["1", "2", "3", "4"]] * 25)]
    cols = S._columns(many[0])
    assert S._named_columns(cols, "usual system storms show?", True) == []


@settings(max_examples=50, deadline=None)
@given(st.lists(st.integers(0, 1000), min_size=5, max_size=40), st.booleans())
def test_runner_up_is_the_next_distinct_value(values, highest):
    table = _table(("n", "v"), [[f"r{k}", str(v)] for k, v in enumerate(values)])
    col = next(c for c in S._columns(table) if c.name == "v")
    got = S._runner_up(col, highest)
    distinct = sorted(set(values), reverse=highest)
    if len(distinct) < 2:
        assert got == []
    else:
        assert values[got[0]] == distinct[1] and got[0] == values.index(distinct[1])


def _mpstat(rng: random.Random, rows: int, burst: range) -> tuple[str, list[str]]:
    """mpstat's shape: a title line with tabs, a header whose first word is the clock time,
    one row per sample under it, an Average line."""
    t0 = datetime(2026, 11, 29, 21, 23, 55)
    clock = [(t0 + timedelta(seconds=k)).strftime("%H:%M:%S") for k in range(rows + 1)]
    out = ["Linux 6.1.0 (vm) \t11/29/26 \t_x86_64_\t(2 CPU)", "",
           f"{clock[0]}     CPU    %usr   %nice    %sys %iowait    %irq   %soft  %steal  %guest  %gnice   %idle"]
    for k in range(rows):
        usr = 100.0 if k in burst else rng.choice([0.0, 0.5, 1.0, 12.5, 30.0])
        sys_ = rng.choice([0.0, 0.5, 1.5])
        rest = "    0.00" * 7
        out.append(f"{clock[k + 1]}     all {usr:7.2f}    0.00 {sys_:7.2f}{rest} {max(0.0, 100 - usr - sys_):7.2f}")
    out.append("Average:     all   20.00    0.00    0.50" + "    0.00" * 7 + "   79.50")
    return "\n".join(out) + "\n", clock[1:]


def test_mpstat_is_a_series_table():
    text, clock = _mpstat(random.Random(5), 30, range(12, 15))
    layout = infer(text.split("\n"))
    assert layout is not None and layout.names[1:3] == ("CPU", "%usr")
    got = tool_round("mpstat 1 30", text, "Which samples show the burst of user CPU?")
    assert got != text
    for k in (12, 13, 14):
        assert clock[k] in got
