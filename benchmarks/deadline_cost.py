"""What the compression deadline costs per call, and how fast an overdue CPU-bound call stops.

    python benchmarks/deadline_cost.py [--calls 20000]

- per call: ``run_with_deadline`` on a function that returns at once (thread hand-over,
  wait, and the bookkeeping that lets an overdue call be interrupted), against calling it
  directly;
- stop latency: a pure-Python loop given a 20 ms deadline; time from the deadline to the
  loop's ``finally`` running, and the loop's iterations after the deadline.
"""

from __future__ import annotations

import argparse
import statistics
import threading
import time

from headroom.transforms import deadline


def per_call(calls: int) -> tuple[float, float]:
    def fn(x: int) -> int:
        return x + 1

    t0 = time.perf_counter()
    for i in range(calls):
        fn(i)
    direct = (time.perf_counter() - t0) / calls
    for _ in range(100):  # warm: the worker thread exists and idles
        deadline.run_with_deadline(fn, 0, 5000)
    t0 = time.perf_counter()
    for i in range(calls):
        deadline.run_with_deadline(fn, i, 5000)
    return direct, (time.perf_counter() - t0) / calls


class _Spin:
    """A pure-Python loop that notes when its ``finally`` ran."""

    def __init__(self) -> None:
        self.spins = 0
        self.end = 0.0
        self.stopped = threading.Event()

    def __call__(self, _: object) -> None:
        try:
            while True:
                self.spins += 1
        finally:
            self.end = time.perf_counter()
            self.stopped.set()


def stop_latency(trials: int = 20, budget_ms: float = 20) -> tuple[list[float], list[int]]:
    latencies, extra = [], []
    for _ in range(trials):
        spin = _Spin()
        deadline.run_with_deadline(spin, None, budget_ms)
        at_deadline, gave_up = spin.spins, time.perf_counter()
        if not spin.stopped.wait(10):
            raise SystemExit("the overdue call did not stop")
        latencies.append((spin.end - gave_up) * 1000)
        extra.append(spin.spins - at_deadline)
    return latencies, extra


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--calls", type=int, default=20000)
    args = ap.parse_args()
    direct, wrapped = per_call(args.calls)
    print(f"per call: direct {direct * 1e6:.2f} us, run_with_deadline {wrapped * 1e6:.1f} us "
          f"(overhead {(wrapped - direct) * 1e6:.1f} us)")
    lat, extra = stop_latency()
    print(f"overdue pure-Python loop stopped {statistics.median(lat):.2f} ms (median), {max(lat):.2f} ms (max) "
          f"after the caller gave up; iterations after that: median {statistics.median(extra):.0f}")


if __name__ == "__main__":
    main()
