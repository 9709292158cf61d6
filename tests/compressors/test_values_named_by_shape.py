"""Rows and lines a question names by the shape of their values (issue 33, sixth session).

- a ``key=value`` cell is named by its value ("SRP" names ``Kx=SRP``), and a row counts each
  named value once (the rows whose key exchange is SRP, also those whose authentication is);
- "no X" over a column whose (cut-short) name starts a word X names its empty values;
- quantities printed with their unit (``94%``, ``2.0M``) are numbers, and superlatives of
  measures ("the fullest") ask for an extreme;
- a ``key=value`` number once a line, on five lines or more, has its extremes too;
- an unindented head line and the lines indented under it are one record;
- a qualified name ("s.t.col") names the nodes holding its qualifier and its last part.

Where a real program prints the shape here (openssl, ip), its own output is used; the
expected rows are read off the output by a plain split, never by the compressor.
"""

from __future__ import annotations

import json
import random
import shutil
import subprocess

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from headroom.compressors.base import CompressInput
from headroom.compressors.kv_extremes import extreme_lines
from headroom.compressors.structured.formats import FORMATS
from headroom.compressors.structured.select import select
from headroom.compressors.structured.tree import build
from headroom.compressors.tables.csv_compressor import TableCompressor
from headroom.compressors.tables.select import Table, asked_directions, select_rows
from headroom.compressors.text_records import record_mates
from headroom.config import HeadroomConfig
from headroom.query.anchors import extract_anchors
from headroom.tokens import counter_for

from .tool_rounds import tool_round

COUNTER = counter_for("gpt-4o")
WORD = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=3, max_size=8)


def table_out(text: str, query: str) -> str:
    inp = CompressInput(text=text, config=HeadroomConfig(), counter=COUNTER, query=query,
                        anchors=extract_anchors(query), aggressiveness=0.5)
    res = TableCompressor().compress(inp)
    assert res is not None and not isinstance(res, str)
    return res.text


# -- key=value cells, named by their value ---------------------------------------------------

@pytest.mark.skipif(shutil.which("openssl") is None, reason="needs the openssl program")
@pytest.mark.parametrize("question, field, value", [
    ("Which suites use SRP for key exchange?", "Kx", "SRP"),
    ("List the suites that offer no encryption.", "Enc", "None"),
    ("Which cipher suites do no authentication of the server at all?", "Au", "None"),
])
def test_openssl_cipher_rows_named_by_a_field_value(question, field, value):
    out = subprocess.run(["openssl", "ciphers", "-v", "ALL:COMPLEMENTOFALL:@SECLEVEL=0"],
                         capture_output=True, text=True, check=True).stdout
    rows = [ln for ln in out.splitlines() if ln.strip()]
    asked = [ln.split()[0] for ln in rows if f"{field}={value}" in ln.split()]
    if not 2 <= len(asked) <= len(rows) // 8:
        pytest.skip("this openssl build lists too few or too many such suites")
    kept = tool_round("openssl ciphers -v 'ALL:COMPLEMENTOFALL:@SECLEVEL=0'", out, question)
    assert len(kept) < len(out) // 2  # compressed
    missing = [name for name in asked if name not in kept]
    assert not missing


@settings(max_examples=60, deadline=None)
@given(keys=st.lists(st.text(alphabet="ABCDEFGHIJKLMNOPQRSTUVWXYZ", min_size=2, max_size=4), min_size=2, max_size=2,
                     unique=True),
       common=st.lists(WORD, min_size=3, max_size=6, unique=True), rare=WORD, n=st.integers(60, 160),
       k=st.integers(2, 7), seed=st.integers(0, 10_000))
def test_a_value_named_whole_names_every_row_holding_it(keys, common, rare, n, k, seed):
    """Whatever the fields are called: the rows holding the asked value in one column are
    kept, also where another column holds it too (that row names it no more than once)."""
    if rare in common:
        return
    rng = random.Random(seed)
    first, second = keys
    picked = set(rng.sample(range(n), k))
    both = min(picked)
    rows = []
    for i in range(n):
        a = rare if i in picked else rng.choice(common)
        b = rare if i == both else rng.choice(common)
        rows.append([f"row{i:04d}", f"{first}={a}", f"{second}={b}"])
    table = Table(["name", "a", "b"], rows, [20.0] * n, [" ".join(r) for r in rows], strings=True)
    sel = select_rows(table, query=f"Which rows have {rare.upper()} as their {first.lower()}?",
                      anchors=extract_anchors(""), budget=60.0)
    assert picked <= set(sel.kept)


@settings(max_examples=40, deadline=None)
@given(key=st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=2, max_size=4), tail=WORD,
       n=st.integers(60, 120), k=st.integers(2, 6), seed=st.integers(0, 10_000))
def test_no_x_names_the_empty_values_of_the_column_x_starts_with(key, tail, n, k, seed):
    rng = random.Random(seed)
    picked = set(rng.sample(range(n), k))
    rows = [[f"item{i:04d}", f"{key.capitalize()}={'None' if i in picked else rng.choice(['AB', 'CD', 'EF'])}"]
            for i in range(n)]
    table = Table(["name", "x"], rows, [20.0] * n, [" ".join(r) for r in rows], strings=True)
    sel = select_rows(table, query=f"Which items come without {key}{tail}?", anchors=extract_anchors(""),
                      budget=60.0)
    assert picked <= set(sel.kept)


# -- quantities with units, superlatives --------------------------------------------------------

def test_superlatives_of_measures_ask_for_an_extreme():
    assert asked_directions("which mount is the fullest?") == (True, False)
    assert asked_directions("which queue is the emptiest?") == (False, True)
    assert asked_directions("which disk is closest to running out?") == (True, True)  # which end: unsaid
    assert asked_directions("which request failed?") == (False, False)


@settings(max_examples=60, deadline=None)
@given(n=st.integers(14, 60), seed=st.integers(0, 10_000))
def test_the_fullest_row_of_a_percent_and_size_table(n, seed):
    rng = random.Random(seed)
    units = ["K", "M", "G"]
    lines = [f"{'Filesystem':<14}{'Size':>6}{'Use%':>6} Mounted on"]
    uses = rng.sample(range(100), n)
    for i in range(n):
        size = f"{rng.randint(1, 900)}{rng.choice(units)}"
        lines.append(f"{'fs' + str(i):<14}{size:>6}{str(uses[i]) + '%':>6} /mnt/m{i:03d}")
    out = table_out("\n".join(lines) + "\n", "Which mount is the fullest?")
    assert f"/mnt/m{uses.index(max(uses)):03d}" in out


# -- key=value numbers once a line ----------------------------------------------------------

@settings(max_examples=40, deadline=None)
@given(key=st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=2, max_size=6), n=st.integers(5, 30),
       seed=st.integers(0, 10_000))
def test_one_pair_a_line_has_its_extremes_too(key, n, seed):
    rng = random.Random(seed)
    values = rng.sample(range(1, 10_000), n)
    lines = []
    for i, v in enumerate(values):
        lines += ["< HTTP/1.1 200 OK", f"< X-Id: {rng.getrandbits(40):x}", f"< Timing: app;{key}={v / 10}", "<"]
    got = extreme_lines(lines, "What was the slowest one?")
    assert got == {4 * values.index(max(values)) + 2}


# -- records made by indentation -----------------------------------------------------------

@pytest.mark.skipif(shutil.which("ip") is None, reason="needs iproute2")
def test_real_ip_addr_interface_record_holds_its_link_address():
    text = subprocess.run(["ip", "addr"], capture_output=True, text=True).stdout
    links = json.loads(subprocess.run(["ip", "-j", "addr"], capture_output=True, text=True).stdout or "[]")
    raw = text.split("\n")
    heads = [i for i, ln in enumerate(raw) if ln[:1].isdigit()]
    if len(heads) < 3:
        pytest.skip("fewer than three interfaces here")
    for link in links:
        mac = link.get("address")
        if not mac or mac == "00:00:00:00:00:00":
            continue
        head = next(i for i in heads if raw[i].split(":")[1].strip().split("@")[0] == link["ifname"])
        mates = record_mates(raw, {head})
        assert any(mac in raw[i] for i in mates), link["ifname"]


@settings(max_examples=60, deadline=None)
@given(sizes=st.lists(st.integers(1, 6), min_size=3, max_size=12), pick=st.integers(0, 100))
def test_indented_records_are_a_head_and_its_indented_lines(sizes, pick):
    raw, spans = [], []
    for r, size in enumerate(sizes):
        start = len(raw)
        raw.append(f"{r}: head{r} <FLAGS> size {size}")
        raw += [f"    detail {r}.{j}" for j in range(size)]
        spans.append((start, len(raw)))
    a, b = spans[pick % len(spans)]
    line = a + (pick % (b - a))
    assert record_mates(raw, {line}) == set(range(a, b)) - {line}
    # a name in every record names none in particular
    assert record_mates(raw, {s for s, _ in spans}) == set() or len(spans) <= 4


# -- qualified names --------------------------------------------------------------------------

@settings(max_examples=40, deadline=None)
@given(tables=st.lists(WORD, min_size=4, max_size=10, unique=True), cols=st.lists(WORD, min_size=3, max_size=6,
                                                                                  unique=True),
       pick=st.integers(0, 100))
def test_a_qualified_column_keeps_its_table_definition(tables, cols, pick):
    lines = []
    for t in tables:
        lines.append(f"CREATE TABLE public.{t} (")
        lines += [f"    {c} text DEFAULT 'v_{t}_{c}'::text NOT NULL," for c in cols[:-1]]
        lines.append(f"    {cols[-1]} integer")
        lines.append(");")
        lines.append("")
        lines.append(f"CREATE INDEX {t}_{'_'.join(cols)}_idx ON public.{t} USING btree ({', '.join(cols)});")
        lines.append("")
    t, c = tables[pick % len(tables)], cols[pick % (len(cols) - 1)]
    fmt = FORMATS["sql"]
    keep = select(lines, build(lines, fmt), f"What default does the column public.{t}.{c} get?",
                  extract_anchors(""), 10, fmt)
    assert any(keep[i] and f"'v_{t}_{c}'" in ln for i, ln in enumerate(lines))
