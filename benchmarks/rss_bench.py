"""Proxy memory after many large requests: does RSS keep growing? (issue 12)

Starts the loopback fake provider and `headroom proxy` as subprocesses (helpers from
proxy_bench.py), sends ten different ~5 MB Chat Completions bodies one after another,
and prints the proxy's RSS after each. Target: RSS after the 10th within 1.2x of RSS
after the 1st.

    .venv/bin/python benchmarks/rss_bench.py            # 10 requests
    .venv/bin/python benchmarks/rss_bench.py --n 20
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import httpx

sys.path.insert(0, str(Path(__file__).resolve().parent))
from proxy_bench import body_with, rss_kb, running_proxy

TARGET = 1.2


def rows_for(size: int) -> int:
    lo, hi = 1, 2
    while len(json.dumps(body_with(hi, "size"))) < size:
        lo, hi = hi, hi * 2
    while hi - lo > 1:
        mid = (lo + hi) // 2
        lo, hi = (mid, hi) if len(json.dumps(body_with(mid, "size"))) < size else (lo, mid)
    return hi


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=10)
    ap.add_argument("--mb", type=float, default=5.0)
    args = ap.parse_args()
    n_rows = rows_for(int(args.mb * 1024 * 1024))
    rss: list[int] = []
    with running_proxy(max_stop_s=10) as (_, url, proxy):
        with httpx.Client(timeout=300) as client:
            for i in range(args.n):
                body = json.dumps(body_with(n_rows, f"run-{i}-{time.time_ns()}")).encode()
                r = client.post(f"{url}/v1/chat/completions", content=body,
                                headers={"content-type": "application/json"})
                r.raise_for_status()
                del body
                time.sleep(0.5)  # let the metrics writer and the memo settle
                rss.append(rss_kb(proxy.pid)[0])
                print(f"request {i + 1:2d}: {len(r.content)} bytes answered, compression "
                      f"{r.headers.get('x-headroom-compression-ms')} ms, proxy RSS {rss[-1] / 1024:.1f} MB",
                      flush=True)
    ratio = rss[-1] / rss[0]
    print(f"{args.n} x {args.mb:g} MB: RSS after the first {rss[0] / 1024:.1f} MB, after the last "
          f"{rss[-1] / 1024:.1f} MB, max {max(rss) / 1024:.1f} MB; last/first = {ratio:.2f} "
          f"({'within' if ratio <= TARGET else 'OVER'} the {TARGET}x target)")
    return 0 if ratio <= TARGET else 1


if __name__ == "__main__":
    raise SystemExit(main())
