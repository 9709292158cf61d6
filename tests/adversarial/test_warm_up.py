"""Row F8 of issue 12: /health answers only once every model the configuration enables is loaded."""

from __future__ import annotations

import base64
import io

import httpx
import pytest

from headroom.config import CCRConfig, HeadroomConfig
from headroom.ml import registry


def _png() -> str:
    from PIL import Image, ImageDraw

    img = Image.new("RGB", (900, 700), "white")
    ImageDraw.Draw(img).rectangle((100, 100, 700, 500), fill="navy")
    buf = io.BytesIO()
    img.save(buf, "PNG")
    return base64.b64encode(buf.getvalue()).decode()


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_f8_models_load_before_health_and_the_first_image_request_is_fast(fake, start_proxy):
    pytest.importorskip("PIL")
    pytest.importorskip("sentence_transformers")
    registry.unload("image-router")
    registry.unload("all-minilm-l6-v2")  # as in a fresh process
    url, _ = start_proxy(headroom_config=HeadroomConfig(ccr=CCRConfig(backend="memory")))
    names = {name for name, _, _ in registry.loaded()}
    assert {"image-router", "all-minilm-l6-v2"} <= names, names  # loaded before the server took requests
    health = httpx.get(f"{url}/health", timeout=5).json()
    assert health["status"] == "ok", health
    body = {"model": "gpt-4o", "messages": [{"role": "user", "content": [
        {"type": "text", "text": "What colour is the box?"},
        {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{_png()}"}}]}]}
    r = httpx.post(f"{url}/v1/chat/completions", json=body, timeout=60)
    assert r.status_code == 200 and r.headers.get("x-headroom-compression") != "failed"
    # Loading MiniLM took seconds; routing one question on a loaded model takes milliseconds.
    assert float(r.headers["x-headroom-compression-ms"]) < 3000


def test_f8_a_model_that_cannot_load_is_reported_as_degraded(fake, start_proxy, monkeypatch):
    from headroom.pipeline import Pipeline

    def broken(self):
        raise RuntimeError("no weights here")

    monkeypatch.setattr("headroom.image.transform.ImageTransform.warm_up", broken)
    url, _ = start_proxy(pipeline=Pipeline(HeadroomConfig(ccr=CCRConfig(backend="memory"))))
    health = httpx.get(f"{url}/health", timeout=5).json()
    assert health["status"] == "degraded" and "no weights here" in health["warm_up_failed"]["image"]


def test_f8_an_extra_that_is_not_installed_is_not_a_fault(fake, start_proxy, monkeypatch):
    """`pip install headroom[proxy]` has no torch or Pillow: the image stage is unavailable
    by design, so /health stays ok and says so instead of reporting the proxy degraded."""
    from headroom.pipeline import Pipeline

    def missing(self):
        raise ModuleNotFoundError("No module named 'torch'")

    monkeypatch.setattr("headroom.image.transform.ImageTransform.warm_up", missing)
    url, _ = start_proxy(pipeline=Pipeline(HeadroomConfig(ccr=CCRConfig(backend="memory"))))
    health = httpx.get(f"{url}/health", timeout=5).json()
    assert health["status"] == "ok", health
    assert "torch" in health["unavailable"]["image"] and "warm_up_failed" not in health
