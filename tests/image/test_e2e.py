"""headroom.compress() end to end: real router (MiniLM + shipped head), pixel signals, real OCR."""

import json

import pytest
from tests.image.conftest import b64, error_screenshot, photo, quadrants, unb64

from headroom import compress
from headroom.ccr.store import CompressionStore
from headroom.config import HeadroomConfig, ImageConfig
from headroom.formats import parse
from headroom.pipeline import Pipeline

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def pipeline():
    # A generous deadline: OCR on a busy 2-core CI machine can take seconds.
    return Pipeline(HeadroomConfig(image=ImageConfig(timeout_ms=120_000)), store=CompressionStore())


def _image_decision(result):
    (d,) = [d for d in result.decisions if d.transform == "image"]
    return d


def test_openai_chat_requests(pipeline):
    def body(q, img):
        return {"model": "gpt-4o", "messages": [{"role": "user", "content": [
            {"type": "text", "text": q},
            {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{b64(img)}"}}]}]}

    r = compress(body("What animal is this?", photo()), pipeline=pipeline)
    assert r.body["messages"][0]["content"][1]["image_url"]["detail"] == "low"
    assert _image_decision(r).tokens_after == 85

    r = compress(body("Read the error", error_screenshot()), pipeline=pipeline)
    text = r.body["messages"][0]["content"][1]
    assert text["type"] == "text" and "connection refused on port 5432" in text["text"]
    d = _image_decision(r)
    assert d.strategy == "transcode" and pipeline.store.retrieve(d.ccr_hash).content.startswith("data:image/png")
    parse(json.loads(json.dumps(r.body)), "openai_chat")

    r = compress(body("Count the whiskers", photo()), pipeline=pipeline)
    assert "detail" not in r.body["messages"][0]["content"][1]["image_url"]


def test_anthropic_requests(pipeline):
    def body(q, img):
        return {"model": "claude-sonnet-4-5", "max_tokens": 200, "messages": [{"role": "user", "content": [
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": b64(img)}},
            {"type": "text", "text": q}]}]}

    r = compress(body("What's in the top-left corner?", quadrants(1200, 900)), model="claude-sonnet-4-5",
                 pipeline=pipeline)
    src = r.body["messages"][0]["content"][0]["source"]
    cropped = unb64(src["data"]).convert("RGB")
    assert cropped.size == (600, 450) and set(cropped.getdata()) == {(255, 0, 0)}

    r = compress(body("What animal is this?", photo(1600, 1200)), model="claude-sonnet-4-5", pipeline=pipeline)
    assert max(unb64(r.body["messages"][0]["content"][0]["source"]["data"]).size) == 512
    d = _image_decision(r)
    assert d.tokens_before > 4 * d.tokens_after

    # A photo without text is never sent to OCR, even when the user asks to read it.
    r = compress(body("Read the sign", photo()), model="claude-sonnet-4-5", pipeline=pipeline)
    assert r.body["messages"][0]["content"][0]["type"] == "image"
    assert "never sent to OCR" in _image_decision(r).reason
