"""Learned replacements for IntelligentContext's keyword factors.

``importance``: how often outputs of this signature were retrieved after compression
(instead of a count of retrievals per tool name); ``error``: whether this output holds a
rare value in a field learned to be an error indicator (instead of matching words like
"error" or "failed"). Each is None when TOIN has no confident answer, and the caller
keeps its keyword factor.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

from ..ccr.markers import MARKER_RE, find_hashes
from .signature import ERROR_INDICATOR, record_rows


@dataclass
class UnitSignals:
    importance: float | None = None
    error: float | None = None
    signature: str = ""


def unit_signals(toin: Any, text: str, content_type: str, tool_name: str | None, store: Any = None) -> UnitSignals:
    """Signals for one tool result as the context budget sees it: original, or already
    compressed (then its marker's CCR entry names the signature it was learned under)."""
    if toin is None or not text:
        return UnitSignals()
    sig = None
    hashes = find_hashes(text) if store is not None else []
    if hashes:
        entry = store.get(hashes[0])
        sig = entry.meta.get("toin") if entry is not None and isinstance(entry.meta, dict) else None
        text = MARKER_RE.sub("", text)
    try:
        parsed = json.loads(text) if text.lstrip()[:1] in ("[", "{") else None
    except ValueError:
        parsed = None
    try:
        prof = toin.profile(parsed, content_type, tool_name)
        pat = toin.pattern(sig or prof.signature)
    except Exception:  # noqa: BLE001 - learning must never break the context budget
        return UnitSignals()
    out = UnitSignals(signature=pat.signature)
    cfg = toin.config
    if pat.compressed < cfg.min_observations:
        return out
    out.importance = pat.retrieval_rate
    indicators = [f for f in prof.fields.values()
                  if (fp := pat.fields.get(f.hash)) is not None and fp.semantic == ERROR_INDICATOR
                  and fp.confidence >= cfg.min_confidence]
    if indicators:
        rows = record_rows(parsed) or []
        out.error = 0.0
        for f in indicators:
            counts: dict[str, int] = {}
            for r in rows:
                if isinstance(r, dict) and f.name in r:
                    k = str(r[f.name]).lower()
                    counts[k] = counts.get(k, 0) + 1
            if len(counts) > 1 and min(counts.values()) <= 0.1 * len(rows):
                out.error = 1.0
    return out
