"""CCR services: backend latency (memory, SQLite, Redis), feedback hints, ContextTracker.

    .venv/bin/python benchmarks/ccr_bench.py [--n 2000] [--redis-url redis://127.0.0.1:6379/0]

Without ``--redis-url`` a private ``redis-server`` is started on a free loopback port
(skipped when the binary is missing). Numbers are per call, median and p99, in ms.
"""

from __future__ import annotations

import argparse
import shutil
import socket
import statistics
import subprocess
import tempfile
import time
from collections.abc import Callable
from contextlib import contextmanager, nullcontext
from pathlib import Path

from headroom.ccr import CompressionStore, MemoryBackend, SQLiteBackend
from headroom.config import HeadroomConfig, ToinConfig
from headroom.formats import parse
from headroom.toin import RedisToinBackend, SQLiteToinBackend, Toin
from headroom.toin.feedback import ToolFeedback
from headroom.tokens import counter_for
from headroom.transforms.base import TransformContext
from headroom.transforms.expansion import ContextTracker


def timed(fn: Callable[[int], object], n: int) -> tuple[float, float]:
    samples = []
    for i in range(n):
        t0 = time.perf_counter()
        fn(i)
        samples.append((time.perf_counter() - t0) * 1000)
    samples.sort()
    return statistics.median(samples), samples[min(len(samples) - 1, int(len(samples) * 0.99))]


def log_output(seed: int, lines: int = 300) -> str:
    return "\n".join(
        f"2026-11-22 04:{i // 60 % 60:02d}:{i % 60:02d} INFO svc-{i % 7} request req-{seed}-{i:04d} "
        f"served in {20 + i * 37 % 400} ms"
        for i in range(lines)
    )


@contextmanager
def private_redis():
    binary = shutil.which("redis-server")
    if binary is None:
        yield None
        return
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    proc = subprocess.Popen(
        [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    url = f"redis://127.0.0.1:{port}/0"
    import redis

    for _ in range(200):
        try:
            redis.Redis.from_url(url).ping()
            break
        except redis.ConnectionError:
            time.sleep(0.05)
    try:
        yield url
    finally:
        proc.terminate()
        proc.wait(timeout=5)


def bench_store(store: CompressionStore, originals: list[str]):
    n = len(originals)
    hashes: list[str] = []
    put = timed(lambda i: hashes.append(store.store(originals[i], tool_name="read_log")), n)
    get = timed(lambda i: store.retrieve(hashes[i]), n)
    search = timed(lambda i: store.retrieve(hashes[i], f"req-{i}-0042"), min(n, 200))
    return put, get, search


def bench_backends(n: int, redis_url: str | None) -> None:
    originals = [log_output(i) for i in range(n)]
    print(f"backend store/retrieve, {n} originals of {len(originals[0]) // 1024} KB each")
    with tempfile.TemporaryDirectory() as tmp:
        backends: list[tuple[str, Callable[[], object]]] = [
            ("memory", MemoryBackend),
            ("sqlite", lambda: SQLiteBackend(Path(tmp) / "ccr.sqlite3")),
        ]
        if redis_url:
            from headroom.ccr.redis_backend import RedisBackend

            backends.append(("redis", lambda: RedisBackend(redis_url)))
        for name, make in backends:
            store = CompressionStore(make())
            put, get, search = bench_store(store, originals)
            print(
                f"  {name:7s} store p50 {put[0]:.3f} p99 {put[1]:.3f} | retrieve p50 {get[0]:.3f} p99 {get[1]:.3f}"
                f" | retrieve+query p50 {search[0]:.3f} p99 {search[1]:.3f}"
            )
            store.close()
    if not redis_url:
        print("  redis   skipped (no redis-server binary and no --redis-url)")


def bench_feedback(events: int, redis_url: str | None) -> None:
    """Retrieval feedback is a view over TOIN's per-tool counts: the refresh (a background
    thread in the proxy) reads them from TOIN's backend; hints() answers from its cache."""
    print(f"feedback, {events} compressed outputs / {events // 3} retrievals over 25 tools (TOIN's backend)")
    with tempfile.TemporaryDirectory() as tmp:
        backends: list[tuple[str, Callable[[], object]]] = [
            ("sqlite", lambda: SQLiteToinBackend(Path(tmp) / "toin.sqlite3"))]
        if redis_url:
            backends.append(("redis", lambda: RedisToinBackend(redis_url, prefix=f"bench-feedback-{time.time_ns()}:")))
        for name, make in backends:
            store = CompressionStore()
            toin = Toin(make(), ToinConfig())  # the proxy's defaults: one batched write a second
            store.retrieval_listeners.append(toin.on_retrieval)
            for i in range(events):
                tool = f"tool_{i % 25}"
                prof = toin.profile(None, "log", tool)
                h = store.store(f"output {i}", tool_name=tool, meta={"toin": prof.signature})
                toin.observe_compression(prof, strategy="log:sample", items_before=300, items_after=40,
                                         lossy=True, ccr_hash=h)
                if i % 3 == 0:
                    store.retrieve(h, f"req-{i}" if i % 2 else None)
            fb = ToolFeedback(toin)
            refresh = timed(lambda i, fb=fb: fb.refresh(), 20)
            fb.hints()
            cached = timed(lambda i, fb=fb: fb.hints(), 2000)
            print(f"  {name:7s} refresh p50 {refresh[0]:.2f} ms | hints() cached p50 {cached[0] * 1000:.1f} us")
            toin.close()


def bench_tracker(outputs: int, redis_url: str | None) -> None:
    print(
        f"context tracker, {outputs} compressed outputs of {len(log_output(0)) // 1024} KB"
        " in the conversation (parse of the request included)"
    )
    stores = [("memory", lambda: CompressionStore())]
    if redis_url:
        from headroom.ccr.redis_backend import RedisBackend

        stores.append(
            ("redis", lambda: CompressionStore(RedisBackend(redis_url, prefix="bench-tracker:")))
        )
    for name, make_store in stores:
        store = make_store()
        miss, hit, cold = bench_tracker_on(store, outputs)
        print(
            f"  {name:7s} no match p50 {miss[0]:.2f} ms | one match p50 {hit[0]:.2f} ms"
            f" | one match, cold cache p50 {cold[0]:.2f} ms"
        )
        store.close()


def bench_tracker_on(store: CompressionStore, outputs: int):
    messages = conversation_with_compressed_logs(store, outputs)
    cfg, counter = HeadroomConfig(), counter_for("gpt-4o")

    def run(question: str, tracker: ContextTracker | None) -> Callable[[int], object]:
        body = {"model": "gpt-4o", "messages": [*messages, {"role": "user", "content": question}]}

        def once(_: int) -> object:
            ctx = TransformContext(config=cfg, counter=counter, store=store, query=question)
            # tracker None: a fresh tracker per call, i.e. nothing cached yet
            return (tracker or ContextTracker()).apply(parse(body, "openai_chat"), ctx)

        return once

    warm = ContextTracker()
    miss = timed(run("what happened to req-999-0042?", warm), 50)
    hit = timed(run(f"what happened to req-{outputs // 2}-0042?", warm), 50)
    cold = timed(run(f"what happened to req-{outputs // 2}-0042?", None), 20)
    return miss, hit, cold


def conversation_with_compressed_logs(store: CompressionStore, outputs: int) -> list[dict]:
    messages: list[dict] = [{"role": "user", "content": "Read the logs."}]
    for k in range(outputs):
        original = log_output(k)
        h = store.store(original, tool_name="read_log")
        marker = f"[300 items compressed to 10. Retrieve more: hash={h}. Expires in 30m.]"
        call = {
            "id": f"c{k}",
            "type": "function",
            "function": {"name": "read_log", "arguments": "{}"},
        }
        head = "\n".join(original.splitlines()[:10])
        messages += [
            {"role": "assistant", "content": None, "tool_calls": [call]},
            {"role": "tool", "tool_call_id": f"c{k}", "content": f"{head}\n{marker}"},
        ]
    return messages


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--n", type=int, default=2000, help="originals per backend")
    ap.add_argument("--redis-url", default=None)
    args = ap.parse_args()
    with private_redis() if not args.redis_url else nullcontext(args.redis_url) as url:
        bench_backends(args.n, url)
        bench_feedback(30_000, url)
        bench_tracker(20, url)


if __name__ == "__main__":
    main()
