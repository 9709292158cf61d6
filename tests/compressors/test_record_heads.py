"""A kept line brings what names its record; rare values among a few usual ones stay
(issue 33, ninth session: round 7's misses, read by class).

- A debugger's thread backtraces are blank-line separated records, each a ``Thread N
  (... "name"):`` head over ``#k`` frame lines. The log compressor kept the one frame that
  says what a thread does (``accept``, a spin loop) and folded the heads, all alike but for
  their names, into one template: the model saw what happened, not which thread.
- ``/usr/bin/time -v`` over several commands prints records of ~23 fields, each opening on
  ``Command being timed:``, no blank line between them. The whole-line selector kept the
  asked ``Elapsed`` lines, not the opening line that says which command they timed.
- ``pmap -x``'s Mode column holds a few usual values (r----, r-x--, rw---), none of them on
  half the rows, and one ``rw-s-``: the shared writable map left view.
- A question's stem matches where a word starts: "read" names ``read.c`` and
  ``libc_read``, not every ``Thread``.
"""

from __future__ import annotations

import mmap
import os
import random
import shutil
import subprocess
import sys
import textwrap

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from headroom.compressors.tables.select import rare_value_rows
from headroom.compressors.text_records import record_heads, record_openers

from .tool_rounds import tool_round

_FRAMES_WAIT = [
    ("__futex_abstimed_wait_common64 (private=0, cancel=true, abstime=0x0, op=393, expected=0, "
     "futex_word=0x55e3e760d148 <queue_ready+40>) at ./nptl/futex-internal.c:57"),
    ("0x00007efc54f9b5d8 in __pthread_cond_wait_common (abstime=0x0, clockid=0, mutex=0x55e3e760d0e0 "
     "<queue_lock>, cond=0x55e3e760d120 <queue_ready>) at ./nptl/pthread_cond_wait.c:503"),
    "0x000055e3e760a2ab in pool_worker (arg=0x{a:x}) at /srv/app/pool.c:23",
    "0x00007efc54f9c1f5 in start_thread (arg=<optimized out>) at ./nptl/pthread_create.c:442",
    "0x00007efc5501c8ec in clone3 () at ../sysdeps/unix/sysv/linux/x86_64/clone3.S:81",
]


def _backtraces(names: list[str], odd: dict[str, list[str]]) -> str:
    """gdb's ``thread apply all bt`` shape: every thread a pool worker but the odd ones."""
    blocks = []
    for k, name in enumerate(names):
        frames = odd.get(name) or [f.format(a=k) for f in _FRAMES_WAIT]
        head = f'Thread {len(names) - k} (Thread 0x7efc{k:04x}26c0 (LWP {24800 + k}) "{name}"):'
        blocks.append("\n".join([head, *(f"#{i:<2} {f}" for i, f in enumerate(frames))]))
    return "\n\n".join(blocks) + "\n"


@pytest.mark.parametrize("seed", range(4))
def test_a_kept_frame_brings_its_thread_head(seed):
    rng = random.Random(seed)
    names = [f"{rng.choice(['svc', 'wrk', 'io'])}-{n}" for n in range(24)]
    acceptor, spinner = rng.sample(names, 2)
    odd = {acceptor: ["0x00007efc5501d72f in __libc_accept (fd=5, addr=..., len=0x0) at accept.c:26",
                      "0x000055e3e760a34b in acceptor (arg=0xa) at /srv/app/net.c:34",
                      "0x00007efc5501c8ec in clone3 () at clone3.S:81"],
           spinner: ["0x000055e3e760a4ba in spin_until_ready (arg=0x7) at /srv/app/spin.c:66",
                     "0x00007efc5501c8ec in clone3 () at clone3.S:81"]}
    text = _backtraces(names, odd)
    got = tool_round("gdb -p 24800 -batch -ex 'thread apply all bt'", text, "Which thread is waiting in accept()?")
    assert got != text
    assert f'"{acceptor}"):' in got and "acceptor (arg=0xa)" in got


def test_heads_are_words_not_ids():
    """Blocks opening on a hash (``git blame --porcelain`` after blank source lines) have no head."""
    text = "\n\n".join(f"{'%040x' % (k % 2)} {k} {k} 1\n\tline {k}" for k in range(8))
    raw = text.split("\n")
    assert record_heads(raw, [i for i, ln in enumerate(raw) if ln.startswith("\t")]) == set()
    text = "\n\n".join(f"Worker {k}:\n  state: idle\n  queue: {k}" for k in range(8))
    raw = text.split("\n")
    assert record_heads(raw, [raw.index("  queue: 5")]) == {raw.index("Worker 5:")}


def test_a_stem_names_lines_where_a_word_starts():
    rows = [f'  {k:<4} Thread 0x7efc{k:04x}6c0 (LWP {24800 + k}) "svc-{k}"   ' + _FRAMES_WAIT[0] for k in range(2, 30)]
    reader = 17
    rows[reader] = (f'  {reader + 2:<4} Thread 0x7efc50f06c0 (LWP 24819) "svc-{reader + 2}"   '
                    "__GI___libc_read (nbytes=256, buf=0x7efc50705dc0, fd=3) at ../sysdeps/unix/sysv/linux/read.c:26")
    text = "  Id   Target Id                                   Frame \n" + "\n".join(rows) + "\n"
    got = tool_round("gdb -batch -ex 'info threads'", text, "Which thread is stuck in read()?")
    assert got != text
    assert f'"svc-{reader + 2}"' in got


@pytest.mark.skipif(not os.path.exists("/usr/bin/time"), reason="GNU time is not installed")
def test_time_verbose_records_keep_their_command(tmp_path):
    cmds = ["true", "sleep 0.35", "ls /", "sleep 0.05", "echo x", "true"]
    out = []
    for c in cmds:
        r = subprocess.run(["/usr/bin/time", "-v", *c.split()], check=False, capture_output=True, text=True, cwd=tmp_path,
                           env={**os.environ, "LC_ALL": "C"})
        out.append(r.stderr)
    text = "".join(out)
    assert text.count("Command being timed:") == len(cmds)
    got = tool_round("for c in ...; do /usr/bin/time -v $c; done", text,
                     "Which command took the longest wall clock time?")
    assert got != text
    assert 'Command being timed: "sleep 0.35"' in got


def test_record_openers_only_for_records_opening_on_the_first_field():
    raw = [f"\t{name}: {k}" for k in range(5) for name in ("Command", "User time", "Elapsed", "Exit status")]
    keep = [ln.startswith("\tElapsed") and ln.endswith(" 3") for ln in raw]
    assert record_openers(raw, keep) == {raw.index("\tCommand: 3")}
    raw = ["summary line", *raw]  # a text whose first line is no field: no records to name
    assert record_openers(raw, [False, *keep]) == set()


@pytest.mark.skipif(shutil.which("pmap") is None or not os.path.exists("/proc/self/maps"), reason="no pmap")
def test_pmap_keeps_the_shared_writable_map(tmp_path):
    ledger = tmp_path / "ledger.idx"
    ledger.write_bytes(b"\0" * (3 * mmap.PAGESIZE))
    script = textwrap.dedent(f"""
        import mmap, sys, time
        f = open({str(ledger)!r}, "r+b")
        m = mmap.mmap(f.fileno(), 0, flags=mmap.MAP_SHARED, prot=mmap.PROT_READ | mmap.PROT_WRITE)
        m[0] = 1
        sys.stdout.write("ready\\n"); sys.stdout.flush()
        time.sleep(30)
    """)
    child = subprocess.Popen([sys.executable, "-S", "-c", script], stdout=subprocess.PIPE, text=True)
    try:
        assert child.stdout.readline() == "ready\n"
        out = subprocess.run(["pmap", "-x", str(child.pid)], capture_output=True, text=True, check=True).stdout
    finally:
        child.kill()
        child.wait()
    assert sum(" rw-s- " in ln for ln in out.splitlines()) == 1  # the shape this test is about
    got = tool_round(f"pmap -x {child.pid}", out, "Which file is mapped shared and writable?")
    assert got != out
    assert "ledger.idx" in got


@settings(max_examples=60, deadline=None)
@given(usual=st.lists(st.integers(8, 30), min_size=2, max_size=5),
       rare=st.lists(st.integers(1, 2), min_size=1, max_size=3),
       seed=st.integers(0, 10**6))
def test_rare_values_among_a_few_usual_ones(usual, rare, seed):
    """Whatever the values are called and in whatever order the rows come, a value held by
    one or two rows among a few usual, repeated values is kept, while no usual row is."""
    cells = [f"v{k}" for k, c in enumerate(usual) for _ in range(c)]
    cells += [f"odd{k}" for k, c in enumerate(rare) for _ in range(c)]
    n = len(cells)
    random.Random(seed).shuffle(cells)
    top = max(usual)
    kept = rare_value_rows([tuple(cells)], n)
    rare_rows = [i for i, v in enumerate(cells) if v.startswith("odd")]
    eligible = n >= 4 * (len(usual) + len(rare)) and top * 2 < n and top >= 4 and 8 * len(rare_rows) <= n
    if n >= 20 and (top * 2 >= n or eligible):
        assert set(rare_rows) <= set(kept)
    assert all(cells[i].startswith("odd") or usual[int(cells[i][1:])] <= 5 for i in kept)
