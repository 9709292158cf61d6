"""Round 10's misses, read by class (issue 33, twelfth session), on outputs this test makes.

- A tree drawn with depth marks (``gcc -H``'s ". a.h", ".. b.h"): a kept line brings its
  ancestors, so "which header pulls in X" is answered by the line above X's.
- Records that each open alike (``== name`` over the same fields): a question word that
  opens a field's name in every record brings that field of each record, with its opening
  line, when the record itself is named by a word the text does not hold.
- A lead of fields and a free tail whose long names break the alignment (``ctags -x``):
  a table; "the most parameters" counts the parts a cell lists; "the longest timeout"
  ranks the rows the question names by the number in their text.

The facts are the test's own record of what it made.
"""

from __future__ import annotations

import random
import shutil
import subprocess

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from headroom.compressors.structured.select import asked_field_lines
from headroom.compressors.tables.fields import infer as infer_fields
from headroom.compressors.text_records import depth_ancestors, record_starts
from headroom.query.counts import counted_extreme

from .tool_rounds import tool_round


def _headers(root, rng: random.Random) -> dict:
    """A project of headers including each other and system headers; one project header,
    placed mid-way, is the only one to include <signal.h>."""
    inc = root / "include" / "app"
    inc.mkdir(parents=True)
    system = ["stdio.h", "stdlib.h", "string.h", "errno.h", "time.h", "stdint.h", "ctype.h", "limits.h"]
    names = [f"mod{k:02d}_{rng.choice(['io', 'net', 'db', 'ui', 'fs'])}.h" for k in range(24)]
    puller = names[13]
    for k, name in enumerate(names):
        body = [f"#ifndef H{k}\n#define H{k}\n"]
        for dep in rng.sample(names[k + 1:], min(2, len(names) - k - 1)):
            body.append(f'#include "{dep}"\n')
        for s in rng.sample(system, 2):
            body.append(f"#include <{s}>\n")
        if name == puller:
            body.append("#include <signal.h>\n")
        body.append("#endif\n")
        (inc / name).write_text("".join(body))
    (root / "main.c").write_text("".join(f'#include "app/{n}"\n' for n in names) + "int main(void){return 0;}\n")
    return {"puller": f"include/app/{puller}"}


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
@pytest.mark.parametrize("seed", [3, 8])
def test_an_include_tree_keeps_what_includes_the_asked_header(tmp_path, seed):
    facts = _headers(tmp_path, random.Random(seed))
    run = subprocess.run(["gcc", "-H", "-fsyntax-only", "-Iinclude", "main.c"], check=False, cwd=tmp_path,
                         capture_output=True, text=True)
    text = run.stderr
    assert "signal.h" in text and facts["puller"] in text
    out = tool_round("gcc -H -fsyntax-only -Iinclude main.c", text, "Which of the project headers brings in signal.h?")
    lines = out.splitlines()
    at = next(i for i, ln in enumerate(lines) if ln.endswith("/signal.h") and ln.startswith(".."))
    depth = len(lines[at]) - len(lines[at].lstrip("."))
    parent = next(ln for ln in reversed(lines[:at]) if len(ln) - len(ln.lstrip(".")) == depth - 1)
    assert parent.endswith(facts["puller"]), parent
    assert len(out) < len(text)


@st.composite
def _dot_trees(draw):
    """Lines of a tree drawn with dots, each a child of the last line one level up."""
    depths, d = [], 0  # the first line is at depth 1
    for _ in range(draw(st.integers(8, 80))):
        d = draw(st.integers(1, d + 1))
        depths.append(d)
    return ["." * d + f" node{k}.h" for k, d in enumerate(depths)]


@given(_dot_trees(), st.data())
@settings(max_examples=60, deadline=None)
def test_depth_ancestors_are_the_lines_one_level_up_all_the_way(lines, data):
    kept = sorted(set(data.draw(st.lists(st.integers(0, len(lines) - 1), max_size=6))))
    depth = [len(ln) - len(ln.lstrip(".")) for ln in lines]
    want = set()
    for i in kept:
        need = depth[i] - 1
        for j in range(i - 1, -1, -1):
            if need and depth[j] == need:
                want.add(j)
                need -= 1
    assert depth_ancestors(lines, kept) == want - set(kept)


def test_depth_ancestors_need_a_drawn_tree():
    flat = [f"line {k} of a plain log" for k in range(40)]
    assert depth_ancestors(flat, [10, 20]) == set()
    one_level = [f". item{k}" for k in range(40)]  # one depth: a list, not a tree
    assert depth_ancestors(one_level, [10]) == set()


def _records(rng: random.Random) -> tuple[str, dict]:
    """Seven records of the same 30 fields, each opened by ``== name``; the records are
    named by codes a question would not say."""
    codes = ["xq_AA", "xr_BB", "xs_CC", "xt_DD", "xu_EE", "xv_FF", "xw_GG"]
    syllables = ["ka", "lo", "mi", "ner", "ost", "pu", "rax", "sel", "tum", "vid", "wex", "zor"]
    fields = []
    while len(fields) < 28:  # distinct names, as a dump's fields are
        name = "".join(rng.sample(syllables, 2)) + rng.choice(["", "_fmt", "-count", "_set"])
        if name not in fields:
            fields.append(name)
    vocab = ["north", "quay", "ember", "lattice", "%H:%M", "%d.%m.%Y", "mint", "opal", "rune", "sable", "tide"]

    def value() -> str:
        kind = rng.randint(0, 2)
        if kind == 0:
            return str(rng.randint(0, 99999))
        if kind == 1:
            return '"' + ";".join(rng.sample(vocab, rng.randint(1, 4))) + '"'
        return f'"{rng.choice(vocab)} {rng.choice(vocab)}"'

    rows = []
    asked = {}
    for code in codes:
        rows.append(f"== {code}.profile")
        for f in fields[:14]:
            rows.append(f"{f}={value()}")
        pattern = f"^[{rng.choice('abcdef')}{rng.randint(10, 99)}]"
        asked[code] = pattern
        rows.append(f'confirmpattern="{pattern}"')
        rows.append(f'confirmword="{rng.choice(["ok", "go", "yes"])}{rng.randint(0, 9)}"')
        for f in fields[14:]:
            rows.append(f"{f}={value()}")
    return "\n".join(rows) + "\n", asked


def test_a_field_asked_of_records_named_in_other_words_stays_in_every_record():
    text, asked = _records(random.Random(5))
    out = tool_round("profile-dump --all", text, "Which pattern does the fifth profile use to confirm an answer?")
    for code, value in asked.items():
        assert f"== {code}.profile" in out and f'confirmpattern="{value}"' in out
    assert len(out) < 0.6 * len(text)


def test_asked_field_lines_need_records_and_few_lines_per_record():
    text, _ = _records(random.Random(1))
    lines = text.split("\n")
    offsets, pos = [], 0
    for ln in lines:
        offsets.append(pos)
        pos += len(ln) + 1
    assert len(record_starts(lines)) == 7
    got = asked_field_lines(lines, offsets, {"confirm"})
    assert len(got) == 14 and all(lines[i].startswith("confirm") for i in got)
    assert asked_field_lines(lines, offsets, {"alpha"}) == set() or all(
        lines[i].startswith("alpha") for i in asked_field_lines(lines, offsets, {"alpha"}))
    no_records = [ln for ln in lines if not ln.startswith("==")]
    assert record_starts(no_records) == []


def _package(root, rng: random.Random) -> dict:
    """A package whose functions take 0-4 parameters but one (mid-way) that takes 9, and
    a timeout constant per module, one far above the others."""
    pkg = root / "pkg"
    pkg.mkdir()
    words = ["order", "item", "price", "user", "when", "limit", "strict", "zone", "batch", "retry"]
    facts = {}
    mods = [f"mod_{m}" for m in ("cart", "ship", "bill", "auth", "feed", "mail", "sync", "tax")]
    for m, mod in enumerate(mods):
        src = [f"{mod.upper()}_TIMEOUT_MS = {rng.randint(1, 30) * 500}\n"]
        for k in range(12):
            args = ", ".join(rng.sample(words, rng.randint(0, 4)))
            name = f"{rng.choice(['load', 'save', 'merge', 'check'])}_{mod[4:]}_{k}"
            if m == 4 and k == 6:
                args = ", ".join(words[:9])
                facts["params"] = name
            src.append(f"def {name}({args}):\n    return None\n\n")
        if m == 5:
            src[0] = f"{mod.upper()}_TIMEOUT_MS = 3600000\n"
            facts["timeout"] = f"{mod.upper()}_TIMEOUT_MS"
        (pkg / f"{mod}.py").write_text("".join(src))
    return facts


@pytest.mark.skipif(shutil.which("ctags") is None, reason="needs ctags")
def test_a_ctags_cross_reference_is_a_table_of_lead_fields_and_a_tail(tmp_path):
    facts = _package(tmp_path, random.Random(11))
    run = subprocess.run(["ctags", "-x", "--sort=yes", "-R", "pkg"], check=False, cwd=tmp_path, capture_output=True, text=True)
    if run.returncode != 0 or "def " not in run.stdout:
        pytest.skip("this ctags prints no cross reference")
    text = run.stdout
    assert infer_fields([ln for ln in text.splitlines() if ln.strip()], tail=True) is not None
    out = tool_round("ctags -x -R pkg", text, "Which function has the largest number of arguments... I mean the most arguments?")
    assert facts["params"] in out
    out = tool_round("ctags -x -R pkg", text, "Which module waits the longest before its timeout fires?")
    assert facts["timeout"] in out
    assert len(out) < len(text) / 2


def test_counted_extremes_are_most_or_fewest_of_a_plural():
    assert counted_extreme("which function takes the most parameters?") == "max"
    assert counted_extreme("the rule with the fewest prerequisites") == "min"
    assert counted_extreme("which target has the least required inputs?") == "min"
    assert counted_extreme("what is the most recent release?") is None
    assert counted_extreme("who has the most access?") is None


def test_rows_of_equal_fields_stay_plain_fields_and_logs_are_not_tails():
    rows = [f"key{k} {k * 7} {k % 3} done" for k in range(30)]
    assert infer_fields(rows, tail=True).tail is False
    logs = [f"svc {1700000000 + k}.{k:03d} [{100 + k}] LOG:  request {k} served in {k % 9} ms" for k in range(30)]
    assert infer_fields(logs) is None  # without tail: unequal rows are no table


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc")
def test_dependency_rules_keep_the_one_listing_the_most_parts(tmp_path):
    _headers(tmp_path, random.Random(4))
    inc = "include/app"
    names = sorted(p.name for p in (tmp_path / inc).iterdir())
    rng = random.Random(4)
    sources = []
    for k in range(7):  # objects of a few headers each, and one (mid-way) of nearly all
        picked = names if k == 3 else rng.sample(names, 2)
        (tmp_path / f"unit{k}.c").write_text("".join(f'#include "app/{n}"\n' for n in picked))
        sources.append(f"unit{k}.c")
    run = subprocess.run(["gcc", "-MM", "-Iinclude", *sources], check=True, cwd=tmp_path,
                         capture_output=True, text=True)
    text = run.stdout
    out = tool_round("gcc -MM -Iinclude *.c", text, "Which object pulls in the largest set of headers... the most headers?")
    assert "unit3.o:" in out
    out = tool_round("gcc -MM -Iinclude *.c", text, "Which object file needs the fewest headers?")
    counts = {k: len(part.split()) for k, part in
              ((ln.split(":")[0], ln.split(":", 1)[1]) for ln in text.replace("\\\n", " ").splitlines() if ":" in ln)}
    assert min(counts, key=counts.get) + ":" in out or len(set(counts.values())) < len(counts)


def test_a_two_letter_field_name_is_asked_in_every_record():
    text, _ = _records(random.Random(2))
    text = text.replace("confirmword=", "no=")
    out = tool_round("profile-dump --all", text, "What counts as no for the third profile?")
    assert out.count("\nno=") == 7


def test_a_lead_and_tail_needs_numbers_in_the_lead_and_a_short_tail():
    rng = random.Random(12)
    words = ["fix", "the", "reader", "so", "that", "rows", "stay", "in", "view", "when", "asked", "again"]
    commits = [f"{rng.getrandbits(28):07x} Ann Lee 2026-11-{k % 28 + 1:02d} " + " ".join(rng.sample(words, rng.randint(7, 12)))
               for k in range(60)]
    assert infer_fields(commits, tail=True) is None  # a log of messages: its subjects are sentences
    tags = [f"name_{k} function {k * 7 + 1} pkg/mod{k % 5}.py def name_{k}({', '.join(['a'] * (k % 4))}):"
            for k in range(60)]
    fields = infer_fields(tags, tail=True)
    assert fields is not None and fields.tail and fields.count == 5
