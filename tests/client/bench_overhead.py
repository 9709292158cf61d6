"""Benchmark: what HeadroomClient and MetricsStore cost per request.

Run: .venv/bin/python tests/client/bench_overhead.py
Prints per-row metrics write cost (SQLite file, JSONL, in-memory) and the added latency
of HeadroomClient over the bare OpenAI client against the local fake upstream, for a
small request (nothing to compress) and a 120-item tool output (compressed).
"""

from __future__ import annotations

import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # repo root: import tests.client.*

import openai
from tests.client.conftest import big_tool_output
from tests.client.fake_upstream import FakeUpstream

from headroom import HeadroomClient
from headroom.metrics import MetricsStore, RequestMetrics


def bench_metrics(n: int = 2000) -> None:
    with tempfile.TemporaryDirectory() as d:
        for name in ("metrics.db", "metrics.jsonl", ":memory:"):
            store = MetricsStore(name if name == ":memory:" else Path(d) / name)
            row = RequestMetrics(model="gpt-4o", tokens_before=9000, tokens_after=1000, tokens_saved=8000,
                                 transforms_applied=["content_router:smart_crusher"],
                                 transform_savings={"content_router:smart_crusher": 8000}, tool_names=["search"])
            t0 = time.perf_counter()
            for _ in range(n):
                store.record(row)
            per = (time.perf_counter() - t0) / n * 1e6
            t0 = time.perf_counter()
            store.summary()
            summ = (time.perf_counter() - t0) * 1000
            print(f"metrics {name:14s} record: {per:7.1f} µs/row   summary of {n} rows: {summ:6.1f} ms")
            store.close()


def _median_ms(fn, n: int) -> float:
    times = []
    for _ in range(n):
        t0 = time.perf_counter()
        fn()
        times.append((time.perf_counter() - t0) * 1000)
    return statistics.median(times)


def bench_client(n: int = 100) -> None:
    fake = FakeUpstream().start()
    try:
        oai = openai.OpenAI(base_url=fake.url + "/v1", api_key="k", max_retries=0)
        hc = HeadroomClient(original_client=oai)
        small = [{"role": "user", "content": "hello"}]
        big = [{"role": "user", "content": "find errors"},
               {"role": "assistant", "content": None, "tool_calls": [
                   {"id": "c", "type": "function", "function": {"name": "search", "arguments": "{}"}}]},
               {"role": "tool", "tool_call_id": "c", "content": big_tool_output()}]
        for label, msgs in (("small request", small), ("120-item tool output", big)):
            for _ in range(5):  # warm: connection pool, tokenizer, compression memo
                oai.chat.completions.create(model="gpt-4o", messages=msgs)
                hc.chat.completions.create(model="gpt-4o", messages=msgs)
            bare = _median_ms(lambda m=msgs: oai.chat.completions.create(model="gpt-4o", messages=m), n)
            wrapped = _median_ms(lambda m=msgs: hc.chat.completions.create(model="gpt-4o", messages=m), n)
            audit = _median_ms(lambda m=msgs: hc.chat.completions.create(model="gpt-4o", messages=m, headroom_mode="audit"), n)
            print(f"client {label:22s} bare {bare:6.2f} ms  optimize {wrapped:6.2f} ms (+{wrapped - bare:5.2f})  "
                  f"audit {audit:6.2f} ms (+{audit - bare:5.2f})   median of {n}")
        # fresh content every call: the memo cannot help, so this is the real compression cost
        fresh = iter(range(10**6))

        def cold():
            msgs = [*big[:2], {"role": "tool", "tool_call_id": "c", "content": big_tool_output(seed=str(next(fresh)))}]
            hc.chat.completions.create(model="gpt-4o", messages=msgs)

        cold_ms = _median_ms(cold, 30)
        print(f"client 120-item tool output, new content each call: optimize {cold_ms:6.2f} ms   median of 30")
        s = hc.get_summary()["totals"]
        print(f"client summary: {s['requests']} requests, {s['tokens_saved']:,} tokens saved ({s['savings_pct']}%)")
    finally:
        fake.stop()


def bench_session(turns: int = 10) -> None:
    """A replayed agent session through the Anthropic SDK with the cache optimiser on."""
    import anthropic

    fake = FakeUpstream().start()
    try:
        ant = anthropic.Anthropic(base_url=fake.url, api_key="k", max_retries=0)
        hc = HeadroomClient(original_client=ant, cache_optimizer=True)
        system = "You are a meticulous SRE assistant. " + "Quote exact paths and line numbers. " * 200
        history: list[dict] = []
        for turn in range(turns):
            history += [
                {"role": "user", "content": f"Turn {turn}: look for errors in service {turn}."},
                {"role": "assistant", "content": [{"type": "tool_use", "id": f"t{turn}", "name": "search", "input": {}}]},
                {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"t{turn}",
                                              "content": big_tool_output(seed=f"s{turn}")}]},
            ]
            r = hc.messages.create(model="claude-sonnet-4-5", max_tokens=64, system=system, messages=history)
            history.append({"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in r.content]})
        (report,) = hc.cache_report().values()
        print("turn  request bytes  stable prefix bytes  extends previous  cache_control markers")
        for t, req in zip(report, fake.state.requests):
            markers = req.raw.count(b'"cache_control"')
            print(f"{t['turn']:4d}  {t['total_bytes']:13,d}  {t['stable_bytes']:19,d}  {t['extends_previous']!s:>16}"
                  f"  {markers:21d}")
        s = hc.get_summary()["totals"]
        print(f"session: {s['tokens_before']:,} input tokens before, {s['tokens_saved']:,} saved ({s['savings_pct']}%)")
    finally:
        fake.stop()


if __name__ == "__main__":
    bench_metrics()
    bench_client()
    bench_session()
