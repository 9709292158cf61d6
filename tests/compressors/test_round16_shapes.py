"""Round 16's misses, read by class (issue 33, sixteenth session), on outputs of real tools
over inputs this test makes (other names, sizes and wordings than the corpus); the facts
are the test's own record of what it made.

- A line of a rare shape among lines of one dominant shape stays, whatever its words
  (``pwck -r``: among hundreds of missing home directories, the missing shell, the
  malformed entry).
- A column of hashes has a shape when letters and digits count as one class: the
  ``+``-marked hash of a drifted submodule, a path one level deeper, stand out.
- In a tree drawn by indentation (``pytest --collect-only``), a named node brings what
  holds it and what it holds.
- In a matrix of marks (``git show-branch``), each run of rows marked alike keeps its first
  and last row: where a branch starts and where it forks off.
- A question word inside a table's cell names its rows where few hold it ("locked" is a
  ``LOCK`` record), with the rows that share one of their rare ids.
"""

from __future__ import annotations

import hashlib
import os
import random
import shutil
import subprocess
import sys

import pytest

from headroom.compressors.structured.select import rare_shape_lines
from headroom.compressors.tables.repeats import odd_shape_rows
from headroom.compressors.text_records import indent_family, mark_run_ends

from .test_round15_shapes import _git
from .tool_rounds import tool_round

FIRST = ["ines", "tobias", "maren", "olek", "petra", "yusuf", "signe", "ravi", "clea", "anton", "mirela", "joost"]
LAST = ["halvorsen", "mbeki", "castellano", "weiss", "oyelaran", "lindgren", "szabo", "moreau", "tanaka", "ferreira"]


@pytest.mark.skipif(shutil.which("pwck") is None, reason="needs pwck (the shadow suite)")
def test_pwck_keeps_the_rare_complaints_among_hundreds_of_missing_homes(tmp_path):
    users = [f"{a}_{b}" for a in FIRST for b in LAST]
    random.Random(16).shuffle(users)
    lines, shadow = [], []
    for k, user in enumerate(users):
        shell = "/opt/bin/ksh93x" if k == 61 else "/bin/sh"
        lines.append(f"{user}:x:{3000 + k}:{os.getgid()}:{user}:/srv/none/{user}:{shell}")  # a group pwck finds
        if k != 88:  # one user without a shadow entry
            shadow.append(f"{user}:*:19500:0:99999:7:::")
    (tmp_path / "passwd").write_text("\n".join(lines) + "\n")
    (tmp_path / "shadow").write_text("\n".join(shadow) + "\n")
    text = subprocess.run(["pwck", "-r", "passwd", "shadow"], cwd=tmp_path, capture_output=True, text=True,
                          check=False).stdout  # pwck exits 2 when it found problems
    assert text.count("does not exist") > 100
    # Asked without a word of the answers: only their shapes set them apart.
    out = tool_round("pwck -r passwd shadow", text, "Anything odd besides the missing home directories?")
    assert len(out) < 0.7 * len(text)
    assert f"user '{users[61]}': program '/opt/bin/ksh93x' does not exist" in out
    assert f"add user '{users[88]}' in shadow? No" in out


def test_rare_shapes_need_a_dominant_one():
    listing = [f"{k:04d} carton {w} shelved" for k, w in enumerate(["oak", "elm", "ash"] * 20)]
    listing[30] = "0030 carton returned to sender: damaged"
    assert rare_shape_lines(listing) == {30}
    config = [f"{name} = {value}" for name, value in (("port", "8080"), ("host", "'a.b'"), ("tls", "[on]"))] * 3
    assert rare_shape_lines(config) == set()  # no shape holds the text: nothing is rare


def _hex(k: int) -> str:
    return hashlib.sha1(str(k).encode()).hexdigest()


def test_a_drifted_submodule_stands_out_in_its_hash_column():
    names = [f"third_party/{a}-{b}" for a in ("quick", "slim", "tidy", "bold", "keen") for b in ("sort", "hash", "zip", "ini", "url", "csv", "log", "b64")]
    rows = [f" {_hex(k)} {name} (v{k % 4}.{k % 7}.{k % 3})" for k, name in enumerate(names)]
    rows[17] = "+" + rows[17][1:]
    rows[29] = f" {_hex(29)} {names[29]}/vendor/inner-url (v1.0.2)"
    out = tool_round("git submodule status --recursive", "\n".join(rows) + "\n",
                     "Which checkout is not at the commit the superproject records?")
    assert rows[17] in out
    out = tool_round("git submodule status --recursive", "\n".join(rows) + "\n", "Which module is nested inside another?")
    assert "inner-url" in out
    hashes = tuple(r.split()[0] for r in rows)
    assert 17 in odd_shape_rows([hashes], len(rows), 10)


def _suite(tmp_path) -> tuple[dict[str, str], dict[str, str]]:
    """Test modules under a package tree; the class of each method test and each module's
    one test outside a class (the test's record)."""
    rng = random.Random(160)
    verbs = ["folds", "splits", "pads", "trims", "ranks", "packs", "seals", "skips"]
    nouns = ["crates", "labels", "pallets", "routes", "manifests", "stamps", "tariffs", "docks"]
    classes, loose = {}, {}
    for area in ("intake", "outbound", "returns"):
        pkg = tmp_path / "depot" / "tests" / area
        pkg.mkdir(parents=True)
        for m in range(4):
            body, module = [], f"test_{area}_{nouns[m]}.py"
            free = f"test_{rng.choice(verbs)}_{area}_{m}_free"
            body.append(f"def {free}():\n    pass\n")
            loose[module] = free
            for c in range(3):
                cls = f"Test{area.title()}{nouns[m].title()}{c}"
                body.append(f"class {cls}:")
                for t in range(5):
                    name = f"test_{verbs[(m + c + t) % 8]}_{nouns[(c + t) % 8]}_{area}_{m}{c}{t}"
                    classes[name] = cls
                    body.append(f"    def {name}(self):\n        pass\n")
            (pkg / module).write_text("\n".join(body) + "\n")
    return classes, loose


def test_pytest_collect_only_names_the_class_and_the_loose_test(tmp_path):
    classes, loose = _suite(tmp_path)
    run = subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-p", "no:cacheprovider", "-p", "no:randomly",
                          "depot"], cwd=tmp_path, capture_output=True, text=True, check=False)
    text = run.stdout
    assert "<Class " in text and len(text.splitlines()) > 200, text[-2000:]
    asked = sorted(classes)[97]
    out = tool_round("pytest --collect-only depot", text, f"Which class is {asked} defined in?")
    assert f"<Function {asked}>" in out and f"<Class {classes[asked]}>" in out
    module = sorted(loose)[7]
    out = tool_round("pytest --collect-only depot", text, f"Which test of {module} is not inside a class?")
    assert f"<Function {loose[module]}>" in out


def test_indent_family_reads_ancestors_and_children():
    tree = ["<Root>", "  <A>", "    <a1>", "    <a2>", "      <deep>", "  <B>", "    <b1>"]
    assert indent_family(tree, {4}) == {0, 1, 3}
    assert indent_family(tree, {1}) == {0, 2, 3}
    assert indent_family(tree, {0, 1, 2, 3, 4}) == set()  # a word on many lines names no node


def _branchy_repo(tmp_path) -> tuple[object, dict[str, str]]:
    """A trunk and topics forked at known trunk commits; each topic's first own subject."""
    repo = tmp_path / "yard"
    repo.mkdir()
    _git(repo, "init", "-q", "-b", "trunk")
    first: dict[str, str] = {}

    def commit(subject: str) -> None:
        (repo / "f.txt").write_text(subject)
        _git(repo, "add", "f.txt")
        _git(repo, "commit", "-q", "-m", subject)

    for k in range(6):
        commit(f"trunk: lay sleeper {k}")
    for t, topic in enumerate(("topic/ballast", "topic/signals", "topic/points", "topic/culverts")):
        _git(repo, "checkout", "-q", "-b", topic, "trunk")
        for k in range(5 + t):
            subject = f"{topic.split('/')[1]}: step {k} of {t}"
            first.setdefault(topic, subject)
            commit(subject)
        _git(repo, "checkout", "-q", "trunk")
        commit(f"trunk: inspect span {t}")
    return repo, first


def test_show_branch_keeps_where_each_topic_starts(tmp_path):
    repo, first = _branchy_repo(tmp_path)
    text = _git(repo, "show-branch", "trunk", *first)
    assert mark_run_ends(text.split("\n"))
    for topic, subject in first.items():
        out = tool_round(f"git show-branch trunk {' '.join(first)}", text, f"What is the oldest commit on {topic}?")
        assert subject in out, (topic, out)


def test_mark_runs_need_a_matrix():
    bullets = [f"- item {k}" for k in range(30)]
    assert mark_run_ends(bullets) == set()  # one column of bullets is a list, not a matrix


ODD_VERBS = ["CREATE", "TRUNCATE", "PRUNE", "FREEZE", "CLEANUP", "VISIBLE", "SPLIT_L", "SPLIT_R", "DEDUP",
             "VACUUM", "NEWROOT", "UNLINK", "REUSE", "MARK", "SWITCH", "BACKUP", "RESTORE", "ROTATE", "SEAL",
             "SHRINK", "EXTEND", "TOUCH", "FLUSH", "DROP", "RENAME", "SYNC", "COPY"]


def _wal_like(rng: random.Random) -> tuple[str, int, int]:
    """pg_waldump-shaped rows: commits and inserts, one row lock, one aborted insert."""
    rows, lsn = [], 0x2A00000
    locked = aborted = 0
    for k in range(240):
        tx = 2000 + k
        rel = 24000 + 5 * k
        kind = "LOCK off 3: xid {tx}: flags 0x00 LOCK_ONLY EXCL_LOCK" if k == 131 else "INSERT off 4 flags 0x00"
        rows.append(f"rmgr: Heap        len (rec/tot):     54/   166, tx:       {tx}, lsn: 0/{lsn:08X}, "
                    f"prev 0/{lsn - 0xA8:08X}, desc: {kind.format(tx=tx)}, blkref #0: rel 1663/5/{rel} blk 0")
        lsn += 0xA8
        end = "ABORT 2026-11-30 09:12:44.120000 UTC" if k == 77 else "COMMIT 2026-11-30 09:12:44.120000 UTC"
        rows.append(f"rmgr: Transaction len (rec/tot):     34/    34, tx:       {tx}, lsn: 0/{lsn:08X}, "
                    f"prev 0/{lsn - 0xA8:08X}, desc: {end}")
        lsn += 0x28
        if k % 9 == 4 or k in (40, 41, 42):  # other records: many rare ones, and lock records of a table
            verb = ODD_VERBS[k // 9 % len(ODD_VERBS)]
            desc = f"LOCK xid {tx} db 5 rel {rel + 2}" if k in (40, 41, 42) else f"{verb} base/5/{rel + 1}"
            rmgr = "Standby" if k in (40, 41, 42) else verb.title()[:7]
            rows.append(f"rmgr: {rmgr:<11} len (rec/tot):     42/    42, tx:       {tx}, lsn: 0/{lsn:08X}, "
                        f"prev 0/{lsn - 0x28:08X}, desc: {desc}")
            lsn += 0x30
        if k == 131:
            locked = rel
        if k == 77:
            aborted = rel
    return "\n".join(rows) + "\n", locked, aborted


def test_a_question_word_inside_a_cell_names_its_rows_and_their_id_mates():
    text, locked, aborted = _wal_like(random.Random(1))
    out = tool_round("pg_waldump 000000010000000000000002", text, "Which relation had a row locked? Its filenode.")
    assert f"1663/5/{locked} " in out
    out = tool_round("pg_waldump 000000010000000000000002", text, "Which relfilenode got the insert of the rolled-back, aborted transaction?")
    assert f"1663/5/{aborted} " in out
