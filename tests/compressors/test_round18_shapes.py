"""Round 18's misses, read by class (issue 33, eighteenth session), on outputs of real tools
over inputs this test makes (other names, sizes and wordings than the corpus); the facts are
the test's own record of what it made.

- A question about order ("right after X", "just before X") keeps the lines next to the one
  naming X: in a ranked or sorted listing the answer is a neighbour that holds none of the
  question's words.
- Lines opening on a few words that are the ``name : value`` fields of records nested in an
  outline (a debugger's entry tree) are records, not a log; when the records' heads number
  their depth (``<2>``), a named record brings the records nested under it (a function's
  entry, then its parameters' entries).
- A question word too many lines hold to name one names a family; the member that differs
  from the rest in a leading field stays (the one exported variable among a hundred).
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess

import pytest

from headroom.compressors.detect import ContentType, detect
from headroom.query.order import asks_neighbour

from .tool_rounds import tool_round

VERBS = ["fold", "weigh", "stack", "spin", "route", "trim", "seal", "tally", "probe", "shift", "grip", "hoist"]
NOUNS = ["crate", "pallet", "drum", "spool", "bale", "carton", "tote", "skid", "reel", "sack"]
PARTS = ["width", "depth", "grade", "slack", "bias", "skew", "tier", "quota", "offset", "margin", "pitch", "yaw"]


def test_order_words_are_read_as_asking_for_a_neighbour():
    assert asks_neighbour("Which tag does pip rank right after cp39-abi3-linux_x86_64?")
    assert asks_neighbour("What is the entry just BEFORE libfoo?")
    assert asks_neighbour("Which line sits immediately above the marker?")
    assert not asks_neighbour("Which package is the largest?")
    assert not asks_neighbour(None)


@pytest.mark.skipif(shutil.which("dpkg-query") is None, reason="needs dpkg-query")
def test_a_sorted_listing_keeps_the_neighbours_of_the_entry_the_question_names():
    fmt = "${Package}:${Architecture} ${Installed-Size}\n"
    text = subprocess.run(["dpkg-query", "-W", "-f", fmt], capture_output=True, text=True, check=True).stdout
    rows = text.splitlines()
    assert len(rows) >= 200
    rng = random.Random(18)
    for i in sorted(rng.sample(range(len(rows) // 4, 3 * len(rows) // 4), 5)):
        name = rows[i].split()[0]
        for question, want in ((f"Which package does dpkg list right after {name}?", rows[i + 1]),
                               (f"What is the entry just before {name}?", rows[i - 1]),
                               (f"And the one following {name} in that listing?", rows[i + 1])):
            out = tool_round(f"dpkg-query -W -f '{fmt}'", text, question)
            assert len(out) < 0.7 * len(text)
            assert want in out.splitlines(), question


@pytest.mark.skipif(shutil.which("dpkg") is None, reason="needs dpkg")
def test_a_table_keeps_the_rows_next_to_the_row_the_question_names():
    text = subprocess.run(["dpkg", "-l"], capture_output=True, text=True, check=True,
                          env={**os.environ, "COLUMNS": "160"}).stdout
    rows = text.splitlines()
    body = [i for i, r in enumerate(rows) if r.startswith("ii ")]
    assert len(body) >= 200
    rng = random.Random(19)
    asked = 0
    for i in rng.sample(body[len(body) // 4: 3 * len(body) // 4], 8):
        name = rows[i].split()[1]
        if sum(f" {name} " in r for r in rows) != 1:
            continue
        for question, want in ((f"Which package comes right after {name} in this list?", rows[i + 1]),
                               (f"What is listed just before {name}?", rows[i - 1])):
            out = tool_round("dpkg -l", text, question)
            assert len(out) < 0.5 * len(text)
            assert want in out, question
            asked += 1
    assert asked >= 8


_DPKG_LOG = "/var/log/dpkg.log"


@pytest.mark.skipif(not os.path.exists(_DPKG_LOG), reason="needs the image's dpkg log")
def test_a_log_keeps_the_lines_next_to_the_line_the_question_names():
    from pathlib import Path

    text = Path(_DPKG_LOG).read_text(encoding="utf-8", errors="replace")
    rows = text.splitlines()
    # A package installed once, named whole (its name is an anchor: a digit or a dash in it).
    installed = [i for i in range(len(rows) // 4, 3 * len(rows) // 4) if " status installed " in rows[i]]
    picked = [i for i in installed if any(c in rows[i].split()[4].split(":")[0] for c in "-0123456789")
              and sum(f" {rows[i].split()[4]} " in r for r in rows) <= 12]
    assert len(rows) >= 1000 and len(picked) >= 6
    for i in random.Random(20).sample(picked, 6):
        pkg, when = rows[i].split()[4], rows[i].split()[1]
        for question, want in ((f"What did dpkg log right after {pkg} was marked installed at {when}?", rows[i + 1]),
                               (f"And the line just before {pkg} status installed at {when}?", rows[i - 1])):
            out = tool_round(f"cat {_DPKG_LOG}", text, question)
            assert len(out) < 0.5 * len(text)
            assert want in out, question


def _debug_info(tmp_path, tool: list[str]) -> tuple[str, dict[str, list[str]], dict[str, int]]:
    """A C file of many functions (four parameters each) and enums in use, compiled with -g;
    ``tool``'s dump of its debugging entries; the parameters and the constants' values."""
    rng = random.Random(18)
    src = ["#include <stdint.h>"]
    params: dict[str, list[str]] = {}
    consts: dict[str, int] = {}
    for n in NOUNS:
        values = {f"{n.upper()}_{m}": rng.randrange(3, 60000) for m in ("IDLE", "BUSY", "LOST", "GONE")}
        consts.update(values)
        src.append(f"enum {n}_mode {{ " + ", ".join(f"{k} = {v}" for k, v in values.items()) + " };")
        src.append(f"enum {n}_mode {n}_state;")  # in use: gcc leaves unused types out
    for v in VERBS:
        for n in NOUNS:
            names = [f"{n[:3]}_{p}" for p in rng.sample(PARTS, 4)]
            params[f"{v}_{n}"] = names
            src.append(f"long {v}_{n}(" + ", ".join(f"long {p}" for p in names) + ") { return "
                       + " + ".join(names) + "; }")
    (tmp_path / "depot.c").write_text("\n".join(src) + "\n")
    subprocess.run(["gcc", "-g", "-O0", "-c", "depot.c", "-o", "depot.o"], cwd=tmp_path, check=True)
    text = subprocess.run([*tool, "depot.o"], cwd=tmp_path, capture_output=True, text=True, check=True).stdout
    return text, params, consts


@pytest.mark.skipif(shutil.which("gcc") is None or shutil.which("readelf") is None or shutil.which("objdump") is None,
                    reason="needs gcc and binutils")
@pytest.mark.parametrize("tool", [["readelf", "--debug-dump=info"], ["objdump", "--dwarf=info"]])
def test_a_debugging_entry_tree_is_records_and_a_named_function_brings_its_parameters(tmp_path, tool):
    text, params, consts = _debug_info(tmp_path, tool)
    assert detect(text).type is ContentType.TABLE  # records, not a log's lines
    command = " ".join([*tool, "depot.o"])
    rng = random.Random(7)
    for fn in rng.sample(sorted(params), 6):
        for k, word in ((1, "second"), (2, "third"), (3, "fourth")):
            out = tool_round(command, text, f"What is the {word} parameter of {fn} called in the debug info?")
            assert len(out) < 0.1 * len(text)
            assert params[fn][k] in out, (fn, word)
    for name in rng.sample(sorted(consts), 6):
        out = tool_round(command, text, f"Which number is {name} set to?")
        assert f"DW_AT_const_value : {consts[name]}" in out, name


@pytest.mark.skipif(shutil.which("git") is None, reason="needs git")
def test_records_of_unnamed_fields_that_open_on_a_few_words_stay_a_log(tmp_path):
    # git blame --porcelain: a commit line over "author …" and the tab-led source line, heads
    # and fields that name nothing with a colon; its one-off lines are what a question asks.
    env = {"GIT_CONFIG_GLOBAL": "/dev/null", "HOME": str(tmp_path), "PATH": "/usr/bin:/bin"}

    def git(*args: str, who: str = "Ada Quill") -> str:
        name_env = {"GIT_AUTHOR_NAME": who, "GIT_AUTHOR_EMAIL": "a@example.org",
                    "GIT_COMMITTER_NAME": who, "GIT_COMMITTER_EMAIL": "a@example.org"}
        return subprocess.run(["git", *args], cwd=tmp_path, env={**env, **name_env}, capture_output=True,
                              text=True, check=True).stdout

    git("init", "-q")
    rng = random.Random(5)
    body = [f"value_{k} = {rng.randrange(10**6)}" for k in range(400)]
    for who in ("Ada Quill", "Bo Ferris", "Cy Marsh"):
        for k in rng.sample(range(len(body)), 60):
            body[k] = f"value_{k} = {rng.randrange(10**6)}  # {who.split()[0].lower()}"
        (tmp_path / "table.py").write_text("\n".join(body) + "\n")
        git("add", "table.py")
        git("commit", "-q", "-m", f"values by {who}", who=who)
    text = git("blame", "--porcelain", "table.py")
    assert detect(text).type is not ContentType.TABLE


def test_the_odd_member_of_a_family_a_question_word_names_stays():
    # bash's declare -p: a hundred DEPOT_* variables, one exported, one read-only, one an
    # integer, among exported variables of another family that sort before them (so the
    # exported one is not the first of its shape either).
    rng = random.Random(21)
    groups = ["ALPHA", "BRAVO", "DELTA", "ECHO", "FOXTROT", "GOLF", "HOTEL", "INDIA", "JULIET", "KILO", "LIMA",
              "MIKE", "NOVEMBER", "OSCAR", "PAPA", "QUEBEC", "ROMEO", "SIERRA", "TANGO", "UNIFORM", "VICTOR",
              "WHISKEY", "XRAY", "YANKEE"]
    kinds = ["HOST", "PORT", "POOL", "QUEUE", "RETRY", "WINDOW", "LIMIT", "DEPTH", "SPAN", "RATE", "SEED", "SIZE"]
    names = [f"DEPOT_{g}_{k}" for g in groups for k in kinds]
    exported, readonly, integer = rng.sample(names, 3)
    flag = {exported: "export ", readonly: "readonly ", integer: "declare -i "}
    script = [f'{flag.get(name, "")}{name}="{rng.randrange(10**5)}"' for name in names]
    script += [f"declare -a {g}_LIST=({' '.join(str(rng.randrange(10**4)) for _ in range(6))})" for g in groups]
    script += [f"declare -l {g.lower()}_mode=Mixed{g}" for g in groups[:12]]
    script.append("declare -p")
    env = {"PATH": "/usr/bin:/bin", "HOME": "/tmp",
           **{f"CFG_{g}_{j}": str(rng.randrange(10**6)) for g in groups for j in ("URL", "TOKEN", "MODE")}}
    text = subprocess.run(["bash", "--norc", "--noprofile", "-c", "\n".join(script)], capture_output=True, text=True,
                          check=True, env=env).stdout
    assert text.count("declare -x CFG_") == 72 and f"declare -x {exported}=" in text
    for question, want in (("Which of the DEPOT settings is exported to child processes?", exported),
                           ("Is any DEPOT setting passed on to subprocesses?", exported),
                           ("Which DEPOT variable can no longer be changed?", readonly),
                           ("Which DEPOT value is declared as an integer?", integer)):
        out = tool_round("declare -p", text, question)
        assert len(out) < 0.3 * len(text)
        assert want in out, question
