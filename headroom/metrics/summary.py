"""Aggregations over metrics rows: what the report, ``get_summary()`` and ``/stats`` show.

Savings are split by mode: *saved* counts optimize rows (tokens that really were not
sent); *potential* counts audit and simulate rows (what optimize would have saved).
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from ..modes import OPTIMIZE
from .row import RequestMetrics


def _bucket() -> dict[str, Any]:
    return {"requests": 0, "tokens_before": 0, "tokens_after": 0, "tokens_saved": 0,
            "potential_saved": 0, "cached_tokens": 0, "retrievals": 0, "errors": 0,
            "cost_saved_usd": 0.0}


def _add(b: dict[str, Any], r: RequestMetrics) -> None:
    b["requests"] += 1
    b["tokens_before"] += r.tokens_before
    b["cached_tokens"] += r.cached_tokens
    b["retrievals"] += r.retrievals
    b["errors"] += 1 if r.error else 0
    if r.mode == OPTIMIZE:
        b["tokens_after"] += r.tokens_after
        b["tokens_saved"] += r.tokens_saved
        b["cost_saved_usd"] += r.cost_saved_usd or 0.0
    else:
        b["tokens_after"] += r.tokens_before  # what was (or would be) sent unchanged
        b["potential_saved"] += r.tokens_saved


def _part(table: dict[str, dict[str, int]], name: str) -> dict[str, int]:
    return table.setdefault(name, {"requests": 0, "tokens_saved": 0, "potential_saved": 0})


def _finish(b: dict[str, Any]) -> dict[str, Any]:
    b["savings_pct"] = round(100.0 * b["tokens_saved"] / b["tokens_before"], 2) if b["tokens_before"] else 0.0
    b["cost_saved_usd"] = round(b["cost_saved_usd"], 6)
    return b


def summarize(rows: Iterable[RequestMetrics]) -> dict[str, Any]:
    rows = list(rows)
    total = _bucket()
    by_model: dict[str, dict[str, Any]] = {}
    by_mode: dict[str, dict[str, Any]] = {}
    by_transform: dict[str, dict[str, int]] = {}
    by_tool: dict[str, dict[str, int]] = {}
    latency = compression = 0.0
    with_ccr = 0
    for r in rows:
        _add(total, r)
        _add(by_model.setdefault(r.model or "?", _bucket()), r)
        _add(by_mode.setdefault(r.mode or "?", _bucket()), r)
        latency += r.latency_ms
        compression += r.compression_ms
        with_ccr += 1 if r.ccr_hashes else 0
        # Audit and simulate rows forwarded nothing compressed: what they would have
        # saved is potential, in these breakdowns as in the totals.
        column = "tokens_saved" if r.mode == OPTIMIZE else "potential_saved"
        for name in r.transforms_applied:
            _part(by_transform, name)["requests"] += 1
        for name, saved in r.transform_savings.items():
            _part(by_transform, name)[column] += saved
        for name in r.tool_names:
            _part(by_tool, name)["requests"] += 1
        for name, saved in r.tool_savings.items():
            _part(by_tool, name)[column] += saved
    n = len(rows)
    total.update(
        avg_latency_ms=round(latency / n, 2) if n else 0.0,
        avg_compression_ms=round(compression / n, 2) if n else 0.0,
        requests_with_ccr=with_ccr,
        # Of the requests that left retrievable markers, how often did the model ask back?
        retrieval_rate=round(total["retrievals"] / with_ccr, 4) if with_ccr else 0.0,
        first_timestamp=rows[0].timestamp if rows else None,
        last_timestamp=rows[-1].timestamp if rows else None,
    )
    by_saving = lambda d: dict(sorted(d.items(), key=lambda kv: (-kv[1]["tokens_saved"], -kv[1].get("potential_saved", 0),
                                                                 kv[0])))
    return {
        "totals": _finish(total),
        "by_model": by_saving({k: _finish(v) for k, v in by_model.items()}),
        "by_mode": {k: _finish(v) for k, v in sorted(by_mode.items())},
        "by_transform": by_saving(by_transform),
        "by_tool": by_saving(by_tool),
    }


def timeline(rows: Iterable[RequestMetrics], bucket_seconds: int = 3600) -> list[dict[str, Any]]:
    """Savings per time bucket (oldest first), for charts: start, requests, before, saved."""
    if bucket_seconds <= 0:
        raise ValueError("bucket_seconds must be positive")
    buckets: dict[int, dict[str, Any]] = {}
    for r in rows:
        start = int(r.timestamp // bucket_seconds) * bucket_seconds
        b = buckets.setdefault(start, {"start": start, "requests": 0, "tokens_before": 0, "tokens_saved": 0})
        b["requests"] += 1
        b["tokens_before"] += r.tokens_before
        b["tokens_saved"] += r.tokens_saved if r.mode == OPTIMIZE else 0
    return [buckets[k] for k in sorted(buckets)]
