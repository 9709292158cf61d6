"""The release gate: compare a results document against thresholds.

Thresholds live in ``headroom/eval/gate.toml`` (package data, so the gate works from a
wheel; read with tomllib); ``--gate-config`` points at another file and command-line values
override ``[overall]``. A threshold applies to every configuration that ran, overall and, where the file
says so, per family. Skipped configurations are listed but do not fail the gate unless
``require`` names them.
"""

from __future__ import annotations

import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

# Metric -> (summary key, direction): "min" fails when below, "max" when above.
METRICS: dict[str, tuple[str, str]] = {
    # Facts verbatim in what the reader sees (the question excluded).
    "min_in_view_retention": ("in_view_retention", "min"),
    # Facts reachable only through headroom_retrieve: a ceiling, since every one costs a
    # round trip and a reader that does not retrieve misses it.
    "max_recoverable_only": ("recoverable_only", "max"),
    "min_savings": ("savings", "min"),
    "max_lost": ("lost", "max"),
    "max_latency_ms_median": ("latency_ms_median", "max"),
    "max_errors": ("errors", "max"),
    "min_llm_contains_delta": ("", "min"),  # handled separately (LLM section)
}

# The one source of release thresholds: shipped next to this module.
DEFAULT_GATE_FILE = Path(__file__).resolve().parent / "gate.toml"


@dataclass
class Check:
    scope: str  # "deterministic" or "deterministic/metrics"
    metric: str
    threshold: float
    value: float | None
    passed: bool
    note: str = ""


def load_thresholds(path: str | Path | None) -> dict[str, Any]:
    """Thresholds from ``path``, or from the shipped ``gate.toml`` without one."""
    p = Path(path) if path is not None else DEFAULT_GATE_FILE
    if not p.exists():
        raise FileNotFoundError(f"gate config not found: {p}")
    data = tomllib.loads(p.read_text())
    unknown = set(data.get("overall", {})) - set(METRICS)
    for fam in data.get("families", {}).values():
        unknown |= set(fam) - set(METRICS)
    if unknown:
        raise ValueError(f"unknown gate thresholds {sorted(unknown)}; expected some of {sorted(METRICS)}")
    return data


def _compare(value: float, threshold: float, direction: str) -> bool:
    return value >= threshold if direction == "min" else value <= threshold


def evaluate(results: dict[str, Any], thresholds: dict[str, Any], overrides: dict[str, float] | None = None) -> list[Check]:
    overall = {**thresholds.get("overall", {}), **{k: v for k, v in (overrides or {}).items() if v is not None}}
    families = thresholds.get("families", {})
    required = set(thresholds.get("require", {}).get("configs", []))
    checks: list[Check] = []
    for c in results.get("configs", []):
        name = c["name"]
        if c["status"] != "ok":
            checks.append(Check(name, "status", 0, None, name not in required, f"skipped: {c.get('reason')}"))
            continue
        summary = results.get("summary", {}).get(name)
        if not summary:
            checks.append(Check(name, "cases", 1, 0, False, "no cases ran"))
            continue
        for metric, threshold in overall.items():
            key, direction = METRICS[metric]
            if not key:
                continue
            v = float(summary["overall"][key])
            checks.append(Check(name, metric, float(threshold), v, _compare(v, float(threshold), direction)))
        if not summary["overall"]["never_worse"]:
            checks.append(Check(name, "never_worse", 1, 0, False, "some case has more tokens out than in"))
        for fam, fam_thresholds in families.items():
            s = summary["families"].get(fam)
            if s is None:
                continue
            for metric, threshold in fam_thresholds.items():
                key, direction = METRICS[metric]
                if not key:
                    continue
                v = float(s[key])
                checks.append(Check(f"{name}/{fam}", metric, float(threshold), v, _compare(v, float(threshold), direction)))
    missing = required - {c["name"] for c in results.get("configs", [])}
    for name in sorted(missing):
        checks.append(Check(name, "status", 0, None, False, "required configuration did not run"))
    llm_min = overall.get("min_llm_contains_delta")
    llm = results.get("llm")
    if llm_min is not None and llm and not llm.get("reader_competent", True):
        # A reader that cannot answer from the originals says nothing about compression.
        checks.append(Check("llm", "min_llm_contains_delta", float(llm_min), None, True,
                            f"ignored: reader not competent (original-context accuracy "
                            f"{llm.get('original_accuracy', 0.0):.2f} < {llm.get('competence_floor', 0.7):.2f})"))
    elif llm_min is not None and llm:
        for arm, s in llm.get("arms", {}).items():
            d = s.get("delta_contains")
            if d is not None:
                checks.append(Check(f"llm/{arm}", "min_llm_contains_delta", float(llm_min), d["mean"],
                                    d["mean"] >= float(llm_min)))
    return checks


def format_checks(checks: list[Check], only_failed: bool = False) -> str:
    rows = [c for c in checks if not (only_failed and c.passed)]
    head = ["result", "scope", "metric", "threshold", "value", "note"]

    def fmt(x: float | None) -> str:
        if x is None:
            return "-"
        return f"{x:.4g}"

    def verdict(c: Check) -> str:
        if not c.passed:
            return "FAIL"
        return "SKIP" if c.value is None else "PASS"

    table = [head] + [[verdict(c), c.scope, c.metric, fmt(c.threshold), fmt(c.value), c.note]
                      for c in rows]
    widths = [max(len(r[i]) for r in table) for i in range(len(head))]
    return "\n".join("  ".join(cell.ljust(w) for cell, w in zip(r, widths)).rstrip() for r in table)
