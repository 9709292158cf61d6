"""Rows of single-blank separated fields are a table, not a log (issue 33, eighth session).

``ssh-keygen -l`` over a key list and ``stat -t`` print one row per item, the same number of
fields on each, no header and no aligned gutters. The timestamp-less log reading (a few
leading words on most lines) folded them into templates with counts, so the one RSA key
among ED25519 ones left view. They are read as a table now (``tables/fields.py``): rare
values, named rows and extremes stay. Also: a run of colon-separated hex pairs (an MD5
fingerprint, a MAC address) holds no clock time.

Real programs print the rows where they are installed; what must stay is read off their
output by a plain split, never by the compressor.
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from headroom.compressors import detect as D
from headroom.compressors.detect import ContentType, detect
from headroom.compressors.tables.fields import Fields

from .tool_rounds import tool_round


def _keys(tmp_path, n_ed25519: int, rsa_at: int) -> str:
    """``n_ed25519`` public keys and one RSA key (at position ``rsa_at``) in one file."""
    lines = []
    for k in range(n_ed25519 + 1):
        kind, bits = ("rsa", ["-b", "1024"]) if k == rsa_at else ("ed25519", [])
        path = tmp_path / f"k{k}"
        subprocess.run(["ssh-keygen", "-q", "-t", kind, *bits, "-N", "", "-C", f"user{k}@host-{k:02d}", "-f", str(path)],
                       check=True, capture_output=True)
        lines.append((path.with_suffix(".pub")).read_text().strip())
    keys = tmp_path / "authorized_keys"
    keys.write_text("\n".join(lines) + "\n")
    return str(keys)


@pytest.mark.skipif(shutil.which("ssh-keygen") is None, reason="ssh-keygen is not installed")
@pytest.mark.parametrize("hash_kind", ["sha256", "md5"])
def test_the_one_rsa_key_among_ed25519_ones_stays(tmp_path, hash_kind):
    keys = _keys(tmp_path, 30, rsa_at=17)
    out = subprocess.run(["ssh-keygen", "-l", "-E", hash_kind, "-f", keys], capture_output=True, text=True,
                         check=True).stdout
    d = detect(out)
    assert d.type is ContentType.TABLE and isinstance(d.hint, Fields)
    rsa = next(ln for ln in out.splitlines() if ln.endswith("(RSA)"))
    got = tool_round(f"ssh-keygen -l -E {hash_kind} -f authorized_keys", out, "Which of these keys uses the older algorithm?")
    assert got != out
    assert rsa in got
    # a key the question names by its comment
    named = next(ln for ln in out.splitlines() if "user9@host-09" in ln)
    assert named in tool_round("ssh-keygen -l -f authorized_keys", out, "What is the fingerprint of user9@host-09's key?")


@pytest.mark.skipif(shutil.which("stat") is None, reason="stat is not installed")
def test_stat_terse_keeps_the_one_file_with_several_links(tmp_path):
    rng = random.Random(4)
    names = [f"job-{rng.randrange(10**4):04d}.dat" for _ in range(40)]
    for n in dict.fromkeys(names):
        (tmp_path / n).write_text("x" * rng.randrange(100, 5000))
    first = sorted(set(names))[20]
    os.link(tmp_path / first, tmp_path / "job-linked.dat")
    files = sorted(p.name for p in tmp_path.iterdir())
    out = subprocess.run(["stat", "-t", *files], cwd=tmp_path, capture_output=True, text=True, check=True).stdout
    assert isinstance(detect(out).hint, Fields)
    linked = [ln for ln in out.splitlines() if ln.split()[8] == "2"]  # the hard-link count, by stat's own order
    got = tool_round("stat -t job-*", out, "Give me an overview of the spool files.")
    assert got != out
    for ln in linked:
        assert ln in got


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(0, 255), min_size=16, max_size=16))
def test_hex_pairs_hold_no_clock_time(pairs):
    fingerprint = ":".join(f"{b:02x}" for b in pairs)
    assert D._LOG_MARK.search(f"256 MD5:{fingerprint} ops@bastion (ED25519)", 0, D._LOG_MARK_SPAN) is None
    assert D._ANY_MARK.search(f"256 MD5:{fingerprint} ops@bastion (ED25519)") is None


def test_a_clock_time_still_marks_a_log_line():
    assert D._LOG_MARK.search("Nov 29 12:00:01 host sshd[42]: Accepted key", 0, D._LOG_MARK_SPAN)
    assert D._ANY_MARK.search("worker 3 done at 12:00:01.250")


def test_one_split_answers_both_readings():
    """Detection splits the sample once (fields.infer_both): the plain answer and the
    tail answer are each what infer gives."""
    from headroom.compressors.tables.fields import Fields, infer, infer_both

    even = [f"{n} SHA256:{n:04x}abcd user{n}@host (ED25519)" for n in range(20)]
    tailed = [f"name{n} function {10 * n} src/f{n}.c {'x ' * (n % 4)}int f{n}(void)" for n in range(20)]
    prose = ["This is a sentence of some words."] * 20
    for lines in (even, tailed, prose, even[:5]):
        plain, with_tail = infer_both(lines)
        assert plain == infer(lines)
        assert with_tail() == infer(lines, tail=True)
    assert infer_both(even)[0] == Fields(4, False)
    assert infer_both(tailed)[0] is None and infer_both(tailed)[1]() is not None
