"""Retrieval feedback: tools whose compressed outputs the model keeps asking back for
get compressed more gently next time; tools it never asks about get compressed harder.

A view over TOIN's per-tool counts (``Toin.tool_activity``), not a learner of its own:
TOIN observes every compression, retrieval and proactive expansion and adds them to its
backend, so every worker and replica sharing that backend sees the same counts.

The signal per tool is its *retrieval rate*: outputs the model retrieved / outputs
compressed, over TOIN's feedback window. The rate is smoothed with a prior
(``prior_strength`` pseudo-outputs at ``neutral_rate``), so a tool with no data sits
exactly at the neutral point and one retrieval moves it only a little:

    rate = (retrieved + prior_strength * neutral_rate) / (stored + prior_strength)
    aggressiveness = neutral_rate / (neutral_rate + rate)

which is 0.5 at the neutral rate, tends to 1 for a tool never retrieved and falls
towards 0 as every output gets retrieved. An output retrieved in the window but
compressed before it (or by a process that did not count it) still counts as stored, so
the rate never exceeds 1.
"""

from __future__ import annotations

import logging
import threading
from typing import Any

from .learner import UNKNOWN_TOOL, Toin

RECENT_QUERIES = 5
log = logging.getLogger("headroom.toin.feedback")


class ToolFeedback:
    def __init__(
        self,
        toin: Toin,
        *,
        refresh_seconds: float = 5.0,
        neutral_rate: float = 0.1,
        prior_strength: float = 20.0,
        background_refresh: bool = True,
    ):
        if not 0 < neutral_rate < 1:
            raise ValueError("neutral_rate must be between 0 and 1")
        if prior_strength <= 0:
            raise ValueError("prior_strength must be positive")
        self.toin = toin
        self.clock = toin.wall_clock  # the time TOIN dates per-tool activity with
        self.refresh_seconds = refresh_seconds
        self.neutral_rate = neutral_rate
        self.prior_strength = prior_strength
        self.background_refresh = background_refresh
        self._refreshing: threading.Thread | None = None
        self._lock = threading.Lock()
        self._snapshot: dict[str, dict[str, Any]] = {}
        self._hints: dict[str, float] = {}
        self._refreshed_at: float | None = None

    @property
    def window_seconds(self) -> float:
        return self.toin.feedback_window_seconds

    # -- the request path ----------------------------------------------------------

    def hints(self) -> dict[str, float]:
        """Tool name -> aggressiveness in [0, 1], cheap enough to call on every request.

        Served from a cache. Once it is older than ``refresh_seconds`` the next call starts
        one background refresh and still answers from the cache, so no request waits for
        TOIN's backend (a remote Redis, a busy SQLite file). Only the very first call, with
        no cache yet, refreshes inline (the proxy's warm-up makes it). A failing backend
        leaves the last hints (none: every tool at 0.5) and is retried a refresh later.
        """
        with self._lock:
            never = self._refreshed_at is None
            stale = never or self.clock() - self._refreshed_at >= self.refresh_seconds
            thread = None
            if stale and not never and self.background_refresh and self._refreshing is None:
                thread = self._refreshing = threading.Thread(
                    target=self._refresh_in_background, daemon=True, name="headroom-feedback-refresh")
        if thread is not None:
            thread.start()
        elif stale and (never or not self.background_refresh):
            self._refresh_quietly()
        with self._lock:
            return dict(self._hints)

    def _refresh_quietly(self) -> None:
        try:
            self.refresh()
        except Exception:  # a backend hiccup must not cost a request its compression
            log.warning("feedback refresh failed; hints unchanged until the next refresh", exc_info=True)
            with self._lock:
                self._refreshed_at = self.clock()

    def _refresh_in_background(self) -> None:
        try:
            self._refresh_quietly()
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

    # -- admin reads (always fresh) ------------------------------------------------

    def refresh(self) -> None:
        """Recompute from TOIN's per-tool counts now (``hints()`` does this when stale)."""
        now = self.clock()
        counts, recent = self.toin.tool_activity()
        since = now - self.window_seconds
        snapshot = {}
        for tool in sorted(set(counts) | {t for t, times in recent.items() if max(times.values()) >= since}):
            snapshot[tool] = self._describe(tool, counts.get(tool, {}), recent.get(tool, {}), since)
        hints = {tool: self.aggressiveness(d["stored"], d["retrieved"])
                 for tool, d in snapshot.items() if tool != UNKNOWN_TOOL and d["stored"]}
        with self._lock:
            self._snapshot, self._hints, self._refreshed_at = snapshot, hints, now

    def summary(self) -> dict[str, Any]:
        """Everything ``GET /v1/feedback`` shows, computed fresh (the cache is for ``hints``)."""
        self.refresh()
        with self._lock:
            tools, refreshed_at = dict(self._snapshot), self._refreshed_at
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
        """What ``GET /v1/feedback/{tool}`` shows (fresh); None for a tool not seen in the window."""
        self.refresh()
        with self._lock:
            return self._snapshot.get(name)

    def _describe(self, name: str, c: dict[str, int], times: dict[str, float], since: float) -> dict[str, Any]:
        retrieved = c.get("retrieved", 0)
        stored = max(c.get("stored", 0), retrieved)  # retrieved implies stored, by anyone, any time
        in_window = sorted((at, q) for q, at in times.items() if at >= since)
        return {
            "tool": name,
            "stored": stored,
            "retrieved": retrieved,
            "retrieval_events": c.get("events", 0),
            "retrieval_rate": retrieved / stored if stored else 0.0,
            "aggressiveness": round(self.aggressiveness(stored, retrieved), 4),
            "last_retrieved_at": in_window[-1][0] if in_window else None,
            "recent_queries": [q for _, q in in_window if q][-RECENT_QUERIES:],
            "expansions": c.get("expansions", 0),
            "expanded_items": c.get("expanded_items", 0),
        }
