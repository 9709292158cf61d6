"""One timer thread per process for every learner's delayed flush.

A learner writes its buffered observations within ``flush_seconds`` even when nothing
else happens (the last observations of a burst must reach the other workers). It used to
start a ``threading.Timer`` for that, a thread per flush window per learner; starting a
thread blocks the caller until the new thread is scheduled, milliseconds on a busy
machine, inside the request that happened to observe first (issue 34). Here one daemon
thread, started once, runs the due callbacks in time order.
"""

from __future__ import annotations

import heapq
import itertools
import logging
import os
import threading
import time
from collections.abc import Callable

log = logging.getLogger(__name__)


class Scheduled:
    """A pending call; :meth:`cancel` drops it if it has not run yet."""

    __slots__ = ("cancelled", "fn")

    def __init__(self, fn: Callable[[], None]):
        self.fn = fn
        self.cancelled = False

    def cancel(self) -> None:
        self.cancelled = True


class _Timers:
    def __init__(self) -> None:
        self._cond = threading.Condition()
        self._heap: list[tuple[float, int, Scheduled]] = []
        self._order = itertools.count()
        self._thread: threading.Thread | None = None

    def call_later(self, delay_s: float, fn: Callable[[], None]) -> Scheduled:
        item = Scheduled(fn)
        entry = (time.monotonic() + max(delay_s, 0.0), next(self._order), item)
        with self._cond:
            heapq.heappush(self._heap, entry)
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="headroom-flush-timer", daemon=True)
                self._thread.start()
            if self._heap[0] is entry:
                # Woken only when the new call is the next one due: otherwise the thread's
                # wait already ends earlier, and a woken thread takes the interpreter lock
                # from the request that scheduled the call (0.4 ms a call here).
                self._cond.notify()
        return item

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._heap or self._heap[0][0] > time.monotonic():
                    self._cond.wait(None if not self._heap else self._heap[0][0] - time.monotonic())
                _, _, item = heapq.heappop(self._heap)
            if not item.cancelled:
                try:
                    item.fn()
                except Exception as exc:  # noqa: BLE001 - one learner's failed flush must not stop the others'
                    log.warning("delayed flush failed: %s", type(exc).__name__)

    def _after_fork(self) -> None:
        # A forked child has none of its parent's threads; its learners schedule anew.
        self._cond = threading.Condition()
        self._heap = []
        self._thread = None


_TIMERS = _Timers()
os.register_at_fork(after_in_child=_TIMERS._after_fork)


def call_later(delay_s: float, fn: Callable[[], None]) -> Scheduled:
    """Run ``fn()`` on the process's timer thread in ``delay_s`` seconds."""
    return _TIMERS.call_later(delay_s, fn)
