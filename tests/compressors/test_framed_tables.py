"""Tables drawn in a frame (``tables/framed.py``): rows between bars under a ruled header.

Read as whitespace-aligned columns before, the bars were columns of their own and the
header went unnamed. Real ``sqlite3 -box`` output of a database built here, and property
tests over the frame styles of several programs with opaque column names.
"""

from __future__ import annotations

import random
import shutil
import sqlite3
import subprocess

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from headroom.compressors.base import CompressInput
from headroom.compressors.detect import ContentType, detect
from headroom.compressors.tables.csv_compressor import TableCompressor
from headroom.compressors.tables.framed import infer
from headroom.config import HeadroomConfig
from headroom.query.anchors import extract_anchors
from headroom.tokens import counter_for

COUNTER = counter_for("gpt-4o")
NAME = st.from_regex(r"[a-z]{3,8}(_[a-z]{3,6})?", fullmatch=True)


def compress(text: str, query: str):
    inp = CompressInput(text=text, config=HeadroomConfig(), counter=COUNTER, query=query,
                        anchors=extract_anchors(query), aggressiveness=0.5, hint=detect(text).hint)
    return TableCompressor().compress(inp)


def box(names: list[str], rows: list[list[str]], style: str) -> str:
    widths = [max(len(n), *(len(r[j]) for r in rows)) for j, n in enumerate(names)]
    line = lambda cells: ("│ " if style == "box" else "| ") + (" │ " if style == "box" else " | ").join(
        c.ljust(w) for c, w in zip(cells, widths)) + (" │" if style == "box" else " |")
    if style == "box":
        rule = lambda a, m, b: a + m.join("─" * (w + 2) for w in widths) + b
        return "\n".join([rule("┌", "┬", "┐"), line(names), rule("├", "┼", "┤"), *map(line, rows),
                          rule("└", "┴", "┘")]) + "\n"
    if style == "mysql":
        rule = "+" + "+".join("-" * (w + 2) for w in widths) + "+"
        return "\n".join([rule, line(names), rule, *map(line, rows), rule, f"{len(rows)} rows in set (0.01 sec)"]) + "\n"
    rule = "|" + "|".join("-" * (w + 2) for w in widths) + "|"  # Markdown
    return "\n".join([line(names), rule, *map(line, rows)]) + "\n"


@settings(max_examples=60, deadline=None)
@given(names=st.lists(NAME, min_size=3, max_size=5, unique=True), n=st.integers(30, 120),
       style=st.sampled_from(["box", "mysql", "markdown"]), seed=st.integers(0, 10_000))
def test_framed_rows_are_kept_whole_and_the_longest_cell_of_a_named_column(names, n, style, seed):
    rng = random.Random(seed)
    rows = [[f"k{i:04d}"] + ["".join(rng.choice("abcdefgh ") for _ in range(rng.randint(3, 30))).strip() or "x"
                             for _ in names[1:]] for i in range(n)]
    text = box(names, rows, style)
    assert detect(text).type is ContentType.TABLE and infer(text.split("\n")) is not None
    asked = names[-1]
    longest = max(range(n), key=lambda i: (len(rows[i][-1]), -i))
    res = compress(text, f"Which row has the longest {asked.replace('_', ' ')}?")
    assert res is not None and res.strategy == "table_framed"
    out = res.text.split("\n")
    src = set(text.split("\n"))
    assert all(ln in src or ln == "…" or ln.startswith("# ") for ln in out)  # whole input lines only
    assert text.split("\n")[0] in out  # the header (or the top rule over it) stays
    assert any(ln.startswith(("│ " + rows[longest][0], "| " + rows[longest][0])) for ln in out)
    if style != "markdown":
        last_rule = [ln for ln in text.split("\n") if ln][-1 if style == "box" else -2]
        assert last_rule in out  # the frame closes after the kept rows


def test_text_between_bars_is_no_frame():
    prose = "| a quoted line of a poem |\nthat goes on without bars\n| and one more |\n" * 4
    assert infer(prose.split("\n")) is None
    assert infer(["| a | b |", "|---|---|", "| 1 | 2 |"]) is None  # too short to be worth it


@pytest.mark.skipif(shutil.which("sqlite3") is None, reason="needs the sqlite3 program")
def test_real_sqlite_box_output_keeps_the_asked_row(tmp_path):
    db = tmp_path / "t.db"
    rng = random.Random(3)
    con = sqlite3.connect(db)
    con.execute("create table hosts (host text, zone text, uptime_days integer)")
    hosts = [(f"node-{i:03d}", rng.choice(["eu-1", "eu-2", "us-1"]), rng.randint(1, 900)) for i in range(200)]
    con.executemany("insert into hosts values (?, ?, ?)", hosts)
    con.commit()
    con.close()
    text = subprocess.run(["sqlite3", "-box", str(db), "select * from hosts"], capture_output=True, text=True,
                          check=True).stdout
    top = max(hosts, key=lambda h: h[2])
    res = compress(text, "Which host has the highest uptime_days?")
    assert res is not None and res.strategy == "table_framed"
    assert any(top[0] in ln and str(top[2]) in ln for ln in res.text.split("\n"))
    assert "uptime_days" in res.text.split("\n")[1]
