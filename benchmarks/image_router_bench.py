"""Image router latency on CPU: one question at a time, after load, no embedding cache.

    .venv/bin/python benchmarks/image_router_bench.py [--n 200] [--device cpu]

Questions are the held-out split's (each distinct), routed one by one as the pipeline
does; every call runs MiniLM (the router embeds with a direct forward pass, no cache).
On a shared 2-core machine, ``--threads 1`` avoids oversubscription.
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=200)
    ap.add_argument("--device", default="cpu")
    ap.add_argument("--threads", type=int, default=0, help="torch threads (0 = torch default)")
    args = ap.parse_args()

    t0 = time.perf_counter()
    import torch

    if args.threads:
        torch.set_num_threads(args.threads)
    from headroom.image.router import ImageRouter
    from training.image_router.dataset import read_split

    queries, labels = read_split(ROOT / "training/image_router/data", "test")
    router = ImageRouter(device=args.device)
    router.route("warm up: what animal is this?")
    load_s = time.perf_counter() - t0

    times, correct = [], 0
    for q, y in zip(queries[: args.n], labels[: args.n]):
        t = time.perf_counter()
        d = router.route(q)
        times.append((time.perf_counter() - t) * 1000)
        correct += d.predicted == y
    times.sort()
    print(f"device={args.device} torch_threads={torch.get_num_threads()} queries={len(times)}")
    print(f"load (imports + MiniLM + head + first call): {load_s:.1f} s")
    print(f"latency per query: p50 {statistics.median(times):.1f} ms, p95 {times[int(0.95 * (len(times) - 1))]:.1f} ms, "
          f"max {times[-1]:.1f} ms")
    print(f"accuracy on these queries (head, no floor): {correct / len(times):.3f}")


if __name__ == "__main__":
    main()
