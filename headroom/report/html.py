"""The savings report: one self-contained HTML file (inline CSS and SVG, nothing fetched).

Sections: totals, savings over time, by model, by mode, by transform, top tools by
savings, and retrieval rates (how often the model asked for compressed originals back,
a sign of compression that was too aggressive).
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from datetime import datetime, timezone
from html import escape
from pathlib import Path
from typing import Any

from ..metrics import MetricsStore, RequestMetrics, summarize, timeline
from .charts import bar_chart, fmt_int, hbar

_CSS = """
body{font:14px/1.45 system-ui,-apple-system,Segoe UI,Roboto,sans-serif;margin:0;background:#f6f7f9;color:#1d232b}
main{max-width:980px;margin:0 auto;padding:24px}
h1{font-size:22px;margin:0 0 4px}h2{font-size:16px;margin:28px 0 8px}
.sub{color:#5b6573;margin:0 0 16px}
.cards{display:grid;grid-template-columns:repeat(auto-fit,minmax(170px,1fr));gap:10px}
.card{background:#fff;border:1px solid #e1e5ea;border-radius:8px;padding:12px}
.card .v{font-size:22px;font-weight:600}.card .k{color:#5b6573;font-size:12px}
table{border-collapse:collapse;width:100%;background:#fff;border:1px solid #e1e5ea}
th,td{padding:6px 10px;border-bottom:1px solid #eef1f4;text-align:right}
th:first-child,td:first-child{text-align:left}th{background:#f0f3f6;font-weight:600}
.chart{width:100%;height:auto;background:#fff;border:1px solid #e1e5ea;border-radius:8px}
.grid{stroke:#e6e9ee}.axis{font-size:11px;fill:#5b6573}.empty{color:#5b6573}
footer{color:#8a94a3;font-size:12px;margin-top:28px}
"""

SAVED, SENT = "#2f7d5b", "#b9c6d3"


def _table(headers: Sequence[str], rows: Sequence[Sequence[str]], cls: str) -> str:
    if not rows:
        return '<p class="empty">No data in this period.</p>'
    head = "".join(f"<th>{escape(h)}</th>" for h in headers)
    body = "".join("<tr>" + "".join(f"<td>{c}</td>" for c in r) + "</tr>" for r in rows)
    return f'<table class="{cls}"><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table>'


def _pct(part: float, whole: float) -> str:
    return f"{100 * part / whole:.1f}%" if whole else "0.0%"


def _bucket_seconds(rows: Sequence[RequestMetrics]) -> tuple[int, str]:
    span = rows[-1].timestamp - rows[0].timestamp if rows else 0
    if span <= 2 * 86400:
        return 3600, "%m-%d %H:00"
    if span <= 120 * 86400:
        return 86400, "%Y-%m-%d"
    return 7 * 86400, "%Y-%m-%d"


def render_report(rows: Sequence[RequestMetrics], *, title: str = "Headroom savings report",
                  generated_at: float | None = None) -> str:
    rows = sorted(rows, key=lambda r: r.timestamp)
    s = summarize(rows)
    t = s["totals"]
    cards = [
        ("Requests", fmt_int(t["requests"])),
        ("Input tokens (before)", fmt_int(t["tokens_before"])),
        ("Tokens saved", fmt_int(t["tokens_saved"])),
        ("Savings", f'{t["savings_pct"]:.1f}%'),
        ("Potential (audit/simulate)", fmt_int(t["potential_saved"])),
        ("Est. cost saved", f'${t["cost_saved_usd"]:,.4f}'),
        ("Provider-cached tokens", fmt_int(t["cached_tokens"])),
        ("Retrieval rate", f'{100 * t["retrieval_rate"]:.1f}%'),
    ]
    cards_html = "".join(f'<div class="card"><div class="v">{escape(v)}</div><div class="k">{escape(k)}</div></div>'
                         for k, v in cards)

    step, label_fmt = _bucket_seconds(rows)
    tl = timeline(rows, step)
    labels = [datetime.fromtimestamp(b["start"], tz=timezone.utc).strftime(label_fmt) for b in tl]
    chart = bar_chart(labels, [("tokens before", [b["tokens_before"] for b in tl], SENT),
                               ("tokens saved", [b["tokens_saved"] for b in tl], SAVED)],
                      title="Savings over time")

    top_model = max((m["tokens_saved"] for m in s["by_model"].values()), default=0)
    by_model = _table(
        ["Model", "Requests", "Tokens before", "Tokens saved", "Savings", "Potential saved", "Est. $ saved",
         "Retrievals", ""],
        [[escape(k), fmt_int(m["requests"]), fmt_int(m["tokens_before"]), fmt_int(m["tokens_saved"]),
          f'{m["savings_pct"]:.1f}%', fmt_int(m["potential_saved"]), f'${m["cost_saved_usd"]:,.4f}',
          fmt_int(m["retrievals"]), hbar(m["tokens_saved"], top_model)] for k, m in s["by_model"].items()], "by-model")
    by_mode = _table(["Mode", "Requests", "Tokens before", "Tokens saved", "Potential saved"],
                     [[escape(k), fmt_int(m["requests"]), fmt_int(m["tokens_before"]), fmt_int(m["tokens_saved"]),
                       fmt_int(m["potential_saved"])] for k, m in s["by_mode"].items()], "by-mode")
    transforms = reconcile(s["by_transform"], t, rest="(not attributed to one transform: retrieval markers, "
                                                        "message overhead, cache-alignment trailer)")
    top_tr = max((v["tokens_saved"] for v in transforms.values()), default=0)
    by_transform = _table(["Transform", "Requests", "Tokens saved", "Share", "Potential saved", ""],
                          [[escape(k), fmt_int(v["requests"]), fmt_int(v["tokens_saved"]),
                            _pct(v["tokens_saved"], t["tokens_saved"]), fmt_int(v["potential_saved"]),
                            hbar(max(v["tokens_saved"], 0), top_tr)] for k, v in transforms.items()], "by-transform")
    tool_rows = reconcile(s["by_tool"], t, keep=15, others="(other tools)",
                          rest="(not from a tool output: system prompt, arguments, dropped turns)")
    top_tool = max((v["tokens_saved"] for v in tool_rows.values()), default=0)
    tools = _table(["Tool", "Requests", "Tokens saved", "Potential saved", ""],
                   [[escape(k), fmt_int(v["requests"]), fmt_int(v["tokens_saved"]), fmt_int(v["potential_saved"]),
                     hbar(max(v["tokens_saved"], 0), top_tool)] for k, v in tool_rows.items()], "by-tool")
    retrieval = _table(
        ["Model", "Requests with markers", "Retrievals", "Retrieval rate"],
        [[escape(model), fmt_int(n_ccr), fmt_int(n_ret), _pct(n_ret, n_ccr)]
         for model, (n_ccr, n_ret) in _retrievals_by_model(rows).items()], "retrievals")

    span = ""
    if rows:
        first = datetime.fromtimestamp(rows[0].timestamp, tz=timezone.utc).strftime("%Y-%m-%d %H:%M")
        last = datetime.fromtimestamp(rows[-1].timestamp, tz=timezone.utc).strftime("%Y-%m-%d %H:%M")
        span = f"{first} – {last} UTC · "
    gen = datetime.fromtimestamp(generated_at or time.time(), tz=timezone.utc).strftime("%Y-%m-%d %H:%M UTC")
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>{escape(title)}</title><style>{_CSS}</style></head>
<body><main>
<h1>{escape(title)}</h1>
<p class="sub">{escape(span)}{fmt_int(t["requests"])} requests</p>
<section id="totals"><div class="cards">{cards_html}</div></section>
<h2>Savings over time</h2><section id="timeline">{chart}</section>
<h2>By model</h2><section id="models">{by_model}</section>
<h2>By mode</h2><section id="modes">{by_mode}</section>
<h2>By transform</h2><section id="transforms">{by_transform}</section>
<h2>Top tools by savings</h2><section id="tools">{tools}</section>
<h2>Retrieval rates</h2><section id="retrieval">{retrieval}
<p class="sub">Share of requests carrying compressed (retrievable) content whose originals the model asked
for. A high rate for a model or tool suggests compressing it less aggressively.</p></section>
<footer>Generated by headroom at {escape(gen)}. Tokens saved count optimize-mode requests; audit and simulate
requests show what optimize would have saved.</footer>
</main></body></html>
"""


def reconcile(parts: dict[str, dict[str, int]], totals: dict[str, Any], *, rest: str, keep: int | None = None,
              others: str = "") -> dict[str, dict[str, int]]:
    """A breakdown whose rows add up to the top-line figures, saved and potential alike.

    Transforms and tools record what each of them removed; the request totals also carry
    what no single one owns (markers, message overhead, the cache aligner's trailer), so
    that difference gets its own row instead of leaving the table to disagree with the
    cards. ``keep``: show that many rows and fold the rest into ``others``.
    """
    rows = dict(parts)
    if keep is not None and len(rows) > keep:
        names = list(rows)
        folded = {"requests": 0, "tokens_saved": 0, "potential_saved": 0}
        for name in names[keep:]:
            for k in ("tokens_saved", "potential_saved"):
                folded[k] += rows[name].get(k, 0)
            del rows[name]
        rows[others] = folded
    gap = {k: totals[k] - sum(r.get(k, 0) for r in rows.values()) for k in ("tokens_saved", "potential_saved")}
    if any(gap.values()):
        rows[rest] = {"requests": 0, **gap}
    return rows


def _retrievals_by_model(rows: Sequence[RequestMetrics]) -> dict[str, tuple[int, int]]:
    out: dict[str, list[int]] = {}
    for r in rows:
        if r.ccr_hashes:
            e = out.setdefault(r.model or "?", [0, 0])
            e[0] += 1
            e[1] += r.retrievals
    return {k: (v[0], v[1]) for k, v in sorted(out.items())}


def write_report(db: str | Path | MetricsStore, out: str | Path, *, title: str = "Headroom savings report",
                 **query: Any) -> dict[str, Any]:
    """Render the report for the rows of ``db`` matching ``query`` (since/until/model/mode)
    into ``out``; returns the summary it shows."""
    store = db if isinstance(db, MetricsStore) else None
    if store is None:
        if not Path(db).exists():
            raise FileNotFoundError(f"metrics database {db} does not exist: the proxy writes it (headroom proxy "
                                    "--metrics-db PATH, default headroom.db), or pass --metrics-db PATH")
        store = MetricsStore(db)
    try:
        rows = store.query(**query)
    finally:
        if store is not db:
            store.close()
    Path(out).write_text(render_report(rows, title=title), encoding="utf-8")
    return summarize(rows)
