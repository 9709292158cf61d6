import pytest
from tests.image.conftest import b64, document, font, photo, quadrants, unb64

from headroom.config import ImageConfig
from headroom.formats.model import ImageData
from headroom.image.actions import compress_image, resize_long_side
from headroom.image.ocr import OcrLine, OcrResult
from headroom.image.siglip import ImageSignals, heuristic_signals
from headroom.image.stats import pixel_stats

CFG = ImageConfig()


def _signals(img) -> ImageSignals:
    stats = pixel_stats(img)
    return ImageSignals(**heuristic_signals(stats), source="pixel-stats", stats=stats)


def _run(img, technique, provider, query="", detail=None, ocr=None, cfg=CFG):
    image = ImageData(media_type="image/png", data=b64(img), detail=detail)
    return compress_image(img, image, technique, provider, _signals(img), query, cfg, ocr=ocr,
                          count_text=lambda t: len(t.split()))


def _fail_ocr(img):
    raise AssertionError("OCR must not run here")


def test_openai_full_low_sets_detail_low_and_keeps_pixels():
    img = photo()
    out = _run(img, "full_low", "openai")
    assert out.action == "low_detail"
    assert out.image.detail == "low" and out.image.data == b64(img)
    assert (out.tokens_before, out.tokens_after) == (765, 85)


@pytest.mark.parametrize("provider,long_side", [("anthropic", 512), ("google", 768)])
def test_full_low_downscales_to_the_promised_long_side(provider, long_side):
    img = photo(2000, 1000)
    out = _run(img, "full_low", provider)
    assert out.action == "downscale"
    small = unb64(out.image.data)
    assert max(small.size) == long_side
    assert small.size == out.size_after
    assert abs(small.size[0] / small.size[1] - 2.0) < 0.01  # aspect ratio kept
    assert out.image.media_type == "image/png"
    assert out.tokens_after < out.tokens_before


def test_jpeg_stays_jpeg():
    img = photo(1600, 1200)
    image = ImageData(media_type="image/jpeg", data=b64(img, "JPEG"))
    out = compress_image(img, image, "full_low", "anthropic", _signals(img), "", CFG)
    assert out.image.media_type == "image/jpeg"
    assert unb64(out.image.data).format == "JPEG"


def test_small_text_is_never_downscaled_below_legibility():
    page = document(2400, 3000, size=14, lines=80)
    out_openai = _run(page, "full_low", "openai")
    assert out_openai.action == "kept" and "illegible" in out_openai.reason
    cfg = ImageConfig(google_max_long_side=512, min_legible_line_px=6.0)
    out = _run(page, "full_low", "google", cfg=cfg)
    assert out.action == "downscale"
    new_long = max(out.size_after)
    line = _signals(page).stats.line_height
    assert new_long > 512  # held above the provider target
    assert line * new_long / 3000 >= 6.0 - 0.05  # lines stay at least 6 px tall


def test_crop_really_crops_the_named_region():
    img = quadrants(800, 600)
    out = _run(img, "crop", "anthropic", query="what's in the top-left corner?")
    assert out.action == "crop" and out.details["box"] == (0, 0, 400, 300)
    cropped = unb64(out.image.data).convert("RGB")
    assert cropped.size == (400, 300)
    assert set(cropped.getdata()) == {(255, 0, 0)}  # only the red quadrant
    out = _run(img, "crop", "anthropic", query="what is in the lower right corner")
    assert set(unb64(out.image.data).convert("RGB").getdata()) == {(255, 255, 0)}


def test_crop_without_a_region_keeps_the_image():
    out = _run(quadrants(), "crop", "openai", query="zoom in please")
    assert out.action == "kept" and "no region" in out.reason


def test_photo_without_text_is_never_sent_to_ocr():
    out = _run(photo(), "transcode", "openai", ocr=_fail_ocr)
    assert out.action == "kept" and "never sent to OCR" in out.reason


def test_low_ocr_confidence_keeps_the_image():
    low = lambda img: OcrResult([OcrLine("err0r c0nnect", 0.41, (0, 0, 1, 1))])
    out = _run(document(800, 400, 22, 6), "transcode", "openai", ocr=low)
    assert out.action == "kept" and "confidence 0.41" in out.reason


def test_confident_ocr_transcodes():
    good = lambda img: OcrResult([OcrLine("Error: disk full", 0.97, (0, 0, 1, 1))])
    out = _run(document(800, 400, 22, 6), "transcode", "anthropic", ocr=good)
    assert out.action == "transcode" and out.text == "Error: disk full"
    assert out.tokens_after == 3 < out.tokens_before


def test_preserve_and_never_worse():
    assert _run(photo(), "preserve", "openai").action == "kept"
    # Already below the provider target: nothing to gain, nothing changed.
    small = photo(300, 200)
    out = _run(small, "full_low", "anthropic")
    assert out.action == "kept" and out.tokens_after == out.tokens_before
    # A crop that saves no tiles under OpenAI's rules is not applied.
    out = _run(quadrants(300, 200), "crop", "openai", query="top left corner")
    assert out.action == "kept" and "not save" in out.reason


def test_resize_never_upscales():
    img = photo(200, 100)
    assert resize_long_side(img, 512) is img


def test_chart_with_a_title_is_not_replaced_by_its_ocr_text():
    from PIL import Image, ImageDraw

    img = Image.new("RGB", (1000, 700), "white")
    d = ImageDraw.Draw(img)
    for i in range(8):
        d.rectangle([80 + i * 110, 580 - i * 50, 150 + i * 110, 580], fill=(60, 120, 200))
    d.text((300, 620), "Quarterly revenue by region", fill="black", font=font(24))
    signals = _signals(img)
    assert signals.has_text and not signals.text_dominant
    out = _run(img, "transcode", "openai", ocr=_fail_ocr)
    assert out.action == "kept" and "more than text" in out.reason
