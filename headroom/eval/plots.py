"""PNG plots with matplotlib (Agg backend, imported only when plotting)."""

from __future__ import annotations

from pathlib import Path
from typing import Any


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def plot_pareto(results: dict[str, Any], path: Path) -> Path:
    """Savings vs in-view retention: one large point per configuration, small ones per
    family. A hollow ring at in view + recoverable only, joined by a line, shows how much
    of a configuration's retention exists only behind headroom_retrieve."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7, 5))
    xs: list[float] = []
    for i, (name, s) in enumerate(results["summary"].items()):
        color = f"C{i}"
        fams = list(s["families"].values())
        ax.scatter([100 * f["in_view_retention"] for f in fams], [100 * f["savings"] for f in fams], s=14,
                   alpha=0.35, color=color)
        o = s["overall"]
        view, reach, y = 100 * o["in_view_retention"], 100 * (o["in_view_retention"] + o["recoverable_only"]), 100 * o["savings"]
        ax.plot([view, reach], [y, y], color=color, lw=1, alpha=0.6)
        ax.scatter([reach], [y], s=90, facecolors="none", edgecolors=color)
        ax.scatter([view], [y], s=90, color=color, label=name, edgecolor="black")
        xs += [view] + [100 * f["in_view_retention"] for f in fams]
    ax.set_xlim(max(0.0, min(xs) - 5), 101)
    ax.set_xlabel("facts in view, % (hollow ring: + recoverable only via headroom_retrieve)")
    ax.set_ylabel("token savings, %")
    ax.set_title("Savings vs in-view retention (large: configuration, small: families)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def plot_families(results: dict[str, Any], path: Path) -> Path:
    """Per-family savings bars, one bar per configuration; facts not in view annotated
    (recoverable only / lost)."""
    plt = _pyplot()
    summary = results["summary"]
    families = sorted({f for s in summary.values() for f in s["families"]})
    n = max(1, len(summary))
    width = 0.8 / n
    fig, ax = plt.subplots(figsize=(max(7, len(families) * 0.9), 5))
    for i, (name, s) in enumerate(summary.items()):
        xs = [k + i * width for k in range(len(families))]
        vals = [100 * s["families"].get(f, {}).get("savings", 0.0) for f in families]
        bars = ax.bar(xs, vals, width, label=name)
        for b, f in zip(bars, families):
            fs = s["families"].get(f, {})
            rec, lost = fs.get("recoverable", 0), fs.get("lost", 0)
            if rec or lost:
                ax.annotate(f"{rec} rec / {lost} lost", (b.get_x() + b.get_width() / 2, b.get_height()), ha="center",
                            va="bottom", fontsize=7, color="red")
    ax.set_xticks([k + width * (n - 1) / 2 for k in range(len(families))])
    ax.set_xticklabels(families, rotation=30, ha="right")
    ax.set_ylabel("token savings, %")
    ax.set_ylim(0, 105)
    ax.set_title("Savings per scenario family")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def plot_all(results: dict[str, Any], out_dir: Path) -> list[Path]:
    return [plot_pareto(results, out_dir / "pareto.png"), plot_families(results, out_dir / "families.png")]
