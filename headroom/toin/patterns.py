"""From counters to a learned pattern, and from a pattern to hints.

Counter names per signature (all integers, see ``learner.Toin``):

- ``seen`` outputs profiled; ``compressed`` lossy compressions (original in CCR);
  ``items_in`` / ``items_kept`` items before and after them;
- ``retrieved`` distinct compressed outputs the model asked back for; ``whole`` those it
  asked back whole at least once; ``r_full`` / ``r_query`` retrieval calls by kind;
  ``q_items`` items a query retrieval returned;
- ``s:{strategy}:c`` / ``s:{strategy}:r`` compressions per strategy and how many of them
  were retrieved (the strategy's outcome);
- ``f:{field}:q`` retrieval queries naming the field (by name or by one of its values),
  ``f:{field}:u`` later user questions naming it, ``f:{field}:rare`` of those, the ones
  naming one of its *rare* values; ``f:{field}:m:{semantic}`` votes from value statistics.
"""

from __future__ import annotations

import json
import math
from dataclasses import dataclass, field
from typing import Any

from .signature import CATEGORICAL, ERROR_INDICATOR, SEMANTICS


@dataclass
class FieldPattern:
    hash: str
    type: str
    semantic: str
    confidence: float
    named: int  # retrieval queries + later questions naming it
    named_share: float  # per lossy compression
    rare_named: int


@dataclass
class Pattern:
    signature: str
    kind: str
    tool_name: str
    seen: int
    compressed: int
    retrieved: int
    whole: int
    retrievals_full: int
    retrievals_query: int
    avg_items_kept: float
    # Items the compressor kept on its own (compressions without hints), on average.
    avg_plain_kept: float = 0.0
    fields: dict[str, FieldPattern] = field(default_factory=dict)
    strategies: dict[str, dict[str, float]] = field(default_factory=dict)

    @property
    def retrieval_rate(self) -> float:
        return min(1.0, self.retrieved / self.compressed) if self.compressed else 0.0

    @property
    def whole_rate(self) -> float:
        return min(1.0, self.whole / self.compressed) if self.compressed else 0.0

    @property
    def query_rate(self) -> float:
        """Query retrievals per compression: items looked up one by one, which a larger
        budget may have kept in view (whole retrievals are what field hints answer)."""
        return min(1.0, self.retrievals_query / self.compressed) if self.compressed else 0.0

    def suggested_budget(self, max_budget: int) -> int | None:
        """Items to keep: what the compressor keeps on its own, grown by the query rate.

        Measured on unsteered compressions, so a grown budget does not feed on itself."""
        if self.query_rate < 0.2 or self.avg_plain_kept <= 0:
            return None
        return min(max_budget, math.ceil(self.avg_plain_kept * (1 + self.query_rate)))

    def to_dict(self) -> dict[str, Any]:
        return {
            "signature": self.signature, "kind": self.kind, "tool_name": self.tool_name, "seen": self.seen,
            "compressed": self.compressed, "retrieved": self.retrieved, "retrieved_whole": self.whole,
            "retrievals_full": self.retrievals_full, "retrievals_query": self.retrievals_query,
            "retrieval_rate": round(self.retrieval_rate, 4), "whole_retrieval_rate": round(self.whole_rate, 4),
            "avg_items_kept": round(self.avg_items_kept, 2), "avg_unsteered_items_kept": round(self.avg_plain_kept, 2),
            "query_retrieval_rate": round(self.query_rate, 4), "strategies": self.strategies,
            "fields": {h: {"type": f.type, "semantic": f.semantic, "confidence": round(f.confidence, 3),
                           "named": f.named, "named_share": round(f.named_share, 3), "rare_named": f.rare_named}
                       for h, f in sorted(self.fields.items())},
        }


def build_pattern(signature: str, counts: dict[str, int], meta: dict[str, str], min_observations: int) -> Pattern:
    compressed = counts.get("compressed", 0)
    p = Pattern(signature, meta.get("kind", ""), meta.get("tool", ""), counts.get("seen", 0), compressed,
                counts.get("retrieved", 0), counts.get("whole", 0), counts.get("r_full", 0), counts.get("r_query", 0),
                counts.get("items_kept", 0) / compressed if compressed else 0.0,
                counts.get("plain_kept", 0) / counts["plain"] if counts.get("plain") else 0.0)
    types = dict(json.loads(meta["fields"])) if meta.get("fields") else {}
    for fh, ftype in types.items():
        votes = {s: counts.get(f"f:{fh}:m:{s}", 0) for s in SEMANTICS}
        total = sum(votes.values())
        best = max(votes, key=lambda s: (votes[s], s)) if total else "free_text"
        agreement = votes[best] / total if total else 0.0
        named = counts.get(f"f:{fh}:q", 0) + counts.get(f"f:{fh}:u", 0)
        rare = counts.get(f"f:{fh}:rare", 0)
        semantic = best
        # Outcome over statistics: a categorical field whose *rare* values are what people
        # ask about is where the failures show (status=failed, ok=false), whatever it is called.
        if best == CATEGORICAL and rare >= 2 and rare >= 0.5 * named:
            semantic = ERROR_INDICATOR
        conf = agreement * min(1.0, total / min_observations)
        p.fields[fh] = FieldPattern(fh, ftype, semantic, conf, named, named / compressed if compressed else 0.0, rare)
    for k, n in counts.items():
        if k.startswith("s:") and k.endswith(":c"):
            name = k[2:-2]
            r = counts.get(f"s:{name}:r", 0)
            p.strategies[name] = {"compressed": n, "retrieved": r, "retrieval_rate": round(r / n, 4) if n else 0.0}
    return p


@dataclass
class ToinHints:
    """What a compressor may read about this output's signature (``CompressInput.toin``).

    ``preserve`` maps field names *present in this output* to their learned semantics;
    ``anomaly_fields`` are those whose rare values must stay in view; ``budget`` is a
    suggested item count; ``skip`` says the output is retrieved whole nearly every time.
    """

    signature: str
    preserve: dict[str, str] = field(default_factory=dict)
    anomaly_fields: tuple[str, ...] = ()
    budget: int | None = None
    skip: bool = False
    notes: list[str] = field(default_factory=list)

    def __bool__(self) -> bool:
        return bool(self.preserve or self.anomaly_fields or self.budget or self.skip)

    def reason(self) -> str:
        return f"toin {self.signature[:8]}: " + "; ".join(self.notes)


def hints_for(pattern: Pattern, field_names: dict[str, str], config: Any, max_budget: int) -> ToinHints | None:
    """Hints for one output, or None below the confidence threshold.

    ``field_names`` maps this output's field hashes to their names (names never leave
    the process, so the pattern itself only knows hashes).
    """
    if pattern.compressed < config.min_observations:
        return None
    h = ToinHints(pattern.signature)
    for fh, fp in pattern.fields.items():
        name = field_names.get(fh)
        if name is None or fp.confidence < config.min_confidence or fp.named_share < config.preserve_share:
            continue
        h.preserve[name] = fp.semantic
        if fp.semantic in (ERROR_INDICATOR, CATEGORICAL) and fp.rare_named:
            h.anomaly_fields += (name,)
    if not h.preserve and pattern.whole_rate >= config.skip_whole_retrieval_rate:
        # Retrieved whole nearly every time, and no field to steer by: compressing only
        # costs a round trip. (With learned fields, keeping them in view comes first.)
        h.skip = True
        h.notes.append(f"skip (retrieved whole {pattern.whole_rate:.0%} of {pattern.compressed})")
        return h
    if h.preserve:
        h.notes.append("preserve " + ",".join(f"{n}({s})" for n, s in sorted(h.preserve.items())))
    if h.anomaly_fields:
        h.notes.append("anomalies in " + ",".join(sorted(h.anomaly_fields)))
    budget = pattern.suggested_budget(max_budget)
    if budget:
        h.budget = budget
        h.notes.append(f"budget {budget} (query retrievals {pattern.query_rate:.0%})")
    return h if h else None
