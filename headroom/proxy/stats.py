"""In-process counters behind ``/stats`` (JSON) and ``/metrics`` (Prometheus text).

Per-request rows go to :class:`headroom.metrics.MetricsStore` (SQLite); these counters
are the live, cheap view of the same numbers since the proxy started.
"""

from __future__ import annotations

import threading
import time
from collections import Counter
from typing import Any

# Upper bounds (ms) of the latency histogram buckets.
LATENCY_BUCKETS_MS = (5, 10, 25, 50, 100, 250, 500, 1000, 2500, 5000, 10000, 30000, 60000)


class _Histogram:
    def __init__(self, bounds: tuple[float, ...]):
        self.bounds = bounds
        self.counts = [0] * (len(bounds) + 1)
        self.total = 0.0
        self.n = 0

    def observe(self, value: float) -> None:
        self.n += 1
        self.total += value
        for i, b in enumerate(self.bounds):
            if value <= b:
                self.counts[i] += 1
                return
        self.counts[-1] += 1

    def cumulative(self) -> list[tuple[str, int]]:
        out, running = [], 0
        for b, c in zip(self.bounds, self.counts):
            running += c
            out.append((str(b), running))
        out.append(("+Inf", self.n))
        return out


class ProxyStats:
    """One process's counters; :meth:`raw` and :meth:`merged` carry them between the
    workers of one proxy (headroom.proxy.shared_stats)."""

    _SUMS = ("tokens_before", "tokens_after", "tokens_saved", "potential_saved", "bypassed",
             "compression_failures", "retrieve_rounds", "retrieve_calls", "upstream_errors")

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self.started_at = time.time()
        self.requests: Counter[tuple[str, str, int]] = Counter()  # (api, mode, status)
        self.tokens_before = 0
        self.tokens_after = 0
        self.tokens_saved = 0  # forwarded savings (optimize mode)
        self.potential_saved = 0  # what audit mode would have saved
        self.by_transform: Counter[str] = Counter()
        self.bypassed = 0
        self.compression_failures = 0
        self.retrieve_rounds = 0
        self.retrieve_calls = 0
        self.upstream_errors = 0
        self.latency = _Histogram(LATENCY_BUCKETS_MS)
        self.compression = _Histogram(LATENCY_BUCKETS_MS)
        # Summed over workers: how old the oldest worker's numbers were (0.0 when every
        # worker answered live; headroom.proxy.shared_stats).
        self.lag_s = 0.0

    def record(self, *, api: str, mode: str, status: int, latency_ms: float, tokens_before: int = 0,
               tokens_after: int = 0, forwarded_compressed: bool = False, by_transform: dict[str, int] | None = None,
               compression_ms: float | None = None, bypassed: bool = False, compression_failed: bool = False,
               retrieve_rounds: int = 0, retrieve_calls: int = 0) -> None:
        with self._lock:
            self.requests[(api, mode, status)] += 1
            self.tokens_before += tokens_before
            self.tokens_after += tokens_after
            saved = max(0, tokens_before - tokens_after)
            if forwarded_compressed:
                self.tokens_saved += saved
                self.by_transform.update(by_transform or {})
            else:
                self.potential_saved += saved
            self.bypassed += int(bypassed)
            self.compression_failures += int(compression_failed)
            self.retrieve_rounds += retrieve_rounds
            self.retrieve_calls += retrieve_calls
            self.upstream_errors += int(status >= 400)
            self.latency.observe(latency_ms)
            if compression_ms is not None:
                self.compression.observe(compression_ms)

    def raw(self) -> dict[str, Any]:
        """Every counter as JSON-able data (what a worker publishes)."""
        with self._lock:
            return {
                "started_at": self.started_at,
                "requests": [[a, m, s, n] for (a, m, s), n in self.requests.items()],
                "by_transform": dict(self.by_transform),
                **{k: getattr(self, k) for k in self._SUMS},
                **{name: {"counts": h.counts, "total": h.total, "n": h.n}
                   for name, h in (("latency", self.latency), ("compression", self.compression))},
            }

    @classmethod
    def merged(cls, raws: list[dict[str, Any]]) -> ProxyStats:
        """The whole proxy: counters and histogram buckets summed over workers (counters
        of a worker that exited stay counted, as Prometheus' multi-process mode does)."""
        out = cls()
        if raws:
            out.started_at = min(r["started_at"] for r in raws)
        for r in raws:
            for a, m, s, n in r["requests"]:
                out.requests[(a, m, int(s))] += n
            out.by_transform.update(r["by_transform"])
            for k in cls._SUMS:
                setattr(out, k, getattr(out, k) + r[k])
            for name in ("latency", "compression"):
                h, src = getattr(out, name), r[name]
                h.counts = [x + y for x, y in zip(h.counts, src["counts"])]
                h.total += src["total"]
                h.n += src["n"]
        return out

    def snapshot(self) -> dict[str, Any]:
        with self._lock:
            by_api: Counter[str] = Counter()
            by_status: Counter[str] = Counter()
            for (api, _mode, status), n in self.requests.items():
                by_api[api] += n
                by_status[str(status)] += n
            now = time.time()
            return {
                "as_of": round(now, 3),  # the counters below include every request answered before this
                "lag_s": round(self.lag_s, 3),  # > 0 only when a worker's last published copy stood in
                "uptime_s": round(now - self.started_at, 1),
                "requests": {"total": sum(self.requests.values()), "by_api": dict(by_api),
                             "by_status": dict(by_status), "bypassed": self.bypassed,
                             "upstream_errors": self.upstream_errors},
                "tokens": {"before": self.tokens_before, "after": self.tokens_after, "saved": self.tokens_saved,
                           "potential_saved_audit": self.potential_saved},
                "by_transform": dict(self.by_transform.most_common()),
                "compression": {"failures": self.compression_failures, "runs": self.compression.n,
                                "avg_ms": round(self.compression.total / self.compression.n, 3) if self.compression.n else 0.0},
                "latency": {"count": self.latency.n,
                            "avg_ms": round(self.latency.total / self.latency.n, 3) if self.latency.n else 0.0},
                "ccr": {"retrieve_rounds": self.retrieve_rounds, "retrieve_calls_answered": self.retrieve_calls},
            }

    def prometheus(self, store_stats: dict[str, Any] | None = None) -> str:
        """Prometheus text exposition format (version 0.0.4)."""
        lines: list[str] = []

        def metric(name: str, kind: str, help_: str, samples: list[tuple[dict[str, str], float]]) -> None:
            lines.append(f"# HELP {name} {help_}")
            lines.append(f"# TYPE {name} {kind}")
            for labels, value in samples:
                lab = ",".join(f'{k}="{_escape(v)}"' for k, v in labels.items())
                lines.append(f"{name}{{{lab}}} {value}" if lab else f"{name} {value}")

        with self._lock:
            metric("headroom_requests_total", "counter", "Requests handled, by API, mode and upstream status.",
                   [({"api": a, "mode": m, "status": str(s)}, n) for (a, m, s), n in sorted(self.requests.items())])
            metric("headroom_tokens_before_total", "counter", "Input tokens as clients sent them.", [({}, self.tokens_before)])
            metric("headroom_tokens_after_total", "counter", "Input tokens after compression.", [({}, self.tokens_after)])
            metric("headroom_tokens_saved_total", "counter", "Input tokens removed from forwarded requests.",
                   [({}, self.tokens_saved)])
            metric("headroom_tokens_saved_by_transform_total", "counter", "Tokens saved, by transform and strategy.",
                   [({"transform": t}, n) for t, n in sorted(self.by_transform.items())])
            metric("headroom_bypassed_total", "counter", "Requests sent with x-headroom-bypass.", [({}, self.bypassed)])
            metric("headroom_compression_failures_total", "counter", "Requests forwarded uncompressed after an error or timeout.",
                   [({}, self.compression_failures)])
            metric("headroom_stats_lag_seconds", "gauge", "Age of the oldest worker copy summed here (0: all live).",
                   [({}, round(self.lag_s, 3))])
            metric("headroom_ccr_retrieve_rounds_total", "counter", "Upstream rounds the proxy ran to answer headroom_retrieve.",
                   [({}, self.retrieve_rounds)])
            for name, hist, help_ in (("headroom_request_latency_ms", self.latency, "Whole request latency (ms)."),
                                      ("headroom_compression_latency_ms", self.compression, "Compression time (ms).")):
                lines.append(f"# HELP {name} {help_}")
                lines.append(f"# TYPE {name} histogram")
                for le, c in hist.cumulative():
                    lines.append(f'{name}_bucket{{le="{le}"}} {c}')
                lines.append(f"{name}_sum {round(hist.total, 3)}")
                lines.append(f"{name}_count {hist.n}")
        if store_stats:
            metric("headroom_ccr_entries", "gauge", "Originals held in the CCR store.", [({}, store_stats.get("entries") or 0)])
            metric("headroom_ccr_retrieve_hits_total", "counter", "CCR retrievals that found the original.",
                   [({}, store_stats.get("retrieve_hits", 0))])
            metric("headroom_ccr_retrieve_misses_total", "counter", "CCR retrievals of unknown or expired hashes.",
                   [({}, store_stats.get("retrieve_misses", 0))])
        return "\n".join(lines) + "\n"


def _escape(value: str) -> str:
    return value.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n")
