"""Round 15's misses, read by class (issue 33, fifteenth session), on outputs of real tools
over inputs this test makes; the facts are the test's own record of what it made.

- Unindented markup (``sqlite3 -html``: ``<TR>``, a ``<TD>`` line per cell, ``</TR>``)
  nests by its open elements, and a named cell brings its row; the output of a text that
  never parsed as XML is chosen with the named lines, not without them.
- ``git log --notes``: notes are the commit's own, in view; a commit the question names by
  its subject shows its whole message.
- Blank-line separated ``key value`` stanzas read as a listing (``git worktree list
  --porcelain``): a kept row brings its stanza.
- A rare indented line under a head (``git worktree list -v``'s ``prunable:``) brings the
  head it hangs under.
- "The longest" over ``last``: its ``(D+HH:MM)`` durations rank the rows, before the day
  of the month.
"""

from __future__ import annotations

import random
import re
import shutil
import sqlite3
import subprocess

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from headroom.compressors.logs import _DURATION, _seconds, _top_value_lines
from headroom.compressors.structured.formats import FORMATS
from headroom.compressors.structured.tree import _tag_depths, units
from headroom.compressors.text_records import indent_heads

from .tool_rounds import tool_round

GIT_ENV = {"GIT_AUTHOR_NAME": "Wren Okoye", "GIT_AUTHOR_EMAIL": "wren@mill.test", "GIT_COMMITTER_NAME": "Wren Okoye",
           "GIT_COMMITTER_EMAIL": "wren@mill.test", "GIT_CONFIG_GLOBAL": "/dev/null", "GIT_CONFIG_NOSYSTEM": "1",
           "PATH": "/usr/bin:/bin", "HOME": "/nonexistent", "LC_ALL": "C"}


def _git(cwd, *args) -> str:
    return subprocess.run(["git", *args], cwd=cwd, env=GIT_ENV, check=True, capture_output=True, text=True).stdout


@pytest.mark.skipif(shutil.which("sqlite3") is None, reason="needs the sqlite3 shell")
@pytest.mark.parametrize("header", [True, False])
def test_an_html_row_named_by_a_cell_stays_whole(tmp_path, header):
    rng = random.Random(15)
    herbs = ["basil", "sorrel", "lovage", "chervil", "tarragon", "borage", "fennel", "hyssop", "savory", "cumin"]
    farms = [f"{c} {a} {b}" for a in ("Alder", "Birch", "Cedar", "Damson", "Elm", "Fir", "Gorse", "Hazel", "Ivy", "Juniper")
             for b in ("Croft", "Meadow", "Holm", "Garth", "Ley") for c in ("North", "South", "Upper", "Lower")]
    rng.shuffle(farms)
    rows = [(k, farms[k], rng.choice(herbs), f"LOT{rng.randrange(10**7, 10**8)}", rng.randrange(1, 900))
            for k in range(len(farms))]
    db = tmp_path / "harvest.db"
    with sqlite3.connect(db) as con:
        con.execute("CREATE TABLE lots (id INTEGER, farm TEXT, herb TEXT, lot TEXT, grams INTEGER)")
        con.executemany("INSERT INTO lots VALUES (?, ?, ?, ?, ?)", rows)
    con.close()
    args = ["sqlite3", "-html", *(["-header"] if header else []), str(db), "SELECT * FROM lots ORDER BY id"]
    text = subprocess.run(args, check=True, capture_output=True, text=True).stdout
    asked = rows[113]
    out = tool_round("sqlite3 -html harvest.db 'SELECT * FROM lots'", text, f"What lot number did {asked[1]} send?")
    assert len(out) < 0.7 * len(text)
    assert f"<TD>{asked[3]}</TD>" in out
    assert f"<TD>{asked[1]}</TD>" in out


def test_unindented_markup_nests_by_its_open_elements():
    lines = ["<TR><TH>a</TH>", "<TH>b</TH>", "</TR>", "<TR><TD>1</TD>", "<TD>2</TD>", "</TR>", "<BR>", "<P>x</P>"]
    assert _tag_depths(lines, units(lines, FORMATS["xml"])) == [0, 1, 0, 0, 1, 0, 0, 0]


def _noted_repo(tmp_path):
    repo = tmp_path / "mill"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "trunk")
    subjects = [f"{verb} the {part} stage, pass {k}" for k, (verb, part) in enumerate(
        (v, p) for v in ("retune", "reseal", "rebalance", "regrease") for p in ("hopper", "sieve", "roller", "kiln", "press"))]
    for k, subject in enumerate(subjects * 3):
        (repo / "log.txt").write_text(f"{k}\n")
        _git(repo, "add", "log.txt")
        _git(repo, "commit", "-q", "-m", f"{subject} ({k})", "-m", f"Shift notes for run {k}.\nSecond line {k}.")
    revs = _git(repo, "rev-list", "HEAD").split()
    noted = {revs[k]: f"inspected by okoye, permit PMT-{4100 + k}" for k in (7, 23, 41)}
    for rev, note in noted.items():
        _git(repo, "notes", "--ref", "inspections", "add", "-m", note, rev)
    return repo, noted


def test_git_notes_stay_in_view_and_a_quoted_commit_shows_its_message(tmp_path):
    repo, noted = _noted_repo(tmp_path)
    text = _git(repo, "log", "--notes=inspections")
    rev = next(iter(noted))
    subject = _git(repo, "log", "-1", "--format=%s", rev).strip()
    out = tool_round("git log --notes=inspections", text, f"Which permit was noted on '{subject}'?")
    assert len(out) < 0.6 * len(text)
    for note in noted.values():  # every commit's notes, not just the asked one's
        assert note in out
    body = _git(repo, "log", "-1", "--format=%b", rev).strip().splitlines()
    assert all(line in out for line in body)  # the named commit's whole message


def _worktrees(tmp_path, count=60):
    repo = tmp_path / "depot"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "trunk")
    (repo / "a").write_text("a\n")
    _git(repo, "add", "a")
    _git(repo, "commit", "-q", "-m", "first")
    rng = random.Random(7)
    branches = {}
    for k in range(count):
        name = f"tree-{k:03d}"
        branch = f"{rng.choice(['topic', 'hotfix', 'try'])}/{rng.choice(['gears', 'valves', 'belts'])}-{rng.randrange(1000, 9999)}"
        _git(repo, "worktree", "add", "-q", "-b", branch, f"../wts/{name}")
        branches[name] = branch
    gone = "tree-037"
    shutil.rmtree(tmp_path / "wts" / gone)
    return repo, branches, gone


def test_a_named_worktree_brings_its_stanza_and_a_rare_note_its_worktree(tmp_path):
    repo, branches, gone = _worktrees(tmp_path)
    porcelain = _git(repo, "worktree", "list", "--porcelain")
    asked = "tree-044"
    out = tool_round("git worktree list --porcelain", porcelain, f"Which branch is checked out in the {asked} worktree?")
    assert len(out) < 0.5 * len(porcelain)
    assert f"branch refs/heads/{branches[asked]}" in out
    verbose = _git(repo, "worktree", "list", "-v")
    out = tool_round("git worktree list -v", verbose, "Which worktree's folder has disappeared?")
    assert f"/{gone} " in out


def test_indent_heads_only_for_rare_indented_lines():
    raw = [f"item-{k} ok" for k in range(40)]
    raw.insert(21, "\tnote: gone")
    assert indent_heads(raw, [21]) == {20}
    body = [ln for k in range(40) for ln in (f"head {k}", f"\tbody {k}")]
    assert indent_heads(body, [3]) == set()  # indented lines are the body: no head per kept line


@pytest.mark.skipif(shutil.which("last") is None, reason="needs util-linux's last")
def test_the_longest_session_ranks_by_its_duration(tmp_path):
    from headroom.eval.corpus.captures.login_history import Session, write_wtmp

    rng = random.Random(3)
    at, found = 1_780_000_000, []
    for n in range(300):
        at += rng.randrange(3600, 4 * 3600)
        length = rng.randrange(60, 11 * 3600)
        if n == 171:
            length = 31 * 3600 + 17 * 60
        found.append(Session(rng.choice(["ola", "pim", "quill", "rafe"]), f"pts/{n % 30}", "10.9.0.5", at, at + length))
    write_wtmp(tmp_path / "wtmp", found)
    text = subprocess.run(["last", "-F", "-w", "-f", "wtmp"], cwd=tmp_path, env={"PATH": "/usr/bin:/bin", "TZ": "UTC",
                          "LC_ALL": "C"}, check=True, capture_output=True, text=True).stdout
    out = tool_round("last -F -w -f wtmp", text, "Who stayed logged in the longest, and for how long?")
    assert "(1+07:17)" in out
    raw = text.split("\n")
    assert any("(1+07:17)" in raw[i] for i in _top_value_lines(raw, set()))


@pytest.mark.parametrize(("token", "seconds"), [("(04:12)", 15120), ("(1+02:53)", 96780), ("2-03:04:05", 183845),
                                                 ("(00:03:09)", 189)])
def test_durations_read_as_spans(token, seconds):
    m = _DURATION.match(token)
    assert m is not None and _seconds(m) == seconds
    assert _DURATION.match("12:44:31") is None  # a clock time is no span


@pytest.mark.skipif(shutil.which("gcc") is None, reason="needs gcc and ld")
def test_the_largest_prefixed_hex_size_of_a_link_map_stays(tmp_path):
    from headroom.compressors.kv_extremes import extreme_lines

    rng = random.Random(5)
    sizes = {f"bin_{k:02d}": rng.randrange(8, 3000) for k in range(30)}
    sizes["bin_17"] = 9137
    for name, n in sizes.items():
        (tmp_path / f"{name}.c").write_text(f"int {name}_slots[{n}] = {{1}};\n")
    (tmp_path / "main.c").write_text("int main(void) { return 0; }\n")
    subprocess.run(["gcc", "-O0", "-o", "prog", "main.c", *(f"{n}.c" for n in sizes), "-Wl,-Map=prog.map"],
                   cwd=tmp_path, check=True, capture_output=True)
    lines = (tmp_path / "prog.map").read_text().split("\n")
    kept = [lines[i] for i in extreme_lines(lines, "Which initialised array is the largest, in bytes?")]
    assert any(ln.split()[2:3] == [hex(4 * 9137)] for ln in kept), kept  # .data ADDRESS SIZE OBJECT


@pytest.mark.skipif(shutil.which("openssl") is None, reason="needs openssl")
def test_a_when_question_keeps_the_few_dated_lines(tmp_path):
    import socket
    import time

    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", "k.pem", "-out", "c.pem",
                    "-days", "417", "-subj", "/CN=ledger.mill.test/O=Mill Works"], cwd=tmp_path, check=True,
                   capture_output=True)
    end = subprocess.run(["openssl", "x509", "-in", "c.pem", "-noout", "-enddate"], cwd=tmp_path, check=True,
                         capture_output=True, text=True).stdout.strip().split("=", 1)[1]
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = subprocess.Popen(["openssl", "s_server", "-accept", f"127.0.0.1:{port}", "-cert", "c.pem", "-key", "k.pem",
                               "-www", "-quiet"], cwd=tmp_path, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        for _ in range(50):
            res = subprocess.run(["openssl", "s_client", "-connect", f"127.0.0.1:{port}", "-showcerts"], input="", check=False,
                                 capture_output=True, text=True, timeout=10)
            if "BEGIN CERTIFICATE" in res.stdout:
                break
            time.sleep(0.1)
    finally:
        server.terminate()
        server.wait(timeout=5)
    text = res.stderr + res.stdout
    assert text.count(end) == 1
    out = tool_round(f"openssl s_client -connect 127.0.0.1:{port} -showcerts", text,
                     "Until when is the server's cert good for?")
    assert len(out) < 0.8 * len(text)
    assert end in out


def test_a_named_programming_concept_brings_its_keyword(tmp_path):
    from headroom.query.code_words import with_code_words

    assert with_code_words("Is any of these helpers a coroutine?").endswith("\nasync")
    assert with_code_words("Which class methods build it?").endswith("\nclassmethod")
    assert with_code_words("Which async def is slow?") == "Which async def is slow?"  # said already
    pkg = tmp_path / "pkg"
    pkg.mkdir()
    rng = random.Random(11)
    names = [f"{v}_{n}" for v in ("weigh", "stack", "crate", "label", "route") for n in ("pallet", "bin", "dock", "bay")]
    for k in range(12):
        body = "\n\n".join(f"def {rng.choice(names)}_{k}_{j}(item, qty):\n    return item * qty + {j}" for j in range(20))
        (pkg / f"mod_{k:02d}.py").write_text(body + "\n")
    (pkg / "mod_07.py").write_text((pkg / "mod_07.py").read_text()
                                   + "\n\nasync def drain_dock_queue(dock, when):\n    return await dock.flush(when)\n")
    text = subprocess.run(["grep", "-rn", "def ", "pkg"], cwd=tmp_path, check=True, capture_output=True, text=True).stdout
    out = tool_round("grep -rn 'def ' pkg", text, "Is there a coroutine anywhere in pkg? Show its definition.")
    assert len(out) < 0.6 * len(text)
    assert "async def drain_dock_queue(dock, when):" in out


@settings(max_examples=400, deadline=None)
@given(st.text(alphabet=" \ta-b", max_size=40))
def test_field_starts_by_one_match_equal_a_scan_of_fields(text):
    from headroom.compressors.tables.nesting import _starts

    expected = []
    for m in re.finditer(r"\S+", text):
        a = m.start()
        expected.append(a if a < 2 or text[a - 2] in " \t" else -1)
        if len(expected) == 4:
            break
    assert _starts(text) == expected


def test_a_row_of_another_shape_is_neither_the_largest_nor_the_smallest():
    from headroom.compressors.kv_extremes import extreme_lines

    sizes = [0x40, 0x1c8, 0x8, 0x2f0, 0x90, 0x1000, 0x38, 0x610, 0x70, 0x20, 0x5a8, 0x18, 0x300, 0x44]
    lines = [f" .rodata        0x{0x4000 + 64 * k:016x}     {hex(n)} obj{k}.o" for k, n in enumerate(sizes)]
    lines[5:5] = [" LOAD  startup  crtend.o  rest", " *fill* pad here zero"]  # 4 fields, no 0x size
    kept = {lines[i] for i in extreme_lines(lines, "Which object has the smallest section?")}
    assert any(" 0x8 obj2.o" in ln for ln in kept) and not any("LOAD" in ln or "*fill*" in ln for ln in kept), kept
    kept = {lines[i] for i in extreme_lines(lines, "Which object has the largest section?")}
    assert any(" 0x1000 obj5.o" in ln for ln in kept), kept
