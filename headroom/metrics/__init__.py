"""Request metrics: one :class:`RequestMetrics` row per request, stored in SQLite or JSONL.

>>> store = MetricsStore("headroom.db")
>>> _ = store.record(RequestMetrics(model="gpt-4o", tokens_before=1200, tokens_after=300, tokens_saved=900))
>>> store.summary()["totals"]["tokens_saved"]
900
"""

from .row import COLUMNS, MODES, RequestMetrics
from .store import MetricsStore
from .summary import summarize, timeline

__all__ = ["COLUMNS", "MODES", "MetricsStore", "RequestMetrics", "summarize", "timeline"]
