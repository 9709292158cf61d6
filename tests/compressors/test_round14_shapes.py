"""Round 14's misses, read by class (issue 33, fourteenth session), on outputs of real tools
over inputs this test makes; the facts are the test's own record of what it made.

- Records that all open alike (a doctest's ``Trying:``), where the question's words name
  several: the record whose opening and named lines hold the most of them brings its body
  (the asked call's expected value), not none of them.
- A listing whose keys stand in a later column (``git config --show-origin --list``: the
  file first, then ``remote.NAME.pushurl``): the key the question spells out word by word
  is found there, and a word inflected twice in one name counts once.
- A cell of another shape in a column of distinct values (``join -a``'s "-" where a host
  has no ticket among CHG-numbers) stays.
- Lines set in columns by leading tabs alone (``comm``): the lines of a rare column stay.
- A table whose one column is indented by nesting (``python -m pickletools``): a named row
  brings the block it sits in (its record's other fields), and a question word written once
  (a key, or two words written as one: "charged back", ``chargeback``) names its record.
"""

from __future__ import annotations

import random
import shutil
import subprocess
import sys
from bisect import bisect_right

import pytest

from headroom.compressors.logs import _rare_tab_column_lines
from headroom.compressors.structured.select import _line_offsets, named_lines, question_terms
from headroom.compressors.tables.nesting import nesting_blocks, nesting_field, worded_rows
from headroom.compressors.tables.repeats import odd_shape_rows
from headroom.compressors.text_records import record_bodies, record_starts
from headroom.query.names import named_by_parts

from .tool_rounds import tool_round

_VERBS = ["tally", "prorate", "clamp", "blend", "rescale", "settle"]
_NOUNS = ["freight", "duty", "voucher", "margin", "levy", "surcharge"]


def _doctest_run(tmp_path, calls_per_function: tuple[int, int]):
    rng = random.Random(14)
    funcs = [f"{v}_{n}" for v in _VERBS for n in _NOUNS]
    calls = [(f, rng.randint(2, 400), rng.randint(2, 60)) for f in funcs for _ in range(rng.randint(*calls_per_function))]
    module = "\n".join(f"def {f}(a, b):\n    return a * {k + 3} + b * {k * 7 % 13 + 1}\n" for k, f in enumerate(funcs))
    (tmp_path / "fees.py").write_text(module)
    doc = [">>> from fees import *"]
    for f, a, b in calls:
        k = funcs.index(f)
        doc += [f">>> {f}({a}, {b})", str(a * (k + 3) + b * (k * 7 % 13 + 1))]
    (tmp_path / "fees.txt").write_text("\n".join(doc) + "\n")
    text = subprocess.run([sys.executable, "-m", "doctest", "-v", "fees.txt"], cwd=tmp_path, capture_output=True,
                          text=True, check=True).stdout
    return text, funcs, calls


def test_the_record_holding_most_of_the_question_brings_its_body(tmp_path):
    text, funcs, calls = _doctest_run(tmp_path, (2, 5))
    raw = text.split("\n")
    f, a, b = next(c for c in calls[len(calls) // 2:] if sum(1 for d in calls if d[0] == c[0]) >= 2)
    question = f"What does the doctest expect {f}({a}, {b}) to return?"
    terms = question_terms(question) | {str(a), str(b)}
    named = named_lines(raw, _line_offsets(raw), terms)
    at = raw.index(f"    {f}({a}, {b})")
    k = funcs.index(f)
    assert len({bisect_right(record_starts(raw), i) for i in named}) > 4  # more records named than are brought
    body = record_bodies(raw, named, terms)
    assert at + 2 in body and raw[at + 2] == f"    {a * (k + 3) + b * (k * 7 % 13 + 1)}"
    assert len(body) <= 5


def test_the_asked_doctest_call_brings_its_expected_value(tmp_path):
    text, funcs, calls = _doctest_run(tmp_path, (6, 10))
    f, a, b = next(c for c in calls[len(calls) // 2:] if sum(1 for d in calls if d[0] == c[0]) >= 2)
    k = funcs.index(f)
    out = tool_round("python -m doctest -v fees.txt", text, f"What does the doctest expect {f}({a}, {b}) to return?")
    assert len(out) < 0.8 * len(text)
    lines = out.splitlines()
    at = lines.index(f"    {f}({a}, {b})")
    assert f"    {a * (k + 3) + b * (k * 7 % 13 + 1)}" in lines[at:at + 4], lines[at - 2:at + 6]


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_a_key_spelled_out_in_a_later_column_of_a_listing(tmp_path):
    rng = random.Random(7)
    remotes = ["origin", "fork", "vendor", "qa", "demo", "infra", "audit"]
    subprocess.run(["git", "init", "-q", str(tmp_path)], check=True)
    pushes = {}
    for r in remotes:
        pushes[r] = f"ssh://git@gate-{rng.randint(100, 999)}.corp.test/{r}/app.git"
        for key, value in (("url", f"https://code.corp.test/{r}/app-{rng.randint(10, 99)}.git"),
                           ("pushurl", pushes[r]), ("fetch", f"+refs/heads/*:refs/remotes/{r}/*")):
            subprocess.run(["git", "-C", str(tmp_path), "config", f"remote.{r}.{key}", value], check=True)
    for k in range(120):  # many branches tracking each remote: its name alone names dozens of rows
        b = f"topic/t-{k}"
        subprocess.run(["git", "-C", str(tmp_path), "config", f"branch.{b}.remote", rng.choice(remotes)], check=True)
        subprocess.run(["git", "-C", str(tmp_path), "config", f"branch.{b}.merge", f"refs/heads/t-{k}"], check=True)
    text = subprocess.run(["git", "-C", str(tmp_path), "config", "--local", "--show-origin", "--list"],
                          capture_output=True, text=True, check=True).stdout
    for r in ("vendor", "infra"):
        out = tool_round("git config --show-origin --list", text, f"Which address does a push to the {r} remote use?")
        assert len(out) < len(text) / 4
        assert pushes[r] in out


def test_a_word_inflected_twice_in_one_name_counts_once():
    names = ["remote.qa.fetch +refs/heads/*:refs/remotes/qa/*", "remote.qa.pushurl ssh://push.test/qa.git",
             "remote.qa.url https://code.test/qa.git", "branch.x.remote qa"]
    assert named_by_parts(names, "Where do pushes to the qa remote go?") == [1]


@pytest.mark.skipif(shutil.which("join") is None, reason="needs coreutils join")
def test_a_cell_of_another_shape_stays_in_a_joined_table(tmp_path):
    rng = random.Random(3)
    hosts = sorted({f"{rng.choice(['app', 'db', 'edge'])}-{rng.choice(['fra', 'ams', 'sfo'])}-{rng.randint(10, 99)}"
                    for _ in range(400)})
    teams = "\n".join(f"{h}\t{rng.choice(['core', 'data', 'web', 'ops'])}" for h in hosts)
    missing = hosts[len(hosts) // 3]
    tickets = "\n".join(f"{h}\tOPS-{rng.randint(1000, 99999)}" for h in hosts if h != missing)
    (tmp_path / "teams.tsv").write_text(teams + "\n")
    (tmp_path / "tickets.tsv").write_text(tickets + "\n")
    text = subprocess.run(["join", "-t", "\t", "-a", "1", "-e", "-", "-o", "0,1.2,2.2", "teams.tsv", "tickets.tsv"],
                          cwd=tmp_path, capture_output=True, text=True, check=True).stdout
    assert f"{missing}\t" in text and "\t-\n" in text
    out = tool_round("join -t '\t' -a 1 -e - -o 0,1.2,2.2 teams.tsv tickets.tsv", text,
                     "Which machine never got a change ticket?")
    assert len(out) < len(text) / 4
    assert missing in out


def test_odd_shapes_are_read_only_where_one_shape_fills_the_column():
    ids = tuple(f"OPS-{k * 37 % 90000 + 1000}" for k in range(300))
    assert odd_shape_rows([ids[:150] + ("-",) + ids[151:]], 300, 16) == [150]
    prose = tuple(" ".join(["word"] * (k % 7 + 1)) + ("." if k % 3 else "!") for k in range(300))
    assert odd_shape_rows([prose], 300, 16) == []  # free text: no one shape
    assert odd_shape_rows([tuple(["up", "down"] * 150)], 300, 16) == []  # a category: its rare values are read as such


@pytest.mark.skipif(shutil.which("comm") is None, reason="needs coreutils comm")
def test_the_lines_of_a_rare_tab_column_stay(tmp_path):
    rng = random.Random(11)
    before = sorted({f"{rng.choice(['api', 'db', 'cache', 'mq'])}-{rng.choice(['eu', 'us'])}-{rng.randint(100, 999)}"
                     for _ in range(500)})
    retired = rng.sample(before, 3)
    added = sorted({f"mq-{rng.choice(['eu', 'us'])}-{rng.randint(100, 999)}" for _ in range(40)} - set(before))[:2]
    after = sorted((set(before) - set(retired)) | set(added))
    (tmp_path / "q3.txt").write_text("\n".join(before) + "\n")
    (tmp_path / "q4.txt").write_text("\n".join(after) + "\n")
    text = subprocess.run(["comm", "q3.txt", "q4.txt"], cwd=tmp_path, capture_output=True, text=True,
                          check=True).stdout
    out = tool_round("comm q3.txt q4.txt", text, "Which message-queue hosts are new this quarter?")
    assert len(out) < len(text) / 2
    for h in added + retired:
        assert h in out, h


def test_rare_tab_columns_are_read_only_where_tabs_alone_set_the_columns():
    lines = [f"\t\thost-{k}" for k in range(300)]
    lines[40], lines[200] = "gone-1", "\tnew-1"
    assert _rare_tab_column_lines(lines) == [40, 200]
    tree = [("\t" * (k % 5)) + f"node-{k}" for k in range(300)]  # more levels: a tree, not columns
    assert _rare_tab_column_lines(tree) == []
    mixed = [f"\t\thost-{k}" for k in range(300)] + ["\t  indented by blanks too"]
    assert _rare_tab_column_lines(mixed) == []


def _pickled_shipments(tmp_path):
    import pickle

    rng = random.Random(21)
    rows = [{"ref": f"SHP-{rng.randint(10000, 99999)}", "carrier": rng.choice(["dhl", "ups", "gls"]),
             "weight": round(rng.uniform(1, 90), 2), "state": "arrived",
             "parcels": [[f"PCL-{rng.randint(100, 999)}", rng.randint(1, 5)] for _ in range(rng.randint(1, 3))]}
            for _ in range(150)]
    rows[70]["state"] = "sentback"  # one record of another state, written once
    rows[95]["remark"] = "fragile-glass"  # one record with a key no other has
    (tmp_path / "shipments.pkl").write_bytes(pickle.dumps({"batch": "b-7", "rows": rows}, protocol=4))
    text = subprocess.run([sys.executable, "-m", "pickletools", "shipments.pkl"], cwd=tmp_path, capture_output=True,
                          text=True, check=True).stdout
    return rows, text


def test_a_named_row_in_a_nested_dump_brings_its_record(tmp_path):
    rows, text = _pickled_shipments(tmp_path)
    for k in (40, 120):
        out = tool_round("python -m pickletools shipments.pkl", text, f"What does shipment {rows[k]['ref']} weigh?")
        assert len(out) < len(text) / 10
        assert str(rows[k]["weight"]) in out
    out = tool_round("python -m pickletools shipments.pkl", text, "Which shipment was sent back?")
    assert rows[70]["ref"] in out
    out = tool_round("python -m pickletools shipments.pkl", text, "Which shipment has a remark?")
    assert rows[95]["ref"] in out


def test_the_nesting_column_is_found_by_its_starts_alone():
    tree = [f"{k:5d}: x {'    ' * (1 + k % 4)}NAME{k}" for k in range(60)]
    assert nesting_field(tree) == 2
    offsets = [f"{k * 997:>8}: x NAME{k}" for k in range(60)]  # right-aligned: moves one way only
    assert nesting_field(offsets) is None
    assert nesting_blocks(offsets, [10]) == []
    words = ["max", "locked-in-memory", "nice", "open", "of", "real-time"]  # a phrase's words: single blanks
    phrases = [f"RES{k:<4}  {words[k % 6]} {words[(k + 2) % 6]} {words[(k + 4) % 6]}   {k * 7}" for k in range(60)]
    assert nesting_field(phrases) is None
    block = nesting_blocks(tree, [5])  # depth 2 at row 5: rows 5-7 are as deep or deeper
    assert block == [4, 6, 7]
    assert worded_rows(["a 'chargeback' row", "other", "another"], "Which one was charged back?") == [0]
