"""Retrieval feedback: tools whose compressed outputs the model keeps asking back for
get compressed more gently next time; tools it never asks about get compressed harder.

The signal per tool is its *retrieval rate*: distinct compressed outputs the model
retrieved / distinct compressed outputs stored, over a time window. The rate is smoothed
with a prior (``prior_strength`` pseudo-outputs at ``neutral_rate``), so a tool with no
data sits exactly at the neutral point and one retrieval moves it only a little:

    rate = (retrieved + prior_strength * neutral_rate) / (stored + prior_strength)
    aggressiveness = neutral_rate / (neutral_rate + rate)

which is 0.5 at the neutral rate, tends to 1 for a tool never retrieved and falls
towards 0 as every output gets retrieved.

Stored counts come from watching ``store.store`` on this process (the backends have no
per-tool listing). Retrievals come from the store's retrieval log, which a Redis
backend shares between replicas; a hash retrieved but not seen stored here still counts
as stored, so the rate never exceeds 1.
"""

from __future__ import annotations

import logging
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from .store import CompressionStore

UNKNOWN_TOOL = "(unknown)"

log = logging.getLogger("headroom.ccr.feedback")


@dataclass
class _ToolCounts:
    stored: set[str] = field(default_factory=set)
    retrieved: set[str] = field(default_factory=set)
    retrieval_events: int = 0
    last_retrieved_at: float | None = None
    recent_queries: list[str] = field(default_factory=list)
    expansions: int = 0
    expanded_items: int = 0


class FeedbackTracker:
    def __init__(
        self,
        store: CompressionStore,
        *,
        window_seconds: float = 6 * 3600,
        refresh_seconds: float = 5.0,
        neutral_rate: float = 0.1,
        prior_strength: float = 20.0,
        max_tracked_hashes: int = 100_000,
        background_refresh: bool = True,
        clock: Callable[[], float] = time.time,
    ):
        if not 0 < neutral_rate < 1:
            raise ValueError("neutral_rate must be between 0 and 1")
        if prior_strength <= 0:
            raise ValueError("prior_strength must be positive")
        self.store = store
        self.window_seconds = window_seconds
        self.refresh_seconds = refresh_seconds
        self.neutral_rate = neutral_rate
        self.prior_strength = prior_strength
        self.max_tracked_hashes = max_tracked_hashes
        self.background_refresh = background_refresh
        self.clock = clock
        self._refreshing: threading.Thread | None = None
        self._lock = threading.Lock()
        # hash -> (tool name, last stored at); least recently stored first, bounded.
        self._stored: OrderedDict[str, tuple[str, float]] = OrderedDict()
        # (at, tool, hash, items) per ContextTracker expansion; shown, not used for hints.
        self._expansions: deque[tuple[float, str, str, int]] = deque(maxlen=10_000)
        self._snapshot: dict[str, _ToolCounts] = {}
        self._hints: dict[str, float] = {}
        self._refreshed_at: float | None = None
        self._observe(store)

    def _observe(self, store: CompressionStore) -> None:
        """Count what the store is asked to keep, per tool, without changing the store."""
        original_store = store.store

        def store_and_count(original: str, **kw: Any) -> str:
            h = original_store(original, **kw)
            self.record_stored(h, kw.get("tool_name"))
            return h

        store.store = store_and_count  # type: ignore[method-assign]

    def record_stored(self, hash: str, tool_name: str | None) -> None:
        """Note that ``hash`` (an output of ``tool_name``) was stored; repeats count once.

        A repeat (the router re-stores a memoised output each turn) refreshes the time, so
        an output still in use stays inside the window.
        """
        if not tool_name:
            return
        with self._lock:
            self._stored[hash] = (tool_name, self.clock())
            self._stored.move_to_end(hash)
            while len(self._stored) > self.max_tracked_hashes:
                self._stored.popitem(last=False)

    def record_expansion(self, tool_name: str | None, hash: str, items: int) -> None:
        """Note that the ContextTracker expanded ``items`` items of ``hash`` proactively.

        Shown in :meth:`summary`; not a retrieval, so it does not change the hints.
        """
        with self._lock:
            self._expansions.append((self.clock(), tool_name or UNKNOWN_TOOL, hash, items))

    # -- reading -------------------------------------------------------------------

    def hints(self) -> dict[str, float]:
        """Tool name -> aggressiveness in [0, 1], cheap enough to call on every request.

        Served from a cache. Once it is older than ``refresh_seconds`` the next call starts
        one background refresh and still answers from the cache, so no request waits for
        the retrieval log to be read (tens of ms with a large log or a remote Redis). Only
        the very first call, with no cache yet, refreshes inline.
        """
        with self._lock:
            never = self._refreshed_at is None
            stale = never or self.clock() - self._refreshed_at >= self.refresh_seconds
            thread = None
            if stale and not never and self.background_refresh and self._refreshing is None:
                thread = self._refreshing = threading.Thread(
                    target=self._refresh_in_background,
                    daemon=True,
                    name="headroom-feedback-refresh",
                )
        if thread is not None:
            thread.start()
        elif stale and (never or not self.background_refresh):
            self.refresh()
        with self._lock:
            return dict(self._hints)

    def _refresh_in_background(self) -> None:
        try:
            self.refresh()
        except Exception:  # a store hiccup must not kill hints; the next call retries
            log.warning("feedback refresh failed", exc_info=True)
        finally:
            with self._lock:
                self._refreshing = None

    def wait_for_refresh(self, timeout: float | None = None) -> None:
        """Block until a background refresh in progress (if any) has finished."""
        with self._lock:
            thread = self._refreshing
        if thread is not None:
            thread.join(timeout)

    def aggressiveness(self, stored: int, retrieved: int) -> float:
        k, r0 = self.prior_strength, self.neutral_rate
        rate = (retrieved + k * r0) / (max(stored, retrieved) + k)
        return r0 / (r0 + rate)

    def summary(self) -> dict[str, Any]:
        """Everything ``GET /v1/feedback`` shows, computed fresh (the cache is for ``hints``)."""
        self.refresh()
        with self._lock:
            tools = {name: self._describe(name, c) for name, c in sorted(self._snapshot.items())}
            refreshed_at = self._refreshed_at
        return {
            "window_seconds": self.window_seconds,
            "refreshed_at": refreshed_at,
            "neutral_rate": self.neutral_rate,
            "prior_strength": self.prior_strength,
            "default_aggressiveness": 0.5,
            "totals": {
                "tools": len(tools),
                "stored": sum(t["stored"] for t in tools.values()),
                "retrieved": sum(t["retrieved"] for t in tools.values()),
                "retrieval_events": sum(t["retrieval_events"] for t in tools.values()),
                "expansions": sum(t["expansions"] for t in tools.values()),
            },
            "tools": tools,
        }

    def tool(self, name: str) -> dict[str, Any] | None:
        """What ``GET /v1/feedback/{tool}`` shows (fresh); None for a tool never seen."""
        self.refresh()
        with self._lock:
            counts = self._snapshot.get(name)
            return self._describe(name, counts) if counts is not None else None

    def refresh(self) -> None:
        """Recompute from the retrieval log now (``hints()`` does this when stale)."""
        now = self.clock()
        since = now - self.window_seconds
        events = self.store.retrievals(since)
        with self._lock:
            counts: dict[str, _ToolCounts] = {}
            hash_tool: dict[str, str] = {}
            for h, (tool, at) in self._stored.items():
                hash_tool[h] = tool
                if at >= since:
                    counts.setdefault(tool, _ToolCounts()).stored.add(h)
            for ev in events:
                tool = ev.tool_name or hash_tool.get(ev.hash) or UNKNOWN_TOOL
                c = counts.setdefault(tool, _ToolCounts())
                c.retrieved.add(ev.hash)
                c.stored.add(ev.hash)  # retrieved implies stored, even by another replica
                c.retrieval_events += 1
                c.last_retrieved_at = ev.at
                if ev.query:
                    c.recent_queries = (c.recent_queries + [ev.query])[-5:]
            for at, tool, _h, items in self._expansions:
                if at >= since:
                    c = counts.setdefault(tool, _ToolCounts())
                    c.expansions += 1
                    c.expanded_items += items
            self._snapshot = counts
            self._hints = {
                tool: self.aggressiveness(len(c.stored), len(c.retrieved))
                for tool, c in counts.items()
                if tool != UNKNOWN_TOOL and c.stored
            }
            self._refreshed_at = now

    def _describe(self, name: str, c: _ToolCounts) -> dict[str, Any]:
        stored, retrieved = len(c.stored), len(c.retrieved)
        return {
            "tool": name,
            "stored": stored,
            "retrieved": retrieved,
            "retrieval_events": c.retrieval_events,
            "retrieval_rate": retrieved / stored if stored else 0.0,
            "aggressiveness": round(self.aggressiveness(stored, retrieved), 4),
            "last_retrieved_at": c.last_retrieved_at,
            "recent_queries": list(c.recent_queries),
            "expansions": c.expansions,
            "expanded_items": c.expanded_items,
        }
