"""Proxy overhead: the proxy vs calling the (fake) provider directly.

Starts the loopback fake provider from tests/proxy/proxy_fakes.py and `headroom proxy` as
two subprocesses, then sends a ~10k-token Chat Completions request (a large JSON tool
output) N times each way and prints:

  - direct latency, proxy latency, and the proxy's added latency *beyond compression
    time* (proxy - direct - the pipeline time the proxy reports in x-headroom-compression-ms),
    p50 / p99, in optimize mode and with x-headroom-bypass (no compression at all);
  - RSS of the proxy process before and at peak while it handles one 5 MB body.

Every request's tool output differs (an id is appended), so the compression memo never
short-cuts the work.

    .venv/bin/python benchmarks/proxy_bench.py            # N=300
    .venv/bin/python benchmarks/proxy_bench.py --n 100
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import httpx

ROOT = Path(__file__).resolve().parent.parent


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_up(url: str, proc: subprocess.Popen, path: str) -> None:
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{url} exited: {proc.stdout.read().decode() if proc.stdout else ''}")
        try:
            httpx.get(url + path, timeout=1)
            return
        except httpx.TransportError:
            time.sleep(0.2)
    raise RuntimeError(f"{url} did not start")


def start_fake(port: int) -> subprocess.Popen:
    code = (
        "import sys; sys.path.insert(0, 'tests/proxy');"
        "import uvicorn; from proxy_fakes import make_fake_upstream;"
        f"app, _ = make_fake_upstream(); uvicorn.run(app, host='127.0.0.1', port={port}, log_level='warning')"
    )
    return subprocess.Popen([sys.executable, "-c", code], cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)


def start_proxy(port: int, upstream: str, workdir: str) -> subprocess.Popen:
    cmd = [sys.executable, "-m", "headroom", "proxy", "--port", str(port), "--openai-api-url", upstream,
           "--anthropic-api-url", upstream, "--ccr-path", os.path.join(workdir, "ccr.sqlite3"),
           "--metrics-db", os.path.join(workdir, "metrics.db"), "--log-level", "warning",
           "--max-body-mb", "64", "--compression-timeout", "60"]
    return subprocess.Popen(cmd, cwd=workdir, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)


@contextlib.contextmanager
def running_proxy(max_stop_s: float = 30) -> Iterator[tuple[str, str, subprocess.Popen]]:
    """A fake upstream and a headroom proxy in front of it, both answering; yields
    (upstream URL, proxy URL, proxy process) and stops both on exit. A proxy stuck on
    SIGTERM is asked for every thread's stack (it registers SIGUSR1 with faulthandler),
    killed, and the end of its output printed."""
    fake_port, proxy_port = free_port(), free_port()
    upstream, url = f"http://127.0.0.1:{fake_port}", f"http://127.0.0.1:{proxy_port}"
    with tempfile.TemporaryDirectory() as workdir:
        fake = start_fake(fake_port)
        proxy = start_proxy(proxy_port, upstream, workdir)
        try:
            wait_up(upstream, fake, "/v1/models")
            wait_up(url, proxy, "/health")
            yield upstream, url, proxy
        finally:
            for p in (proxy, fake):
                p.terminate()
                try:
                    p.wait(timeout=max_stop_s)
                except subprocess.TimeoutExpired:
                    p.send_signal(signal.SIGUSR1)
                    time.sleep(2)
                    p.kill()
                    print(f"pid {p.pid} did not stop in {max_stop_s:g} s after SIGTERM; killed. Its last output:\n"
                          f"{p.stdout.read().decode(errors='replace')[-8000:] if p.stdout else ''}")


def rows(n: int, tag: str) -> list[dict]:
    return [{"id": i, "run": tag, "service": f"svc-{i % 9}", "status": "error" if i % 53 == 0 else "ok",
             "latency_ms": (i * 37) % 900, "region": ["eu-west-1", "us-east-1", "ap-south-1"][i % 3],
             "message": f"request {i} handled by worker {i % 17}"} for i in range(n)]


def body_with(n_rows: int, tag: str) -> dict:
    return {"model": "gpt-4o", "messages": [
        {"role": "system", "content": "You are a helpful SRE assistant."},
        {"role": "user", "content": "Which requests failed in the last run, and on which service?"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_1", "type": "function", "function": {"name": "query_logs", "arguments": "{\"run\": \"latest\"}"}}]},
        {"role": "tool", "tool_call_id": "call_1", "content": json.dumps(rows(n_rows, tag))},
    ]}


def pct(values: list[float], p: float) -> float:
    s = sorted(values)
    return s[min(len(s) - 1, round(p / 100 * (len(s) - 1)))]


def rss_kb(pid: int) -> tuple[int, int]:
    """(VmRSS, VmHWM) in kB for ``pid``."""
    fields = {}
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        k, _, v = line.partition(":")
        if k in ("VmRSS", "VmHWM"):
            fields[k] = int(v.split()[0])
    return fields["VmRSS"], fields["VmHWM"]


def cpu_ms(pid: int) -> float:
    """User + system CPU time of ``pid`` so far, in ms (immune to other load on the machine)."""
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) * 1000 / os.sysconf("SC_CLK_TCK")


def measure(client: httpx.Client, url: str, n: int, n_rows: int, headers: dict) -> tuple[list[float], list[float]]:
    totals, compress = [], []
    for i in range(n):
        payload = json.dumps(body_with(n_rows, f"{url[-5:]}-{i}-{time.time_ns()}")).encode()
        t0 = time.perf_counter()
        r = client.post(url, content=payload, headers=headers)
        totals.append((time.perf_counter() - t0) * 1000)
        r.raise_for_status()
        compress.append(float(r.headers.get("x-headroom-compression-ms", 0.0)))
    return totals, compress


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--n", type=int, default=300)
    args = ap.parse_args()
    from headroom.tokens import counter_for

    n_rows = 170
    tokens = counter_for("gpt-4o").count(json.dumps(body_with(n_rows, "x")["messages"]))
    with running_proxy() as (upstream, proxy_url, proxy):
        direct = f"{upstream}/v1/chat/completions"
        via = f"{proxy_url}/v1/chat/completions"
        hdr = {"content-type": "application/json", "authorization": "Bearer sk-bench"}
        with httpx.Client(timeout=120) as client:
            for url in (direct, via):  # warm both paths (imports, tokenizer, connections)
                measure(client, url, 20, n_rows, hdr)
            results = {}
            # Interleave the three series in rounds so load noise hits them alike.
            series = {"direct": ([], []), "proxy": ([], []), "bypass": ([], [])}
            proxy_cpu = {"proxy": 0.0, "bypass": 0.0}
            rounds = 10
            for _ in range(rounds):
                for name, url, extra in (("direct", direct, {}), ("proxy", via, {}),
                                         ("bypass", via, {"x-headroom-bypass": "1"})):
                    cpu0 = cpu_ms(proxy.pid)
                    t, c = measure(client, url, args.n // rounds, n_rows, {**hdr, **extra})
                    if name in proxy_cpu:
                        proxy_cpu[name] += cpu_ms(proxy.pid) - cpu0
                    series[name][0].extend(t)
                    series[name][1].extend(c)
            d = series["direct"][0]
            results["direct"] = {"p50": pct(d, 50), "p99": pct(d, 99)}
            for name in ("proxy", "bypass"):
                t, c = series[name]
                added = [ti - ci - statistics.median(d) for ti, ci in zip(t, c)]
                results[name] = {"p50": pct(t, 50), "p99": pct(t, 99), "compression_p50": pct(c, 50),
                                 "added_p50": pct(added, 50), "added_p99": pct(added, 99),
                                 "cpu_per_request": proxy_cpu[name] / len(t)}

            # RSS for one 5 MB body.
            big_rows = 1
            while len(json.dumps(body_with(big_rows, "big"))) < 5 * 1024 * 1024:
                big_rows *= 2
            lo, hi = big_rows // 2, big_rows
            while hi - lo > 1:
                mid = (lo + hi) // 2
                lo, hi = (mid, hi) if len(json.dumps(body_with(mid, "big"))) < 5 * 1024 * 1024 else (lo, mid)
            big = json.dumps(body_with(hi, "big")).encode()
            rss_before, _ = rss_kb(proxy.pid)
            t0 = time.perf_counter()
            r = client.post(via, content=big, headers=hdr)
            big_ms = (time.perf_counter() - t0) * 1000
            rss_after, hwm = rss_kb(proxy.pid)

    print(f"request: {tokens} tokens ({len(json.dumps(body_with(n_rows, 'x')))} bytes), n={args.n} per series, "
          f"cpu cores={os.cpu_count()}")
    print(f"direct to fake upstream      p50 {results['direct']['p50']:7.2f} ms   p99 {results['direct']['p99']:7.2f} ms")
    for name, label in (("proxy", "proxy, optimize"), ("bypass", "proxy, x-headroom-bypass")):
        r_ = results[name]
        print(f"{label:28s} p50 {r_['p50']:7.2f} ms   p99 {r_['p99']:7.2f} ms   compression p50 "
              f"{r_['compression_p50']:6.2f} ms   added beyond compression p50 {r_['added_p50']:6.2f} ms  "
              f"p99 {r_['added_p99']:6.2f} ms   proxy CPU {r_['cpu_per_request']:5.2f} ms/request")
    print(f"5 MB body ({len(big) / 1e6:.2f} MB): status {r.status_code}, {big_ms:.0f} ms, "
          f"tokens {r.headers.get('x-headroom-tokens-before')} -> {r.headers.get('x-headroom-tokens-after')}; "
          f"proxy RSS before {rss_before / 1024:.1f} MB, after {rss_after / 1024:.1f} MB, peak {hwm / 1024:.1f} MB; "
          f"peak growth {(hwm - rss_before) / 1024:.1f} MB = {(hwm - rss_before) * 1024 / len(big):.1f}x the body")


if __name__ == "__main__":
    main()
