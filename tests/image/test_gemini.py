import copy

import pytest

from headroom.ccr.store import CompressionStore
from headroom.config import HeadroomConfig
from headroom.image.ocr import OcrLine, OcrResult
from headroom.image.transform import ImageTransform
from headroom.pipeline import Pipeline
from tests.image.conftest import RULES, ScriptedRouter, b64, document, photo, unb64


def _transform(ocr=None):
    return ImageTransform(HeadroomConfig(), router=ScriptedRouter(dict(RULES)), ocr=ocr)


def compress_gemini_contents(contents, *, transform, store=None):
    """Gemini bodies go through the pipeline like any other format (formats/gemini.py)."""
    pipeline = Pipeline(HeadroomConfig(), store=store or CompressionStore(), transforms=[transform])
    result = pipeline.compress_body({"contents": contents})
    assert result.format == "gemini"
    return result.body["contents"], result.decisions


@pytest.mark.parametrize("container,mime_key", [("inlineData", "mimeType"), ("inline_data", "mime_type")])
def test_gemini_inline_image_downscaled_to_768(container, mime_key):
    contents = [
        {"role": "user", "parts": [{"text": "What animal is this?"},
                                   {container: {mime_key: "image/png", "data": b64(photo(2000, 1500))}}]},
    ]
    snapshot = copy.deepcopy(contents)
    store = CompressionStore()
    out, decisions = compress_gemini_contents(contents, transform=_transform(), store=store)
    assert contents == snapshot
    part = out[0]["parts"][1]
    assert list(part) == [container] and part[container][mime_key] == "image/png"
    assert unb64(part[container]["data"]).size == (768, 576)
    assert out[0]["parts"][0] == {"text": "What animal is this?"}
    (d,) = decisions
    assert d.strategy == "downscale" and d.tokens_before == 258 * 6 and d.tokens_after == 258
    assert store.retrieve(d.ccr_hash).content == "data:image/png;base64," + snapshot[0]["parts"][1][container]["data"]


def test_gemini_transcode_and_untouched_parts():
    ocr = lambda img: OcrResult([OcrLine("TOTAL DUE 42.00", 0.99, (0, 0, 1, 1))])
    contents = [
        {"role": "user", "parts": [{"text": "Read the receipt"},
                                   {"inlineData": {"mimeType": "image/png", "data": b64(document(800, 600, 22, 8))}},
                                   {"fileData": {"mimeType": "application/pdf", "fileUri": "gs://b/x.pdf"}}]},
        {"role": "model", "parts": [{"text": "ok"}]},
    ]
    out, decisions = compress_gemini_contents(contents, transform=_transform(ocr), store=CompressionStore())
    assert out[0]["parts"][1]["text"].startswith("[Image 800x600 transcribed to text by OCR]\nTOTAL DUE 42.00")
    assert out[0]["parts"][2] == contents[0]["parts"][2]
    assert out[1] is contents[1]
    assert decisions[0].strategy == "transcode"


def test_gemini_without_images_is_a_no_op():
    contents = [{"role": "user", "parts": [{"text": "hi"}]}]
    out, decisions = compress_gemini_contents(contents, transform=_transform())
    assert out == contents and decisions == []
