"""The process's one timer thread for delayed TOIN flushes."""

from __future__ import annotations

import threading
import time

from headroom.toin import flush_timer


def _timer_threads() -> int:
    return sum(1 for t in threading.enumerate() if t.name == "headroom-flush-timer")


def test_calls_run_in_time_order_on_one_thread_and_cancelled_ones_never():
    ran: list[str] = []
    done = threading.Event()
    flush_timer.call_later(0.15, lambda: (ran.append("late"), done.set()))
    flush_timer.call_later(0.05, lambda: ran.append("early"))
    dropped = flush_timer.call_later(0.08, lambda: ran.append("cancelled"))
    dropped.cancel()
    flush_timer.call_later(0.0, lambda: 1 / 0)  # a failing call does not stop the others
    assert done.wait(5)
    assert ran == ["early", "late"]
    assert _timer_threads() == 1


def test_many_learners_share_the_thread():
    from headroom.config import ToinConfig
    from headroom.toin.backends import MemoryToinBackend
    from headroom.toin.learner import Toin

    before = threading.active_count()
    learners = [Toin(MemoryToinBackend(), ToinConfig(flush_seconds=30), flush_timer=True) for _ in range(20)]
    for t in learners:
        prof = t.profile([{"a": 1, "b": "x"}], "json_array", "read")
        t.observe_compression(prof, strategy="s", items_before=5, items_after=2, lossy=False, ccr_hash=None)
    assert threading.active_count() - before <= 1
    for t in learners:
        t.close()
    time.sleep(0)
