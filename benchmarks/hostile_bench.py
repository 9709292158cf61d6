"""/health latency while hostile requests run through the proxy (issue 12 target: p99 <= 100 ms).

Starts the loopback fake provider and `headroom proxy` (default configuration) as
subprocesses (helpers from proxy_bench.py). Two client threads keep sending hostile
requests — a 60 000-character run of path-like characters as the question (F1), lone
surrogates, a large log output to compress — while the main thread polls /health every
20 ms. Prints p50 / p99 / max of /health over the run. Other load on the machine adds
to every number: run it best-of-rounds.

    .venv/bin/python benchmarks/hostile_bench.py              # 300 probes
    .venv/bin/python benchmarks/hostile_bench.py --probes 500
"""

from __future__ import annotations

import argparse
import json
import sys
import threading
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from proxy_bench import pct, running_proxy

TARGET_P99_MS = 100.0
LOG = "\n".join(f"2026-11-22T04:00:{i % 60:02d} INFO worker-{i % 7} processed batch {i} in {i % 13} ms"
                for i in range(3000))


def hostile_bodies() -> list[bytes]:
    def chat(question: str, output: str) -> bytes:
        return json.dumps({"model": "gpt-4o", "messages": [
            {"role": "user", "content": question},
            {"role": "assistant", "content": None, "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "read_logs", "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": "c1", "content": output}]}).encode()

    return [chat("x.y-z_" * 10_000, LOG), chat("why \ud83d did it fail? " + "a-" * 20_000, LOG + "\udc00"),
            chat("what failed? " * 500, LOG * 3)]


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--probes", type=int, default=300)
    args = ap.parse_args()
    latencies: list[float] = []
    sent = [0]
    failures: list[str] = []
    stop = threading.Event()
    with running_proxy() as (_, url, proxy):
        bodies = hostile_bodies()

        def attack() -> None:
            with httpx.Client(timeout=120) as c:
                k = 0
                while not stop.is_set():
                    t0 = time.perf_counter()
                    try:
                        c.post(f"{url}/v1/chat/completions", content=bodies[k % len(bodies)],
                               headers={"content-type": "application/json"})
                    except httpx.HTTPError as exc:
                        failures.append(f"body {k % len(bodies)}: {type(exc).__name__} after "
                                        f"{time.perf_counter() - t0:.1f} s")
                        return
                    sent[0] += 1
                    k += 1

        attackers = [threading.Thread(target=attack, daemon=True) for _ in range(2)]
        for a in attackers:
            a.start()
        time.sleep(0.5)
        with httpx.Client(timeout=30) as probe:
            for _ in range(args.probes):
                t0 = time.perf_counter()
                probe.get(f"{url}/health").raise_for_status()
                latencies.append((time.perf_counter() - t0) * 1000)
                time.sleep(0.02)
        stop.set()
        for a in attackers:
            a.join(timeout=120)
    if failures:
        print("hostile requests that failed:", failures)
    p99 = pct(latencies, 99)
    print(f"/health while hostile requests ran ({sent[0]} hostile requests, {len(latencies)} probes): "
          f"p50 {pct(latencies, 50):.1f} ms, p99 {p99:.1f} ms, max {max(latencies):.1f} ms "
          f"({'within' if p99 <= TARGET_P99_MS else 'OVER'} the {TARGET_P99_MS:g} ms p99 target)")
    return 0 if p99 <= TARGET_P99_MS and not failures else 1


if __name__ == "__main__":
    raise SystemExit(main())
