"""Negative controls: compressors built to be bad, which the release gate must fail.

Both store the original behind a marker, so every fact stays *recoverable*; a gate that
counted recoverable as kept would pass them. They prove the gate looks at what the reader
actually sees.

- ``bare_marker`` replaces every tool output with its marker alone.
- ``drop_rare`` keeps a sample from the most frequent row/line templates and drops rare
  templates entirely: the opposite of what the design asks (rare items carry the news).
"""

from __future__ import annotations

import json
import re
from collections import Counter

from ..ccr.store import CompressionStore
from ..compressors.base import Compressed, CompressInput
from ..compressors.detect import ContentType
from ..config import HeadroomConfig
from ..pipeline import Pipeline
from ..transforms.router import ContentRouter

# Variable parts of a value: hex ids and digit runs (timestamps, counters, measurements).
_VARIABLE = re.compile(r"\b[0-9a-f]{6,}\b|\d+")


def template(value: object) -> str:
    """A row or line with its variable parts masked: rows of one shape share it."""
    if isinstance(value, dict):
        return json.dumps({k: template(v) for k, v in sorted(value.items())})
    if isinstance(value, list):
        return json.dumps([template(v) for v in value])
    if isinstance(value, bool) or value is None:
        return json.dumps(value)
    if isinstance(value, (int, float)):
        return "#"
    return _VARIABLE.sub("#", str(value))


class BareMarker:
    """Every tool output becomes nothing but its retrieval marker (the router adds it)."""

    name = "bare_marker"

    def compress(self, inp: CompressInput) -> Compressed | None:
        return Compressed("", max(1, len(inp.text.splitlines())), 0, "bare_marker", summary="output omitted")


class DropRare:
    """Keep ``share`` of the rows (lines), taken from the most frequent templates first."""

    name = "drop_rare"

    def __init__(self, share: float = 0.1, minimum: int = 5):
        self.share, self.minimum = share, minimum

    def compress(self, inp: CompressInput) -> Compressed | None:
        items, render = _rows(inp)
        if len(items) <= self.minimum:
            return None
        keys = [template(r) for r in items]
        counts = Counter(keys)
        budget = max(self.minimum, int(len(items) * self.share))
        ranked = sorted(range(len(items)), key=lambda i: (-counts[keys[i]], i))
        keep = sorted(i for i in ranked[:budget] if counts[keys[i]] > 1)
        return Compressed(render([items[i] for i in keep]), len(items), len(keep), "drop_rare")


def _rows(inp: CompressInput):
    """(items, render) for a JSON array of rows, an object's largest array, or text lines."""
    data = inp.parsed
    if isinstance(data, dict):
        arrays = [v for v in data.values() if isinstance(v, list)]
        data = max(arrays, key=len) if arrays else None
    if isinstance(data, list) and data:
        return data, lambda kept: json.dumps(kept)
    lines = inp.text.splitlines()
    return lines, lambda kept: "\n".join(kept)


def control_factory(compressor_type: type):
    """A pipeline whose router sends every content type to one control compressor."""

    def factory(config: HeadroomConfig, store: CompressionStore) -> Pipeline:
        c = compressor_type()
        return Pipeline(config, store=store, transforms=[ContentRouter(compressors={t: c for t in ContentType})])

    return factory
