"""Reused compression threads: a finished worker takes the next call, an overdue one
does not, and an idle worker holds nothing of the call it ran."""

from __future__ import annotations

import gc
import threading
import time
import weakref

import pytest

from headroom.transforms import deadline


@pytest.fixture(autouse=True)
def _no_stragglers():
    """Earlier tests leave stuck calls running on; past the cap they refuse new calls."""
    t0 = time.monotonic()
    while deadline.stragglers() and time.monotonic() - t0 < 15:
        time.sleep(0.02)


def _thread_name() -> tuple[str, int]:
    return threading.current_thread().name, threading.get_ident()


def test_a_finished_worker_runs_the_next_call():
    first = deadline.run_with_deadline(lambda _: _thread_name(), None, 2000)
    time.sleep(0.05)  # the worker files itself as idle right after the call returns
    second = deadline.run_with_deadline(lambda _: _thread_name(), None, 2000)
    assert first[0] == "headroom-compress"
    assert second[1] == first[1]
    assert first[1] != threading.get_ident()  # never the caller's thread


def test_an_overdue_call_keeps_its_thread_and_the_next_call_gets_another():
    release = threading.Event()
    slow = deadline.run_with_deadline(lambda _: release.wait(5) and _thread_name(), None, 30)
    assert isinstance(slow, str) and slow.startswith("timed out")
    try:
        quick = deadline.run_with_deadline(lambda _: _thread_name(), None, 2000)
        assert isinstance(quick, tuple)  # answered at once, not queued behind the straggler
    finally:
        release.set()
    t0 = time.monotonic()
    while deadline.stragglers() and time.monotonic() - t0 < 5:
        time.sleep(0.01)
    assert deadline.stragglers() == 0


def test_an_idle_worker_does_not_keep_the_last_input_alive():
    class Big:
        pass

    big = Big()
    ref = weakref.ref(big)
    assert deadline.run_with_deadline(lambda x: type(x).__name__, big, 2000) == "Big"
    del big
    time.sleep(0.05)
    gc.collect()
    assert ref() is None


def test_idle_workers_are_capped():
    barrier = threading.Barrier(deadline.MAX_IDLE + 3)
    threads = [threading.Thread(target=deadline.run_with_deadline, args=(lambda _: barrier.wait(5), None, 5000))
               for _ in range(deadline.MAX_IDLE + 2)]
    for t in threads:
        t.start()
    barrier.wait(5)
    for t in threads:
        t.join(5)
    time.sleep(0.1)
    assert len(deadline._idle) <= deadline.MAX_IDLE
