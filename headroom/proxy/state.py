"""What one proxy app holds for its lifetime: config, pipeline, upstream client, counters."""

from __future__ import annotations

import functools
import logging
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Annotated, Any

import httpx
from fastapi import Depends
from starlette.requests import Request

from ..cache import CacheOptimizer
from ..config import HeadroomConfig
from ..exchange import ExchangeCore
from ..pipeline import Pipeline
from .config import ProxyConfig
from .drain import Drain
from .stats import ProxyStats

log = logging.getLogger("headroom.proxy")
COMPRESS_THREADS = 2


@dataclass
class ProxyState:
    config: ProxyConfig
    headroom_config: HeadroomConfig
    pipeline: Pipeline
    client: httpx.AsyncClient
    stats: ProxyStats = field(default_factory=ProxyStats)
    metrics: Any = None  # headroom.metrics.MetricsStore, or None when --metrics-db is off
    feedback: Any = None  # headroom.toin.feedback.ToolFeedback (a view over TOIN), or None: feedback_error says why
    feedback_error: str | None = None
    # False when a caller handed in its pipeline: its store and TOIN stay the caller's to close.
    owns_store: bool = True
    # Pipeline.warm_up()'s report: stage -> "ok" or why its models did not load.
    warm_up: dict[str, str] = field(default_factory=dict)
    # Request compression runs here, apart from the loop's default executor. Two threads:
    # compression holds the GIL, so more of them add no throughput, only more threads
    # for the event loop to win the GIL back from after each system call (/health p99
    # under load halved against four; docs/proxy.md, "/health under load").
    compress_pool: ThreadPoolExecutor = field(
        default_factory=lambda: ThreadPoolExecutor(COMPRESS_THREADS, thread_name_prefix="headroom-request"))
    # One writer thread keeps metrics rows in order and SQLite off the event loop.
    _writer: ThreadPoolExecutor = field(default_factory=lambda: ThreadPoolExecutor(1, thread_name_prefix="headroom-metrics"))

    # Publishes this worker's counters for the others when several serve one port.
    publisher: Any = None
    # The store's files and the OCR service, checked off the event loop for /health.
    health: Any = None
    # The lame duck between SIGTERM and shutdown (--drain-delay; proxy/drain.py).
    drain: Drain = field(init=False)

    def __post_init__(self) -> None:
        from .health import HealthChecks

        self.health = HealthChecks(self.pipeline.store)
        self.drain = Drain(self.config.drain_delay_s)
        if self.config.stats_dir:
            from .shared_stats import StatsPublisher

            self.publisher = StatsPublisher(self.stats, self.config.stats_dir, extra=self._memo_counts)

    def _memo_counts(self) -> dict[str, int]:
        memo = self.pipeline.memo
        return {"memo_entries": len(memo), "memo_hits": memo.hits, "memo_misses": memo.misses}

    def whole_proxy(self) -> tuple[ProxyStats, dict[str, int], int]:
        """(counters, memo counts, workers) of the whole proxy, every worker summed."""
        if self.publisher is None:
            return self.stats, self._memo_counts(), 1
        from .shared_stats import whole_proxy

        return whole_proxy(self.publisher)

    @property
    def store(self) -> Any:
        return self.pipeline.store

    @functools.cached_property
    def core(self) -> ExchangeCore:
        """The IO-free call core every route runs through (prepare, retrieve rounds, metrics
        row), with the prompt-cache optimiser when ``--cache-optimizer`` is on."""
        cache = CacheOptimizer() if self.config.cache_optimizer else None
        return ExchangeCore(self.pipeline, cache=cache)

    def record_row(self, row: Any) -> None:
        if self.metrics is None:
            return

        def write() -> None:
            try:
                self.metrics.record(row)
            except Exception:  # metrics must never break traffic
                log.exception("could not record request metrics")

        self._writer.submit(write)

    def close(self) -> None:
        self.health.close()
        if self.publisher is not None:
            self.publisher.close()
        self.compress_pool.shutdown(wait=False, cancel_futures=True)
        self._writer.shutdown(wait=True)
        if self.metrics is not None and hasattr(self.metrics, "close"):
            self.metrics.close()


async def current_state(request: Request) -> ProxyState:
    """The app's state, for a route (``state: CurrentState``). Async on purpose: FastAPI
    runs a plain-function dependency in its thread pool, a hop /health cannot afford while
    compression holds every thread."""
    return request.app.state.headroom


# A route's parameter ``state: CurrentState`` is the app's state.
CurrentState = Annotated[ProxyState, Depends(current_state)]
