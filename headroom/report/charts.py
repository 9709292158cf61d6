"""Tiny inline-SVG charts (no JavaScript, no CDN): the report must open offline."""

from __future__ import annotations

from collections.abc import Sequence
from html import escape


def fmt_int(n: float) -> str:
    return f"{round(n):,}"


def bar_chart(labels: Sequence[str], series: Sequence[tuple[str, Sequence[float], str]],
              *, width: int = 760, height: int = 220, title: str = "") -> str:
    """Grouped vertical bars: ``series`` is ``(name, values, css colour)``, one value per label."""
    n = len(labels)
    if n == 0:
        return '<p class="empty">No data in this period.</p>'
    top = max((v for _, values, _ in series for v in values), default=0) or 1
    pad_l, pad_b, pad_t = 64, 36, 14
    plot_w, plot_h = width - pad_l - 8, height - pad_b - pad_t
    group = plot_w / n
    bar = max(1.0, group * 0.8 / len(series))
    parts = [f'<svg class="chart" viewBox="0 0 {width} {height}" role="img" aria-label="{escape(title)}">']
    for frac in (0, 0.5, 1):  # y grid with labels
        y = pad_t + plot_h * (1 - frac)
        parts.append(f'<line x1="{pad_l}" y1="{y:.1f}" x2="{width - 8}" y2="{y:.1f}" class="grid"/>')
        parts.append(f'<text x="{pad_l - 6}" y="{y + 4:.1f}" class="axis" text-anchor="end">{fmt_int(top * frac)}</text>')
    for i, label in enumerate(labels):
        x0 = pad_l + i * group + group * 0.1
        for s, (name, values, colour) in enumerate(series):
            v = values[i]
            h = plot_h * v / top
            x = x0 + s * bar
            parts.append(f'<rect x="{x:.1f}" y="{pad_t + plot_h - h:.1f}" width="{bar:.1f}" height="{h:.1f}" '
                         f'fill="{colour}"><title>{escape(label)} · {escape(name)}: {fmt_int(v)}</title></rect>')
        every = max(1, n // 8)  # at most ~8 x labels
        if i % every == 0:
            parts.append(f'<text x="{x0 + group * 0.4:.1f}" y="{height - pad_b + 16}" class="axis" '
                         f'text-anchor="middle">{escape(label)}</text>')
    legend_x = pad_l
    for name, _, colour in series:
        parts.append(f'<rect x="{legend_x}" y="{height - 12}" width="10" height="10" fill="{colour}"/>'
                     f'<text x="{legend_x + 14}" y="{height - 3}" class="axis">{escape(name)}</text>')
        legend_x += 14 + 8 * len(name) + 20
    parts.append("</svg>")
    return "".join(parts)


def hbar(value: float, top: float, colour: str = "#2f7d5b") -> str:
    """A small inline horizontal bar for table cells."""
    w = 0 if top <= 0 else max(0.0, min(1.0, value / top)) * 120
    return f'<svg width="122" height="10" class="hbar"><rect width="{w:.1f}" height="10" fill="{colour}"/></svg>'
