"""How long a worker takes to read the whole proxy's counters (/stats, /metrics) when it
asks every other worker for its live ones (headroom.proxy.shared_stats, issue 34).

N - 1 other workers run as real processes, each with a publisher and some counts; the
reading worker is this process. Prints the median and p95 of ``whole_proxy``.

    PYTHONPATH=. python benchmarks/stats_read_bench.py --workers 8 --reads 300
"""

from __future__ import annotations

import argparse
import multiprocessing as mp
import statistics
import tempfile
import time


def _worker(directory: str, name: str, ready, stop) -> None:
    from headroom.proxy.shared_stats import StatsPublisher
    from headroom.proxy.stats import ProxyStats

    stats = ProxyStats()
    for _ in range(100):
        stats.record(api="openai_chat", mode="optimize", status=200, latency_ms=3.0, tokens_before=10, tokens_after=4)
    pub = StatsPublisher(stats, directory, name=name)
    ready.set()
    stop.wait()
    pub.close()


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--workers", type=int, default=8)
    ap.add_argument("--reads", type=int, default=300)
    args = ap.parse_args()
    from headroom.proxy.shared_stats import StatsPublisher, whole_proxy
    from headroom.proxy.stats import ProxyStats

    directory = tempfile.mkdtemp(prefix="headroom-stats-")
    ctx = mp.get_context("spawn")
    stop = ctx.Event()
    procs = []
    for k in range(args.workers - 1):
        ready = ctx.Event()
        p = ctx.Process(target=_worker, args=(directory, f"w{k}", ready, stop))
        p.start()
        ready.wait(60)
        procs.append(p)
    me = StatsPublisher(ProxyStats(), directory, name="reader")
    times = []
    for _ in range(args.reads):
        t = time.perf_counter()
        merged, _, n = whole_proxy(me)
        times.append((time.perf_counter() - t) * 1000)
        assert n == args.workers and merged.lag_s == 0.0 and merged.latency.n == 100 * (args.workers - 1)
    me.close()
    stop.set()
    for p in procs:
        p.join(10)
    times.sort()
    print(f"{args.workers} workers: whole_proxy median {statistics.median(times):.2f} ms, "
          f"p95 {times[int(len(times) * 0.95)]:.2f} ms over {args.reads} reads")


if __name__ == "__main__":
    main()
