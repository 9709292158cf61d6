"""Records headed by an unindented line over indented ones, separated by blank lines, with
no time on their heads (a JVM thread dump: each thread's name and state over its frames)
are selected line by line, not read as a log (issue 33, seventh session).

Their frame lines looked like a log's stack traces: the log compressor kept frames and
folded the heads into a template, so the model saw frames of threads it could not name.
Where such a dump sits inside a log, a kept run of frames keeps the head above it.
"""

from __future__ import annotations

import random
import shutil
import subprocess
import time

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from headroom.compressors.detect import ContentType, detect
from headroom.compressors.logs import _trace_spans

from .tool_rounds import tool_round

WORD = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=4, max_size=9)

_PROBE = """
public class Probe {
    static final Object LOCK = new Object();
    public static void main(String[] a) throws Exception {
        Thread holder = new Thread(() -> { synchronized (LOCK) { try { Thread.sleep(60000); } catch (InterruptedException e) {} } }, "lock-holder");
        holder.start();
        Thread.sleep(200);
        new Thread(() -> { synchronized (LOCK) { } }, "queue-drainer").start();
        for (int i = 0; i < 6; i++) {
            new Thread(() -> { try { Thread.sleep(60000); } catch (InterruptedException e) {} }, "idle-" + i).start();
        }
        System.out.println("ready");
        System.out.flush();
        Thread.sleep(60000);
    }
}
"""


def _thread_dump(tmp_path) -> str:
    if shutil.which("java") is None or shutil.which("jstack") is None:
        pytest.skip("needs a JDK (java, jstack)")
    src = tmp_path / "Probe.java"
    src.write_text(_PROBE)
    proc = subprocess.Popen(["java", str(src)], stdout=subprocess.PIPE, text=True, cwd=tmp_path)
    try:
        if proc.stdout is None or proc.stdout.readline().strip() != "ready":
            pytest.skip("the JVM did not start the probe")
        time.sleep(0.5)
        dump = subprocess.run(["jstack", str(proc.pid)], capture_output=True, text=True, timeout=60, check=False)
    finally:
        proc.kill()
        proc.wait(timeout=30)
    if '"queue-drainer"' not in dump.stdout:
        pytest.skip("jstack printed no dump here")
    return dump.stdout


@pytest.mark.slow
def test_real_thread_dump_keeps_the_blocked_thread_s_name(tmp_path):
    dump = _thread_dump(tmp_path)
    assert detect(dump).type is not ContentType.LOG
    blocks = dump.split("\n\n")
    # Read off the dump by a plain split: the thread whose head says it waits for a monitor.
    head = next(b.splitlines()[0] for b in blocks if "waiting for monitor entry" in b.splitlines()[0])
    kept = tool_round("jstack 4242", dump, "Which thread is stuck waiting to enter a monitor?")
    assert len(kept) < len(dump)
    assert head in kept.splitlines()
    # Inside a log (a dump printed on SIGQUIT amid timestamped lines), every kept run of
    # frames keeps its thread's head.
    log = [f"2026-11-29 10:{k // 60:02d}:{k % 60:02d} INFO request {k} served in {k % 17} ms" for k in range(120)]
    lines = log[:60] + dump.splitlines() + log[60:]
    starts = [lines[s] for s, _ in _trace_spans(lines)]
    assert starts and not [s for s in starts if s.lstrip().startswith("java.lang.Thread.State")]


@settings(max_examples=40, deadline=None)
@given(names=st.lists(WORD, min_size=6, max_size=20, unique=True), depth=st.integers(2, 9),
       seed=st.integers(0, 10_000))
def test_headed_records_of_opaque_names_are_no_log(names, depth, seed):
    """Whatever the heads and their lines say: blank-line separated records, each an
    unindented head over indented lines, no time on the heads."""
    rng = random.Random(seed)
    blocks = []
    for k, name in enumerate(names):
        body = [f"   {rng.choice(names)}.state: {rng.choice(['A', 'B', 'C'])}"]
        body += [f"\tat {rng.choice(names)}.{rng.choice(names)}({name}.x:{rng.randint(1, 999)})" for _ in range(depth)]
        blocks.append("\n".join([f'"{name}" #{k} prio={rng.randint(1, 10)}', *body]))
    text = "\n\n".join(blocks)
    assert detect(text).type is not ContentType.LOG


def test_a_log_whose_records_carry_times_stays_a_log():
    """The same shape with a time on each head is a log (events with their traces)."""
    blocks = []
    for k in range(12):
        blocks.append("\n".join([f"2026-11-29 10:00:{k:02d} ERROR worker {k} failed: boom {k}",
                                 *[f"\tat pkg.Mod{j}.run(Mod{j}.java:{j + k})" for j in range(5)]]))
    assert detect("\n\n".join(blocks)).type is ContentType.LOG


def test_frames_under_an_indented_state_line_start_at_the_head():
    lines = ["2026-11-29 10:00:00 INFO up",
             '"worker-7" #7 prio=5 waiting for monitor entry',
             "   java.lang.Thread.State: BLOCKED (on object monitor)",
             "\tat pkg.A.run(A.java:3)",
             "\tat pkg.B.run(B.java:4)",
             "",
             "2026-11-29 10:00:01 INFO down"]
    assert _trace_spans(lines) == [(1, 4)]
    # An exception line right above the frames is the trace's start, as before.
    exc = ["2026-11-29 10:00:00 ERROR x", "java.lang.IllegalStateException: boom", "\tat a.B.c(B.java:1)",
           "\tat a.B.d(B.java:2)"]
    assert _trace_spans(exc) == [(1, 3)]


def test_functions_over_their_bodies_stay_code():
    """Top-level functions with no blank line inside have the same shape; their heads are
    code lines, so the text is still code."""
    src = "\n\n".join(f"def step_{k}(x):\n    y = x + {k}\n    return y" for k in range(12))
    assert detect(src).type is ContentType.CODE
