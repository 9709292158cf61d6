"""Fixtures shared by every test folder."""

from __future__ import annotations

import os

import pytest

# Tests never reach a model hub; anything that tries must fail loudly, not hang.
os.environ.setdefault("HF_HUB_OFFLINE", "1")
os.environ.setdefault("TRANSFORMERS_OFFLINE", "1")


@pytest.fixture
def fresh_pipeline():
    """A Pipeline with its own in-memory store and memo (no state shared between tests)."""
    from headroom.ccr.store import CompressionStore
    from headroom.config import HeadroomConfig
    from headroom.pipeline import Pipeline

    def make(config: HeadroomConfig | None = None, **kw):
        cfg = config or HeadroomConfig()
        store = kw.pop("store", None) or CompressionStore(ttl_seconds=cfg.ccr.store_ttl_seconds)
        return Pipeline(cfg, store=store, **kw)

    return make
