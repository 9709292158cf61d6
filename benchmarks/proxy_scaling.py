"""Requests per second of `headroom proxy --workers N` for N = 1, 2, 4, … up to the usable cores.

Setup, all on this host: the loopback fake provider (tests/proxy/proxy_fakes.py, run with
``--fake-workers`` processes, every answer delayed ``--latency-ms``, 50 by default, and
nothing recorded), `headroom proxy --workers N` in front of it (the CLI as a user runs
it: SQLite store, metrics DB, default models), and a load generator of ``--gen-procs``
processes, each an asyncio loop of concurrent clients (closed loop: a client sends its
next request when the last one finished).

The mix, round-robin over requests: Chat Completions, Responses and Messages; a tool
output of JSON rows or of log lines (fresh content each request, so compression is cold:
no memo hit); half streamed; a quarter answered by a ``headroom_retrieve`` call first (the
proxy answers it from the store and calls the upstream again: the CCR loop).

Reported per N: requests/s, errors, latency p50/p99, ``/health`` p50/p99 (probed every
50 ms during the run, its own connection), the scaling against N × (one worker's rate).
First the same load goes straight to the fake provider (no proxy): the rate the load
generator and fake can reach on this host. Where a proxy level comes near it, the
generator, not the proxy, is the limit; that is printed.

    python benchmarks/proxy_scaling.py                         # N = 1, 2, 4, … ≤ usable cores
    python benchmarks/proxy_scaling.py --workers 1,2 --duration 8 --json out.json
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import multiprocessing as mp
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent
APIS = ("/v1/chat/completions", "/v1/responses", "/v1/messages")


def usable_cores() -> int:
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# ----------------------------------------------------------------------------- processes

FAKE = """
import sys
sys.path.insert(0, 'tests/proxy')
from proxy_fakes import make_fake_upstream

def app():
    app, rec = make_fake_upstream()
    rec.add = lambda entry: None  # a long run must not keep every request body
    return app
"""


def start_fake(port: int, workers: int, workdir: str) -> subprocess.Popen:
    Path(workdir, "scaling_fake.py").write_text(FAKE)
    code = (f"import sys; sys.path.insert(0, {workdir!r}); import uvicorn; "
            f"uvicorn.run('scaling_fake:app', factory=True, host='127.0.0.1', port={port}, workers={workers}, "
            "log_level='warning', backlog=4096)")
    return subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, stdout=subprocess.DEVNULL,
                            stderr=subprocess.STDOUT, env={**os.environ, "PYTHONPATH": f"{ROOT}:{workdir}"})


# --proxy-cpus: the proxy's processes run on these CPUs, the generator and fake on the rest.
PROXY_CPUS: set[int] | None = None


def cpu_list(text: str) -> set[int]:
    """ "1" / "0,2" / "8-15" -> a set of CPU numbers (taskset's list syntax)."""
    cpus: set[int] = set()
    for part in text.split(","):
        lo, _, hi = part.partition("-")
        cpus.update(range(int(lo), int(hi or lo) + 1))
    return cpus


def start_proxy(port: int, upstream: str, workdir: str, workers: int) -> subprocess.Popen:
    cmd = [sys.executable, "-m", "headroom", "proxy", "--port", str(port), "--workers", str(workers),
           "--openai-api-url", upstream, "--anthropic-api-url", upstream,
           "--ccr-path", os.path.join(workdir, "ccr.sqlite3"), "--metrics-db", os.path.join(workdir, "metrics.db"),
           "--log-level", "warning", "--compression-timeout", "30"]
    proc = subprocess.Popen(cmd, cwd=workdir, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT,
                            env={**os.environ, "PYTHONPATH": str(ROOT)}, start_new_session=True)
    if PROXY_CPUS:  # set before the interpreter is up, so its workers inherit it
        os.sched_setaffinity(proc.pid, PROXY_CPUS)
    return proc


def wait_up(url: str, proc: subprocess.Popen, path: str, pids: int = 1, timeout: float = 600) -> None:
    """Until ``url`` answers, from ``pids`` distinct worker processes when it reports them."""
    seen: set = set()
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{url} exited with {proc.returncode}")
        try:
            with httpx.Client() as c:  # a fresh connection: any worker may take it
                r = c.get(url + path, timeout=2)
            seen.add(r.json().get("worker", 0) if path == "/health" else 0)
            if len(seen) >= pids:
                return
        except (httpx.TransportError, ValueError):
            pass
        time.sleep(0.1)
    raise RuntimeError(f"{url}: {len(seen)} of {pids} workers answered within {timeout:g} s")


def stop(proc: subprocess.Popen) -> None:
    with contextlib.suppress(ProcessLookupError):
        os.killpg(proc.pid, signal.SIGTERM) if proc.pid == os.getpgid(proc.pid) else proc.terminate()
    try:
        proc.wait(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()


@contextlib.contextmanager
def fake_upstream(workers: int) -> Iterator[str]:
    with tempfile.TemporaryDirectory() as workdir:
        port = free_port()
        proc = start_fake(port, workers, workdir)
        url = f"http://127.0.0.1:{port}"
        try:
            wait_up(url, proc, "/v1/models")
            yield url
        finally:
            stop(proc)


# ----------------------------------------------------------------------------- the mix

def json_rows(n: int, tag: str) -> str:
    return json.dumps([{"id": i, "run": tag, "service": f"svc-{i % 9}", "status": "error" if i % 53 == 0 else "ok",
                        "latency_ms": (i * 37) % 900, "region": ("eu-west-1", "us-east-1", "ap-south-1")[i % 3]}
                       for i in range(n)])


def log_lines(n: int, tag: str) -> str:
    levels = ("INFO", "INFO", "INFO", "DEBUG", "WARN", "INFO", "ERROR")
    return "\n".join(f"2026-11-27T10:{(i // 60) % 60:02d}:{i % 60:02d}.{i * 7 % 1000:03d}Z {levels[i % 7]} "
                     f"[worker-{i % 5}] run={tag} request {i} took {(i * 37) % 900} ms status={200 if i % 41 else 503}"
                     for i in range(n))


def request(k: int, tag: str, rows: int) -> tuple[str, dict, dict]:
    """(path, body, headers) of the k-th request of the mix."""
    api = APIS[k % 3]
    output = json_rows(rows, tag) if (k // 3) % 2 == 0 else log_lines(rows, tag)
    question = "Which requests failed, and on which service?"
    if api == "/v1/chat/completions":
        body = {"model": "gpt-4o", "messages": [
            {"role": "user", "content": question},
            {"role": "assistant", "content": None, "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "query_logs", "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": "c1", "content": output}]}
    elif api == "/v1/responses":
        body = {"model": "gpt-4o", "input": [
            {"role": "user", "content": question},
            {"type": "function_call", "call_id": "c1", "name": "query_logs", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "c1", "output": output}]}
    else:
        body = {"model": "claude-sonnet-4", "max_tokens": 256, "messages": [
            {"role": "user", "content": question},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "c1", "name": "query_logs", "input": {}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c1", "content": output}]}]}
    body["stream"] = (k // 6) % 2 == 1
    headers = {"authorization": "Bearer sk-bench", "x-api-key": "sk-bench", "anthropic-version": "2023-06-01"}
    if k % 4 == 3:  # a quarter: the model asks for the original first
        headers["x-fake-script"] = "retrieve"
    return api, body, headers


# ----------------------------------------------------------------------------- load

async def _client_loop(url: str, start: int, step: int, stop_at: float, rows: int, latency_s: float,
                       out: list, client: httpx.AsyncClient) -> None:
    k = start
    while time.monotonic() < stop_at:
        path, body, headers = request(k, f"{os.getpid()}-{k}", rows)
        headers = {**headers, "x-fake-hang-s": f"{latency_s:g}"}
        t0 = time.monotonic()
        try:
            if body["stream"]:
                async with client.stream("POST", url + path, json=body, headers=headers) as r:
                    async for _ in r.aiter_bytes():
                        pass
            else:
                r = await client.post(url + path, json=body, headers=headers)
            out.append((time.monotonic() - t0, r.status_code))
        except httpx.HTTPError as exc:
            out.append((time.monotonic() - t0, type(exc).__name__))
        k += step


def _generator(url: str, clients: int, offset: int, step: int, start_at: float, duration: float, rows: int,
               latency_s: float, queue: mp.Queue) -> None:
    async def run() -> list:
        out: list = []
        limits = httpx.Limits(max_connections=clients, max_keepalive_connections=clients)
        async with httpx.AsyncClient(timeout=120, limits=limits) as client:
            await asyncio.sleep(max(0.0, start_at - time.time()))
            stop_at = time.monotonic() + duration
            await asyncio.gather(*(_client_loop(url, offset + i * step, step * clients, stop_at, rows, latency_s,
                                                out, client) for i in range(clients)))
        return out

    queue.put(asyncio.run(run()))


def _probe_health(url: str, stop: threading.Event, out: list[float]) -> None:
    with httpx.Client(timeout=10) as c:
        while not stop.is_set():
            t0 = time.monotonic()
            try:
                c.get(url + "/health")
                out.append(time.monotonic() - t0)
            except httpx.HTTPError:
                out.append(float("inf"))
            stop.wait(0.05)


def pct(values: list[float], p: float) -> float:
    if not values:
        return float("nan")
    s = sorted(values)
    return s[min(len(s) - 1, round(p / 100 * (len(s) - 1)))]


def load(url: str, concurrency: int, procs: int, duration: float, rows: int, latency_s: float,
         health: bool) -> dict:
    queue: mp.Queue = mp.get_context("spawn").Queue()
    start_at = time.time() + 3  # every generator process is up before the clock starts
    per = max(1, concurrency // procs)
    ps = [mp.get_context("spawn").Process(target=_generator, args=(url, per, g, procs, start_at, duration, rows,
                                                                    latency_s, queue)) for g in range(procs)]
    for p in ps:
        p.start()
    stop, probes = threading.Event(), []
    prober = threading.Thread(target=_probe_health, args=(url, stop, probes)) if health else None
    time.sleep(max(0.0, start_at - time.time()))
    if prober:
        prober.start()
    results = [r for _ in ps for r in queue.get()]
    stop.set()
    if prober:
        prober.join()
    for p in ps:
        p.join()
    ok = [t for t, s in results if s == 200]
    errors: dict[str, int] = {}
    for _, s in results:
        if s != 200:
            errors[str(s)] = errors.get(str(s), 0) + 1
    return {"requests": len(results), "ok": len(ok), "errors": errors, "rps": round(len(ok) / duration, 1),
            "p50_ms": round(pct(ok, 50) * 1000, 1), "p99_ms": round(pct(ok, 99) * 1000, 1),
            "health_p50_ms": round(pct(probes, 50) * 1000, 1) if probes else None,
            "health_p99_ms": round(pct(probes, 99) * 1000, 1) if probes else None,
            "health_probes": len(probes)}


def main() -> None:
    cores = usable_cores()
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--workers", default=None, help="comma-separated worker counts (default: 1, 2, 4, … ≤ cores)")
    ap.add_argument("--duration", type=float, default=15.0, help="seconds of load per level (default 15)")
    ap.add_argument("--per-worker-concurrency", type=int, default=16,
                    help="concurrent clients per proxy worker (default 16)")
    ap.add_argument("--gen-procs", type=int, default=max(1, cores // 4), help="load generator processes")
    ap.add_argument("--fake-workers", type=int, default=max(1, cores // 4), help="fake provider processes")
    ap.add_argument("--latency-ms", type=float, default=50.0, help="the fake provider's answer delay")
    ap.add_argument("--rows", type=int, default=300, help="rows (JSON) or lines (logs) per tool output")
    ap.add_argument("--json", default=None, help="write the results here too")
    ap.add_argument("--proxy-cpus", default=None,
                    help="run the proxy on these CPUs (e.g. 1 or 8-15) and the generator and fake on the others, "
                         "so they do not take the proxy's cores")
    args = ap.parse_args()
    if args.proxy_cpus:
        global PROXY_CPUS
        PROXY_CPUS = cpu_list(args.proxy_cpus)
        rest = set(os.sched_getaffinity(0)) - PROXY_CPUS
        if not rest:
            raise SystemExit("--proxy-cpus leaves no CPU for the load generator and the fake provider")
        os.sched_setaffinity(0, rest)  # inherited by the generator and fake processes started from here
        cores = len(PROXY_CPUS)
    levels = [int(x) for x in args.workers.split(",")] if args.workers else \
        [n for n in (1, 2, 4, 8, 16, 32, 64, 128) if n <= cores]
    latency_s = args.latency_ms / 1000
    report: dict = {"cores": cores, "gen_procs": args.gen_procs, "fake_workers": args.fake_workers,
                    "latency_ms": args.latency_ms, "rows": args.rows, "duration_s": args.duration, "levels": []}
    print(f"usable cores {cores}; generator {args.gen_procs} procs; fake provider {args.fake_workers} procs, "
          f"{args.latency_ms:g} ms; {args.rows} rows per tool output; {args.duration:g} s per level", flush=True)
    with fake_upstream(args.fake_workers) as upstream:
        top = max(levels) * args.per_worker_concurrency
        direct = load(upstream, top, args.gen_procs, args.duration, args.rows, latency_s, health=False)
        report["direct"] = direct
        if args.json:
            Path(args.json).write_text(json.dumps(report, indent=1))
        print(f"direct to the fake, {top} clients: {direct['rps']} req/s, p50 {direct['p50_ms']} ms, "
              f"errors {direct['errors']} (the load generator's and fake's ceiling)", flush=True)
        base = None
        for n in levels:
            with tempfile.TemporaryDirectory() as workdir:
                port = free_port()
                proxy = start_proxy(port, upstream, workdir, n)
                url = f"http://127.0.0.1:{port}"
                try:
                    t0 = time.monotonic()
                    wait_up(url, proxy, "/health", pids=n)
                    started = time.monotonic() - t0
                    res = load(url, n * args.per_worker_concurrency, args.gen_procs, args.duration, args.rows,
                               latency_s, health=True)
                finally:
                    stop(proxy)
            base = base or res["rps"] / n
            res.update(workers=n, clients=n * args.per_worker_concurrency, start_s=round(started, 1),
                       scaling=round(res["rps"] / (n * base), 2) if base else None,
                       generator_bound=res["rps"] >= 0.8 * direct["rps"])
            report["levels"].append(res)
            if args.json:  # after every level: a run cut short keeps what it measured
                Path(args.json).write_text(json.dumps(report, indent=1))
            print(f"workers {n:3d}: {res['rps']:8.1f} req/s ({res['scaling']:.2f} of {n} x one worker), "
                  f"p50 {res['p50_ms']} ms, p99 {res['p99_ms']} ms, /health p99 {res['health_p99_ms']} ms, "
                  f"errors {res['errors']}, start {res['start_s']} s"
                  + ("  <- within 80 % of the generator's ceiling: generator-bound" if res["generator_bound"] else ""),
                  flush=True)


if __name__ == "__main__":
    main()
