"""SmartCrusher latency and savings on 100 / 1 000 / 10 000-item JSON arrays.

Prints the median wall-clock time and the median CPU time of the process (the latter
is less disturbed when other jobs share the cores). Each timed run uses a fresh TokenCounter (so nothing is served from its cache), counts
the input first as the ContentRouter does before calling a compressor, then times
``json.loads`` + analysis + rendering inside ``compress()`` plus counting the output.

    .venv/bin/python benchmarks/smart_crusher_bench.py [--runs 7]

Datasets: metrics time series (planted spike), JSON logs (planted errors), DB rows,
API listing (nested ``{"data": [...], "meta": ...}``). Modes: ``default`` (lossless
table first, lossless_min_savings=0.3) and ``lossy`` (keep plan forced with
lossless_min_savings=1.0). ``facts`` checks that every planted fact is in the output.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import time

from headroom.config import HeadroomConfig, SmartCrusherConfig
from headroom.tokens import TokenCounter
from headroom.query.anchors import extract_anchors
from headroom.compressors.base import CompressInput
from headroom.compressors.smart_crusher import SmartCrusher


def metrics(n: int, rng: random.Random):
    items = [{"timestamp": f"2024-06-01T{(i // 3600) % 24:02d}:{(i // 60) % 60:02d}:{i % 60:02d}Z",
              "host": f"web-{i % 8}", "metric": "cpu_usage", "value": round(40 + rng.gauss(0, 3), 2),
              "unit": "percent", "series_id": f"ser-{100000 + i}"} for i in range(n)]
    items[n // 2]["value"] = 99.7
    return items, f"what is the value for ser-{100000 + n // 3}?", ["99.7", f"ser-{100000 + n // 3}"]


def json_logs(n: int, rng: random.Random):
    items = [{"time": f"2024-06-01T10:{(i // 60) % 60:02d}:{i % 60:02d}Z", "level": "INFO", "service": "checkout",
              "message": f"GET /api/cart/{rng.randint(1, 900)} 200 in {rng.randint(3, 60)}ms",
              "trace_id": f"tr-{rng.getrandbits(40):010x}"} for i in range(n)]
    items[n // 4] = {**items[n // 4], "level": "ERROR", "message": "PaymentGatewayError: upstream timeout"}
    items[3 * n // 4] = {**items[3 * n // 4], "level": "ERROR", "message": "db pool exhausted"}
    return items, "why did checkout fail?", ["PaymentGatewayError", "db pool exhausted"]


def db_rows(n: int, rng: random.Random):
    items = [{"id": 5000 + i, "email": f"user{i}@example.com", "plan": rng.choice(["free", "pro", "team"]),
              "active": True, "created_at": f"2023-{1 + i % 12:02d}-{1 + i % 28:02d}", "seats": rng.randint(1, 5)}
             for i in range(n)]
    items[n // 5]["seats"] = 4000
    return items, f"show me user{n // 7}@example.com", ["4000", f"user{n // 7}@example.com"]


def api_listing(n: int, rng: random.Random):
    data = [{"sku": f"SKU-{i:06d}", "title": f"Widget model {rng.randint(1, 50)}", "price": round(rng.uniform(5, 50), 2),
             "currency": "EUR", "in_stock": rng.random() > 0.1} for i in range(n)]
    data[n // 3]["price"] = 4999.0
    return ({"data": data, "meta": {"page": 1, "per_page": n, "total": n * 3}},
            f"price of SKU-{n // 2:06d}?", ["4999.0", f"SKU-{n // 2:06d}"])


DATASETS = {"metrics": metrics, "json_logs": json_logs, "db_rows": db_rows, "api_listing": api_listing}


def bench(name: str, n: int, mode: str, runs: int) -> dict:
    data, query, facts = DATASETS[name](n, random.Random(n))
    text = json.dumps(data)
    sc = SmartCrusherConfig() if mode == "default" else SmartCrusherConfig(lossless_min_savings=1.0)
    config = HeadroomConfig(smart_crusher=sc)
    crusher = SmartCrusher()
    times, cpu_times, result, before, after = [], [], None, 0, 0
    for _ in range(runs):
        counter = TokenCounter("gpt-4o")
        before = counter.count(text)  # the router has counted the input before calling us
        inp = CompressInput(text=text, config=config, counter=counter, query=query, anchors=extract_anchors(query))
        t0, c0 = time.perf_counter(), time.process_time()
        result = crusher.compress(inp)
        after = counter.count(result.text) if result else before
        times.append((time.perf_counter() - t0) * 1000)
        cpu_times.append((time.process_time() - c0) * 1000)
    out = result.text if result else text
    return {"dataset": name, "items": n, "mode": mode, "median_ms": statistics.median(times), "cpu_ms": statistics.median(cpu_times),
            "tokens_before": before, "tokens_after": after, "saved": 1 - after / before,
            "strategy": result.strategy if result else "-", "lossy": bool(result and result.lossy),
            "facts": all(f in out for f in facts)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--sizes", default="100,1000,10000")
    args = ap.parse_args()
    print(f"load average: {os.getloadavg()[0]:.2f} on {os.cpu_count()} CPUs")
    TokenCounter("gpt-4o").count("warm up the encoding " * 10)
    print(f"{'dataset':<12} {'items':>6} {'mode':<8} {'median ms':>9} {'cpu ms':>7} {'tokens':>8} {'-> after':>8} {'saved':>6}  "
          f"{'strategy':<22} facts")
    for size in (int(s) for s in args.sizes.split(",")):
        for name in DATASETS:
            for mode in ("default", "lossy"):
                r = bench(name, size, mode, args.runs)
                print(f"{r['dataset']:<12} {r['items']:>6} {r['mode']:<8} {r['median_ms']:>9.1f} {r['cpu_ms']:>7.1f} {r['tokens_before']:>8} "
                      f"{r['tokens_after']:>8} {r['saved']:>6.1%}  {r['strategy']:<22} {'ok' if r['facts'] else 'MISSING'}")


if __name__ == "__main__":
    main()
