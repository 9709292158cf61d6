"""The one line `headroom wrap` prints when the agent exits: what this session cost and
saved, from the proxy's /stats read before and after (a difference, so a shared proxy's
earlier traffic is not counted)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class SessionStats:
    requests: int = 0
    tokens_before: int = 0
    tokens_after: int = 0
    tokens_saved: int = 0
    retrievals: int = 0

    @classmethod
    def from_stats(cls, data: dict[str, Any] | None) -> SessionStats:
        if not data:
            return cls()
        tokens, ccr = data.get("tokens") or {}, data.get("ccr") or {}
        return cls(int((data.get("requests") or {}).get("total", 0)), int(tokens.get("before", 0)),
                   int(tokens.get("after", 0)), int(tokens.get("saved", 0)), int(ccr.get("retrieve_calls_answered", 0)))

    def __sub__(self, other: SessionStats) -> SessionStats:
        return SessionStats(*(max(0, a - b) for a, b in zip(self._values(), other._values())))

    def _values(self) -> tuple[int, ...]:
        return (self.requests, self.tokens_before, self.tokens_after, self.tokens_saved, self.retrievals)


def summary_line(stats: SessionStats | None, *, shared: bool = False) -> str:
    """``headroom: 3 requests, 16,471 -> 9,146 input tokens (7,325 saved, 44.5%), 1 retrieval``."""
    if stats is None:
        return "headroom: the proxy's /stats could not be read; no summary"
    plural = "" if stats.requests == 1 else "s"
    line = f"headroom: {stats.requests:,} request{plural}"
    if stats.tokens_before:
        pct = 100.0 * stats.tokens_saved / stats.tokens_before
        line += (f", {stats.tokens_before:,} -> {stats.tokens_after:,} input tokens "
                 f"({stats.tokens_saved:,} saved, {pct:.1f}%)")
    line += f", {stats.retrievals:,} retrieval{'' if stats.retrievals == 1 else 's'} answered by the proxy"
    if shared:
        line += " (a shared proxy: other clients' requests during the session are included)"
    return line
