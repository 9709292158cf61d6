"""Tokens and dollars saved per day, model and agent: ``headroom savings``.

A removed token is worth what the provider would have charged for it, and with a prompt
cache that is often the cache-read price, a tenth of the input price or less. Claiming
the full input price for it would overstate the savings of every long agent session,
whose history is mostly cache reads. So each request's saved tokens are split in two:

- *repeat* tokens: saved in blocks that went out compressed in an earlier request too
  (the router's memo, ``RequestMetrics.repeat_saved``). Sent uncompressed, those bytes
  would sit in the same cached prefix, so when the provider reported cache reads for the
  request (or its usage is unknown: a stream relayed as bytes, no output tokens recorded)
  they are priced at the model's cache-read price;
- every other saved token (a block compressed for the first time, or a request with no
  cache reads) at the input price.

The cache-write premium (Anthropic) that the first-time tokens would also have paid is
left out: the figure errs low, never high. A row written before ``repeat_saved`` existed
counts all its saved tokens as repeats when it had cache reads. Only optimize rows
count (audit and simulate rows forwarded the original; their savings are potential, see
``headroom report``); a model without a listed price counts tokens but no dollars.
"""

from __future__ import annotations

import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from ..metrics.row import RequestMetrics
from ..modes import OPTIMIZE
from ..providers import provider_of_model

_MILLION = 1_000_000
DAY = 86_400


@dataclass(frozen=True)
class RowSaving:
    """What one request saved: tokens at each price, and dollars (None: model unpriced)."""

    tokens_saved: int
    at_cache_price: int  # saved tokens the cache would have made cheap (priced as cache reads)
    at_input_price: int
    usd: float | None


def row_saving(row: RequestMetrics, price: Any) -> RowSaving:
    """The split and price of one optimize row's saved tokens (see the module docstring);
    ``price`` is the model's ``ModelPrice`` or None."""
    saved = max(int(row.tokens_saved or 0), 0)
    # No output tokens: headroom did not read this response's usage (a stream relayed as
    # bytes), so whether the cache was hit is unknown: assume it was.
    if row.cached_tokens > 0 or row.output_tokens <= 0:
        repeat = saved if row.repeat_saved is None else min(max(row.repeat_saved, 0), saved)
    else:
        repeat = 0  # nothing was cached: every saved token would have been billed in full
    fresh = saved - repeat
    usd = None
    if price is not None:
        read = price.cached_input if price.cached_input is not None else price.input
        usd = (fresh * price.input + repeat * read) / _MILLION
    return RowSaving(saved, repeat, fresh, usd)


def _bucket() -> dict[str, Any]:
    return {"requests": 0, "tokens_before": 0, "tokens_saved": 0, "saved_at_cache_price": 0,
            "saved_at_input_price": 0, "usd_saved": 0.0, "unpriced_tokens_saved": 0, "cached_tokens": 0,
            "retrievals": 0}


def _add(b: dict[str, Any], row: RequestMetrics, s: RowSaving) -> None:
    b["requests"] += 1
    b["tokens_before"] += row.tokens_before
    b["tokens_saved"] += s.tokens_saved
    b["saved_at_cache_price"] += s.at_cache_price
    b["saved_at_input_price"] += s.at_input_price
    b["cached_tokens"] += row.cached_tokens
    b["retrievals"] += row.retrievals
    if s.usd is None:
        b["unpriced_tokens_saved"] += s.tokens_saved
    else:
        b["usd_saved"] += s.usd


def _finish(b: dict[str, Any]) -> dict[str, Any]:
    b["usd_saved"] = round(b["usd_saved"], 6)
    b["savings_pct"] = round(100.0 * b["tokens_saved"] / b["tokens_before"], 2) if b["tokens_before"] else 0.0
    return b


def day_of(ts: float) -> str:
    return time.strftime("%Y-%m-%d", time.gmtime(ts))


def summarize_savings(rows: Iterable[RequestMetrics], *, prices: Any = None) -> dict[str, Any]:
    """Totals and breakdowns by day (UTC), model, agent, and day × model × agent.

    ``prices(model) -> ModelPrice | None`` overrides the price table (tests, custom
    contracts)."""
    lookup = prices or (lambda model: provider_of_model(model).price(model) if model else None)
    known: dict[str, Any] = {}
    total = _bucket()
    by_day: dict[str, dict[str, Any]] = {}
    by_model: dict[str, dict[str, Any]] = {}
    by_agent: dict[str, dict[str, Any]] = {}
    rows_out: dict[tuple[str, str, str], dict[str, Any]] = {}
    skipped = 0
    for row in rows:
        if row.mode != OPTIMIZE:
            skipped += 1
            continue
        if row.model not in known:
            known[row.model] = lookup(row.model)
        s = row_saving(row, known[row.model])
        day, model, agent = day_of(row.timestamp), row.model or "?", row.agent or "?"
        for b in (total, by_day.setdefault(day, _bucket()), by_model.setdefault(model, _bucket()),
                  by_agent.setdefault(agent, _bucket()), rows_out.setdefault((day, model, agent), _bucket())):
            _add(b, row, s)
    return {
        "totals": _finish(total),
        "not_optimize_requests": skipped,
        "by_day": {k: _finish(v) for k, v in sorted(by_day.items())},
        "by_model": {k: _finish(v) for k, v in sorted(by_model.items(), key=lambda kv: -kv[1]["tokens_saved"])},
        "by_agent": {k: _finish(v) for k, v in sorted(by_agent.items(), key=lambda kv: -kv[1]["tokens_saved"])},
        "rows": [{"day": d, "model": m, "agent": a, **_finish(v)} for (d, m, a), v in sorted(rows_out.items())],
    }


def savings(metrics: Any, *, days: int = 7, now: float | None = None, tenants: Any = None,
            prices: Any = None) -> dict[str, Any]:
    """:func:`summarize_savings` over the last ``days`` days (UTC days, today included)."""
    if days < 1:
        raise ValueError("--days must be at least 1")
    now = time.time() if now is None else now
    since = (int(now // DAY) - (days - 1)) * DAY
    out = summarize_savings(metrics.query(since=float(since), tenants=tenants), prices=prices)
    out.update(days=days, since=day_of(since))
    return out


def render_text(summary: dict[str, Any]) -> str:
    """The terminal table: one line per day, model and agent, then the totals."""
    t = summary["totals"]
    lines = [f"headroom savings since {summary.get('since', '?')} (UTC days; cache reads at the cache-read price)"]
    if not summary["rows"]:
        lines.append("no optimize requests recorded in this period")
        return "\n".join(lines) + "\n"
    head = f"{'day':<10}  {'model':<28} {'agent':<18} {'requests':>8} {'tokens saved':>13} {'at cache price':>15} {'USD saved':>10}"
    lines += [head, "-" * len(head)]

    def usd(b: dict[str, Any]) -> str:
        if b["unpriced_tokens_saved"] and not b["usd_saved"]:
            return "n/a"
        return f"{b['usd_saved']:.4f}" + ("*" if b["unpriced_tokens_saved"] else "")

    for r in summary["rows"]:
        lines.append(f"{r['day']:<10}  {r['model'][:28]:<28} {r['agent'][:18]:<18} {r['requests']:>8,} "
                     f"{r['tokens_saved']:>13,} {r['saved_at_cache_price']:>15,} {usd(r):>10}")
    lines.append("-" * len(head))
    lines.append(f"{'total':<10}  {'':<28} {'':<18} {t['requests']:>8,} {t['tokens_saved']:>13,} "
                 f"{t['saved_at_cache_price']:>15,} {usd(t):>10}")
    lines.append(f"saved {t['savings_pct']:.1f}% of {t['tokens_before']:,} input tokens")
    if t["unpriced_tokens_saved"]:
        lines.append(f"* {t['unpriced_tokens_saved']:,} tokens saved on models without a listed price are not in USD")
    if summary.get("not_optimize_requests"):
        lines.append(f"{summary['not_optimize_requests']:,} audit/simulate/passthrough requests not counted "
                     "(see headroom report for potential savings)")
    return "\n".join(lines) + "\n"


__all__ = ["RowSaving", "render_text", "row_saving", "savings", "summarize_savings"]
