"""Shared fixtures: a pipeline with a tiny, predictable lossy compressor.

The harness is tested against this stand-in so that its bookkeeping (kept /
recoverable / lost, savings, markers, retrieve loop) is checked exactly, independent of
how well the real compressors do; separate tests run the real default pipeline.
"""

from __future__ import annotations

import pytest

from headroom.ccr.store import CompressionStore
from headroom.config import HeadroomConfig
from headroom.pipeline import Pipeline
from headroom.compressors.base import Compressed, CompressInput
from headroom.compressors.detect import ContentType
from headroom.transforms.router import ContentRouter


class HeadKeeper:
    """Keeps the first ``keep`` lines of any tool output (lossy, marker + CCR via the router)."""

    name = "head_keeper"

    def __init__(self, keep: int = 5):
        self.keep = keep

    def compress(self, inp: CompressInput) -> Compressed | None:
        lines = inp.text.splitlines()
        if len(lines) <= self.keep:
            return None
        return Compressed("\n".join(lines[: self.keep]), len(lines), self.keep, "head")


def head_keeper_factory(keep: int = 5):
    def factory(config: HeadroomConfig, store: CompressionStore) -> Pipeline:
        c = HeadKeeper(keep)
        router = ContentRouter(compressors={t: c for t in ContentType})
        return Pipeline(config, store=store, transforms=[router])

    return factory


@pytest.fixture
def head_keeper_pipeline_factory():
    return head_keeper_factory()
