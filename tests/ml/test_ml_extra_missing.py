"""Without the ml extra (a `headroom[proxy]` install), MiniLM's stages are unavailable, not
failed: the proxy's /health stays "ok" and the stage skips with the reason (scripts/smoke.sh
runs that install for real)."""

from __future__ import annotations

import importlib.util

import pytest

from headroom.ml import embeddings


@pytest.fixture
def no_ml_extra(monkeypatch):
    real = importlib.util.find_spec
    missing = {"onnxruntime", "sentence_transformers"}
    monkeypatch.setattr(importlib.util, "find_spec", lambda name, *a: None if name in missing else real(name, *a))
    embeddings._require_ml_extra.cache_clear()
    yield
    embeddings._require_ml_extra.cache_clear()


def test_minilm_without_the_ml_extra_is_an_import_error_naming_the_extra(no_ml_extra):
    with pytest.raises(ImportError, match=r"headroom\[ml\]"):
        embeddings.model("cpu")


def test_warm_up_reports_the_image_stage_unavailable_not_failed(no_ml_extra):
    from headroom.config import HeadroomConfig
    from headroom.pipeline import Pipeline
    from headroom.pipeline import UNAVAILABLE

    report = Pipeline(HeadroomConfig()).warm_up()
    assert report.get("image", "").startswith(UNAVAILABLE), report
