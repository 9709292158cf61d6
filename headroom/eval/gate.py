"""The release gate: compare a results document against thresholds.

Thresholds live in ``headroom/eval/gate.toml`` (package data, so the gate works from a
wheel; read with tomllib); ``--gate-config`` points at another file and command-line values
override ``[overall]``. Nothing passes quietly:

- a configuration that was asked for and skipped fails, unless named in ``allow_skip``;
- a required family (the real-output corpus) or corpus split (the shipped gate requires dev
  and independent facts; held-out sources are measured once, at the end, and gated when a
  run holds them) that is absent fails, unless named in ``allow_missing``;
- each corpus split has its own floor and ceiling (``[splits.*]``), never pooled;
- a negative control (:mod:`headroom.eval.controls`) must fail: its failed checks are
  expected (``XFAIL``), and a control that passes everything fails the gate;
- ``[reader] min_reader_delta`` bounds the lower 95 % CI of the reader's accuracy delta
  (compressed minus original), applied only when the reader passed its competence floor.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
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
    "min_llm_contains_delta": ("", "min"),  # handled separately (reader section, mean delta)
}
READER_KEYS = {"min_reader_delta"}
REQUIRE_KEYS = {"configs", "families", "splits"}
# Arms whose delta against the original arm min_reader_delta bounds.
READER_ARMS = ("compressed", "compressed_retrieve")

# The one source of release thresholds: shipped next to this module.
DEFAULT_GATE_FILE = Path(__file__).resolve().parent / "gate.toml"


@dataclass
class Check:
    scope: str  # "deterministic", "deterministic/metrics" or "deterministic/split:heldout"
    metric: str
    threshold: float
    value: float | None
    passed: bool
    note: str = ""
    # A negative control's failed check: expected, so it does not fail the gate.
    expected_failure: bool = False

    @property
    def fails_gate(self) -> bool:
        return not self.passed and not self.expected_failure


def load_thresholds(path: str | Path | None) -> dict[str, Any]:
    """Thresholds from ``path``, or from the shipped ``gate.toml`` without one."""
    p = Path(path) if path is not None else DEFAULT_GATE_FILE
    if not p.exists():
        raise FileNotFoundError(f"gate config not found: {p}")
    data = tomllib.loads(p.read_text())
    unknown = set(data.get("overall", {})) - set(METRICS)
    for section in ("families", "splits"):
        for fam in data.get(section, {}).values():
            unknown |= set(fam) - set(METRICS)
    unknown |= set(data.get("reader", {})) - READER_KEYS
    unknown |= {f"require.{k}" for k in set(data.get("require", {})) - REQUIRE_KEYS}
    if unknown:
        raise ValueError(f"unknown gate thresholds {sorted(unknown)}; expected some of "
                         f"{sorted(METRICS | dict.fromkeys(READER_KEYS))}")
    return data


def _compare(value: float, threshold: float, direction: str) -> bool:
    return value >= threshold if direction == "min" else value <= threshold


def _metric_checks(scope: str, summary: dict[str, Any], thresholds: dict[str, Any]) -> list[Check]:
    out = []
    for metric, threshold in thresholds.items():
        key, direction = METRICS[metric]
        if not key:
            continue
        v = float(summary[key])
        out.append(Check(scope, metric, float(threshold), v, _compare(v, float(threshold), direction)))
    return out


def _config_checks(name: str, summary: dict[str, Any], overall: dict[str, Any], thresholds: dict[str, Any],
                   allow_missing: set[str]) -> list[Check]:
    """Every check of one configuration that ran."""
    checks = _metric_checks(name, summary["overall"], overall)
    if not summary["overall"]["never_worse"]:
        checks.append(Check(name, "never_worse", 1, 0, False, "some case has more tokens out than in"))
    require = thresholds.get("require", {})
    for fam, fam_thresholds in thresholds.get("families", {}).items():
        if fam in summary["families"]:
            checks += _metric_checks(f"{name}/{fam}", summary["families"][fam], fam_thresholds)
    for fam in require.get("families", []):
        if fam not in summary["families"]:
            checks.append(_missing(f"{name}/{fam}", "family", fam, allow_missing, "no case of this family ran"))
    splits = summary.get("corpus_splits", {})
    split_thresholds = thresholds.get("splits", {})
    for split in dict.fromkeys([*split_thresholds, *require.get("splits", [])]):
        scope = f"{name}/split:{split}"
        s = splits.get(split)
        if s and s.get("evidence"):
            checks += _metric_checks(scope, s, split_thresholds.get(split, {}))
        elif split in require.get("splits", []):
            why = ("no fact with basis \"independent\" in the corpus that ran" if split == "independent"
                   else "no corpus case of this split ran")
            checks.append(_missing(scope, "split", split, allow_missing, why))
    return checks


def _missing(scope: str, what: str, name: str, allow_missing: set[str], why: str) -> Check:
    allowed = name in allow_missing
    return Check(scope, "present", 1, None, allowed,
                 f"missing {what}: {why}" + (" (allowed by --allow-missing)" if allowed
                                             else f"; required (--allow-missing {name} to accept)"))


def _control_verdict(name: str, checks: list[Check]) -> list[Check]:
    """A negative control must fail some quality check; those failures are expected. A
    missing family or split is about the run, not the control, and fails as for any other."""
    for c in checks:
        c.expected_failure = not c.passed and c.metric != "present"
    failed = sum(c.expected_failure for c in checks)
    verdict = Check(name, "control_fails", 1, float(failed), failed > 0,
                    f"negative control failed {failed} checks, as it must" if failed else
                    "negative control passed every check: the gate cannot tell it from a good compressor")
    return [*checks, verdict]


def _reader_checks(llm: dict[str, Any], overall: dict[str, Any], reader: dict[str, Any]) -> list[Check]:
    checks: list[Check] = []
    delta_min = reader.get("min_reader_delta")
    mean_min = overall.get("min_llm_contains_delta")
    if delta_min is None and mean_min is None:
        return checks
    if not llm.get("reader_competent", False):
        # A reader that cannot answer from the originals says nothing about compression.
        note = (f"not applied: reader not competent (original-context accuracy "
                f"{llm.get('original_accuracy', 0.0):.2f} < floor {llm.get('competence_floor', 0.7):.2f})")
        for metric, thr in (("min_reader_delta", delta_min), ("min_llm_contains_delta", mean_min)):
            if thr is not None:
                checks.append(Check("llm", metric, float(thr), None, True, note))
        return checks
    for arm, s in llm.get("arms", {}).items():
        d = s.get("delta_contains")
        if d is None:
            continue
        ci = f"mean {d['mean']:+.3f}, 95% CI [{d['lo']:+.3f}, {d['hi']:+.3f}], n={d.get('n', '?')}"
        if delta_min is not None and arm in READER_ARMS:
            checks.append(Check(f"llm/{arm}", "min_reader_delta", float(delta_min), d["lo"],
                                d["lo"] >= float(delta_min), f"lower CI bound; {ci}"))
        if mean_min is not None:
            checks.append(Check(f"llm/{arm}", "min_llm_contains_delta", float(mean_min), d["mean"],
                                d["mean"] >= float(mean_min), ci))
    return checks


def evaluate(results: dict[str, Any], thresholds: dict[str, Any], overrides: dict[str, float] | None = None, *,
             allow_skip: Iterable[str] = (), allow_missing: Iterable[str] = ()) -> list[Check]:
    from .configs import CONTROLS

    overall = {**thresholds.get("overall", {}), **{k: v for k, v in (overrides or {}).items() if v is not None}}
    required = set(thresholds.get("require", {}).get("configs", []))
    allow_skip, allow_missing = set(allow_skip), set(allow_missing)
    checks: list[Check] = []
    for c in results.get("configs", []):
        name = c["name"]
        if c["status"] != "ok":
            allowed = name in allow_skip and name not in required
            why = ("allowed by --allow-skip" if allowed else "required configuration" if name in required
                   else f"--allow-skip {name} to accept")
            checks.append(Check(name, "status", 0, None, allowed, f"skipped: {c.get('reason')} ({why})"))
            continue
        summary = results.get("summary", {}).get(name)
        if not summary:
            checks.append(Check(name, "cases", 1, 0, False, "no cases ran"))
            continue
        mine = _config_checks(name, summary, overall, thresholds, allow_missing)
        checks += _control_verdict(name, mine) if name in CONTROLS else mine
    missing = required - {c["name"] for c in results.get("configs", [])}
    for name in sorted(missing):
        checks.append(Check(name, "status", 0, None, False, "required configuration did not run"))
    if results.get("llm"):
        checks += _reader_checks(results["llm"], overall, {**thresholds.get("reader", {}),
                                                           **({"min_reader_delta": overall["min_reader_delta"]}
                                                              if "min_reader_delta" in overall else {})})
    return checks


def headline(checks: list[Check]) -> str | None:
    """The line a gate report starts with when a reader threshold was not applied."""
    for c in checks:
        if c.metric == "min_reader_delta" and c.value is None:
            return f"min_reader_delta NOT APPLIED — {c.note.removeprefix('not applied: ')}"
    return None


def format_checks(checks: list[Check], only_failed: bool = False) -> str:
    rows = [c for c in checks if not (only_failed and c.passed)]
    head = ["result", "scope", "metric", "threshold", "value", "note"]

    def fmt(x: float | None) -> str:
        if x is None:
            return "-"
        return f"{x:.4g}"

    def verdict(c: Check) -> str:
        if c.expected_failure:
            return "XFAIL"
        if not c.passed:
            return "FAIL"
        return "SKIP" if c.value is None else "PASS"

    table = [head] + [[verdict(c), c.scope, c.metric, fmt(c.threshold), fmt(c.value), c.note]
                      for c in rows]
    widths = [max(len(r[i]) for r in table) for i in range(len(head))]
    lines = ["  ".join(cell.ljust(w) for cell, w in zip(r, widths)).rstrip() for r in table]
    first = headline(checks)
    return "\n".join([first, *lines] if first else lines)
