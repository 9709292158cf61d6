"""Evaluate the shipped head on the held-out split.

Writes ``metrics.json`` (the head's accuracy, per-class precision/recall/F1 and
confusion matrix; then the library's policy: head + region rule + confidence floor) and ``confusion_matrix.png`` next to the head. It uses
the same :class:`headroom.image.router.ImageRouter` the library runs, so the numbers are
those of the shipped inference path.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .dataset import embed_all, read_split


def _plot(matrix: Any, labels: list[str], path: Path, title: str) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(5.2, 4.4), dpi=110)
    ax.imshow(matrix, cmap="Blues")
    ax.set_xticks(range(len(labels)), labels, rotation=30, ha="right")
    ax.set_yticks(range(len(labels)), labels)
    ax.set_xlabel("predicted")
    ax.set_ylabel("true")
    ax.set_title(title, fontsize=10)
    peak = matrix.max() or 1
    for i in range(len(labels)):
        for j in range(len(labels)):
            ax.text(j, i, str(matrix[i, j]), ha="center", va="center",
                    color="white" if matrix[i, j] > peak / 2 else "black")
    fig.tight_layout()
    fig.savefig(path)
    plt.close(fig)


def evaluate(data_dir: Path, model_dir: Path, device: str = "cpu", split: str = "test",
             confidence_floor: float = 0.6) -> dict[str, Any]:
    import numpy as np
    from sklearn.metrics import confusion_matrix, precision_recall_fscore_support

    from headroom.image.router import ImageRouter, RouterHead

    queries, truth = read_split(data_dir, split)
    head = RouterHead.load(model_dir)
    X = embed_all(queries, device, f"embedding {split}")
    router = ImageRouter(confidence_floor=confidence_floor, embedder=lambda _texts: X)
    router._head = head  # evaluate exactly the head in model_dir
    decisions = router.route_many(queries)
    predicted = [d.predicted for d in decisions]
    labels = head.labels
    p, r, f, s = precision_recall_fscore_support(truth, predicted, labels=labels, zero_division=0)
    cm = confusion_matrix(truth, predicted, labels=labels)
    floored = [d for d in decisions if d.below_floor]
    region_rule = [d for d in decisions if d.override == "region named"]
    applied = [d.technique for d in decisions]
    metrics = {
        "split": split,
        "examples": len(queries),
        "accuracy": round(float(np.mean(np.array(predicted) == np.array(truth))), 4),
        "per_class": {lab: {"precision": round(float(p[i]), 4), "recall": round(float(r[i]), 4),
                            "f1": round(float(f[i]), 4), "support": int(s[i])} for i, lab in enumerate(labels)},
        "confusion_matrix": {"labels": labels, "rows_true_cols_predicted": cm.tolist()},
        # What the library does: head, then the region rule, then the floor.
        "router_policy": {
            "confidence_floor": confidence_floor,
            "below_floor": len(floored),
            "region_rule_applied": len(region_rule),
            "accuracy": round(float(np.mean(np.array(applied) == np.array(truth))), 4),
            # A floored query becomes "preserve": costly only in tokens, never in quality.
            "unsafe_errors": int(sum(a != t and a != "preserve" for a, t in zip(applied, truth))),
        },
    }
    model_dir = Path(model_dir)
    (model_dir / "metrics.json").write_text(json.dumps(metrics, indent=2) + "\n")
    _plot(cm, labels, model_dir / "confusion_matrix.png",
          f"image router, held-out {split} (n={len(queries)}, acc={metrics['accuracy']:.3f})")
    return metrics
