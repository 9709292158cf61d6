"""Helpers for hostile traffic: raw HTTP (no client-side normalisation) and /health latency."""

from __future__ import annotations

import http.client
import json
import threading
import time
from typing import Any, Self
from urllib.parse import urlsplit

import httpx

# /health must answer within this while a hostile request runs. The target is
# 100 ms p99 (benchmarks/hostile_bench.py measures it); tests share 2 cores with other
# work, so they allow more and still catch a stall (the seen stalls were seconds long):
# at most 5 % of probes over the budget, none over the hard limit.
HEALTH_BUDGET_S = 0.5
HEALTH_HARD_LIMIT_S = 2.0


def raw_request(url: str, method: str, path: str, body: bytes | None = None,
                headers: dict[str, str] | None = None) -> tuple[int, dict[str, Any] | str]:
    """Send ``path`` exactly as written (httpx would normalise ``..`` away) and read the answer."""
    parts = urlsplit(url)
    conn = http.client.HTTPConnection(parts.hostname, parts.port, timeout=20)
    try:
        conn.putrequest(method, path, skip_accept_encoding=True)
        for k, v in {"content-type": "application/json", **(headers or {})}.items():
            conn.putheader(k, v)
        conn.putheader("content-length", str(len(body or b"")))
        conn.endheaders(body or b"")
        resp = conn.getresponse()
        data = resp.read()
        try:
            return resp.status, json.loads(data)
        except ValueError:
            return resp.status, data.decode("utf-8", "replace")
    finally:
        conn.close()


class HealthProbe:
    """Polls /health in a thread and records each answer's latency."""

    def __init__(self, url: str, interval_s: float = 0.02):
        self.url, self.interval_s = url, interval_s
        self.latencies: list[float] = []
        self.failures: list[str] = []
        self._stop = threading.Event()
        self._ready = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        with httpx.Client(timeout=10) as client:
            self._ready.set()
            while True:  # at least one probe, however soon the hostile call ends
                t0 = time.perf_counter()
                try:
                    r = client.get(f"{self.url}/health")
                    if r.status_code != 200:
                        self.failures.append(f"status {r.status_code}")
                except httpx.HTTPError as exc:
                    self.failures.append(type(exc).__name__)
                self.latencies.append(time.perf_counter() - t0)
                if self._stop.wait(self.interval_s):
                    break

    def __enter__(self) -> Self:
        # Probing before the hostile call starts: on a loaded machine the client took longer
        # to make than a quick hostile call, and the probe stopped before its first request.
        self._thread.start()
        self._ready.wait(timeout=10)
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join(timeout=15)

    @property
    def worst(self) -> float:
        return max(self.latencies, default=0.0)

    def assert_responsive(self) -> None:
        """/health answered every probe, nearly all within budget, none stalled."""
        assert self.latencies, "no /health probe completed"
        assert not self.failures, self.failures[:3]
        slow = [t for t in self.latencies if t > HEALTH_BUDGET_S]
        # One spike is a scheduler's, whatever the count: a short test makes ~16 probes, where
        # 5 % allowed none (two fresh-clone CI runs on 2026-11-30 each saw exactly one of 16
        # over 0.5 s, none in isolation). A stall is what the hard limit below catches.
        allowed = max(1, int(0.05 * len(self.latencies)))
        assert len(slow) <= allowed, f"{len(slow)}/{len(self.latencies)} probes over budget"
        assert self.worst < HEALTH_HARD_LIMIT_S, f"/health stalled {self.worst:.2f} s"
