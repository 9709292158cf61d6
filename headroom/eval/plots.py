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
    """Savings vs fact retention: one large point per configuration, small ones per family."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7, 5))
    for i, (name, s) in enumerate(results["summary"].items()):
        color = f"C{i}"
        fams = s["families"].values()
        ax.scatter([100 * f["fact_retention"] for f in fams], [100 * f["savings"] for f in fams], s=14, alpha=0.35,
                   color=color)
        o = s["overall"]
        ax.scatter([100 * o["fact_retention"]], [100 * o["savings"]], s=90, color=color, label=name, edgecolor="black")
    lowest = min([100 * s["overall"]["fact_retention"] for s in results["summary"].values()]
                 + [100 * f["fact_retention"] for s in results["summary"].values() for f in s["families"].values()])
    ax.set_xlim(max(0.0, lowest - 5), 101)
    ax.set_xlabel("fact retention (kept or recoverable), %")
    ax.set_ylabel("token savings, %")
    ax.set_title("Savings vs retention (large: configuration, small: families)")
    ax.grid(alpha=0.3)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def plot_families(results: dict[str, Any], path: Path) -> Path:
    """Per-family savings bars, one bar per configuration; lost facts annotated."""
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
            lost = s["families"].get(f, {}).get("lost", 0)
            if lost:
                ax.annotate(f"{lost} lost", (b.get_x() + b.get_width() / 2, b.get_height()), ha="center",
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
