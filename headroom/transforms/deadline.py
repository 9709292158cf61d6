"""Running one compressor call under a deadline that slow calls cannot steal from others.

Python cannot stop a running thread, so a compressor that overruns its deadline keeps
running. With a shared pool of 4 workers, four slow blocks used to occupy every worker,
and each later block then waited its full deadline in the queue and went through
uncompressed (issue 12). Here every call runs in a thread of its own: the caller waits
at most the deadline, and an overdue call (a *straggler*) holds no worker anyone else
needs. Stragglers are counted, and past ``MAX_STRAGGLERS`` new calls are refused at
once, so hostile inputs cannot pile up threads without bound. Compressors that can stop
early read ``CompressInput.deadline`` (cooperative cancellation).

An overdue call is also *stopped* when it runs Python code: :meth:`Pending.wait` raises
:class:`DeadlineExceeded` in its thread (``PyThreadState_SetAsyncExc``), which CPython
delivers at the thread's next bytecode boundary, so a compressor spinning in a pure-Python
loop is abandoned within milliseconds instead of holding a core (and half the GIL) until
it ends. Nothing is paid on calls that finish in time. A call blocked inside one C
function (a regular expression backtracking, a tokenizer, a lock wait) stops only when
that function returns; until then it stays a straggler, counted as above. The exception
derives from BaseException, so a compressor's ``except Exception`` cannot swallow it;
``finally`` blocks and ``with`` statements still run (locks are released).

A thread whose call is done waits a while for the next call instead of exiting
(:class:`_Worker`): starting a thread costs 30-70 us on a quiet machine and, on a loaded
one, milliseconds (the caller blocks until the new thread is scheduled), which is most of
a small output's compression time. An idle worker takes no calls but the one handed to
it, so "every call has a thread of its own" still holds.
"""

from __future__ import annotations

import ctypes
import os
import queue
import threading
import time
from collections.abc import Callable
from typing import Any

# Overdue calls allowed to run on; each holds a thread and a share of the GIL.
MAX_STRAGGLERS = 8
# Finished workers kept waiting for a call, and how long one waits before it exits.
MAX_IDLE = 4
IDLE_EXIT_S = 60.0

_lock = threading.Lock()
_stragglers = 0
_idle: list[_Worker] = []


class DeadlineExceeded(BaseException):
    """Raised inside a compressor call that ran past its deadline (see the module docstring)."""


def _interrupt(thread_id: int) -> bool:
    """Ask CPython to raise DeadlineExceeded in thread ``thread_id`` at its next bytecode."""
    done = ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(thread_id), ctypes.py_object(DeadlineExceeded))
    return done == 1


class _Worker(threading.Thread):
    """Runs the calls handed to it one at a time; between calls it sits in ``_idle``."""

    def __init__(self) -> None:
        super().__init__(name="headroom-compress", daemon=True)
        self.inbox: queue.SimpleQueue[Callable[[], None]] = queue.SimpleQueue()

    def run(self) -> None:
        while True:
            try:
                job = self.inbox.get(timeout=IDLE_EXIT_S)
            except queue.Empty:
                with _lock:
                    if self in _idle:
                        _idle.remove(self)
                        return
                continue  # taken off the idle list just now: its call is on the way
            try:
                job()
            except DeadlineExceeded:
                pass  # delivered after the call's own handler (see _Call.settle): nothing to do
            del job  # an idle worker must not keep the last call's input (megabytes) alive
            with _lock:
                if len(_idle) >= MAX_IDLE:
                    return
                _idle.append(self)


def _worker() -> _Worker:
    with _lock:
        if _idle:
            return _idle.pop()
    w = _Worker()
    w.start()
    return w


# A forked child has none of its parent's threads: forget the parent's idle workers.
os.register_at_fork(after_in_child=_idle.clear)


class _Call:
    def __init__(self) -> None:
        self.done = threading.Event()
        self.finished = False
        self.overdue = False
        self.result: Any = None
        self.error: BaseException | None = None
        # The worker's thread id while fn runs (0 otherwise): only then may it be interrupted.
        self.running_in = 0
        self.interrupted = False

    def settle(self) -> None:
        """The call is over (once, whatever path got here): count it out, wake the waiter."""
        global _stragglers
        with _lock:
            self.running_in = 0
            if not self.finished:
                self.finished = True
                if self.overdue:
                    _stragglers -= 1
        self.done.set()


def stragglers() -> int:
    """Compressor calls still running past their deadline."""
    return _stragglers


class Pending:
    """A compressor call handed to its own thread, not waited for yet: the caller can do
    other work first (the router counts the input's tokens meanwhile) and then
    :meth:`wait` for the rest of the deadline, which counts from the hand-over."""

    def __init__(self, call: _Call | None, timeout_ms: float, refused: str | None = None):
        self._call = call
        self._timeout_ms = timeout_ms
        self._refused = refused
        self._start = time.monotonic()

    def wait(self) -> Any:
        """``fn(arg)``, or a reason string when it failed, timed out or could not start."""
        global _stragglers
        if self._refused is not None or self._call is None:
            return self._refused
        call, timeout_ms = self._call, self._timeout_ms
        left = max(timeout_ms, 0) / 1000 - (time.monotonic() - self._start)
        call.done.wait(max(left, 0.0))
        with _lock:
            if not call.finished:
                if not call.overdue:
                    call.overdue = True
                    _stragglers += 1
                if call.running_in and not call.interrupted:
                    # Under the lock that settle() takes first: fn has not returned yet.
                    call.interrupted = _interrupt(call.running_in)
                return f"timed out after {timeout_ms:.0f} ms"
        if call.error is not None:
            # A compressor bug must never break the request.
            return f"error: {type(call.error).__name__}: {call.error}"
        return call.result


def start_with_deadline(fn: Callable[[Any], Any], arg: Any, timeout_ms: float) -> Pending:
    """Hand ``fn(arg)`` to a thread of its own now; :meth:`Pending.wait` collects it."""
    with _lock:
        if _stragglers >= MAX_STRAGGLERS:
            return Pending(None, timeout_ms,
                           f"skipped: {_stragglers} earlier compressions are still running past their deadline")
    call = _Call()

    def work() -> None:
        try:
            try:
                with _lock:
                    call.running_in = threading.get_ident()
                    late = call.overdue  # the caller gave up before this thread even started
                if late:
                    raise DeadlineExceeded
                call.result = fn(arg)
            except DeadlineExceeded:
                call.error = TimeoutError("stopped past its deadline")
            except Exception as exc:  # noqa: BLE001 - reported to the caller as a reason
                call.error = exc
            finally:
                call.settle()
        except DeadlineExceeded:
            # The interruption landed after fn returned, before settle() cleared running_in
            # (CPython delivers it at its next check, not at once): settle once more, idempotent.
            call.settle()

    pending = Pending(call, timeout_ms)
    _worker().inbox.put(work)
    return pending


class Inline:
    """``fn(arg)`` run on the caller's thread, with :class:`Pending`'s answer: its result,
    or a reason string when it failed. For small inputs (the router's ``INLINE_CHARS``):
    their compressors finish in a few milliseconds by construction (linear passes over a
    few kilobytes), and a hand-over costs a scheduling round trip, milliseconds on a
    loaded machine, for nothing. No deadline applies: the input's size bounds the call."""

    def __init__(self, fn: Callable[[Any], Any], arg: Any):
        self._fn, self._arg = fn, arg

    def wait(self) -> Any:
        try:
            return self._fn(self._arg)
        except Exception as exc:  # noqa: BLE001 - a compressor bug must never break the request
            return f"error: {type(exc).__name__}: {exc}"


def run_with_deadline(fn: Callable[[Any], Any], arg: Any, timeout_ms: float) -> Any:
    """``fn(arg)``, or a reason string when it failed, timed out or could not start."""
    return start_with_deadline(fn, arg, timeout_ms).wait()
