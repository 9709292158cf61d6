"""Image facts are judged on the pixels sent: OCR of the image as the request carries it."""

from __future__ import annotations

import base64
import io

import pytest

pytest.importorskip("PIL")
pytest.importorskip("rapidocr_onnxruntime")

from headroom.eval.evidence import check_evidence, with_image_evidence  # noqa: E402
from headroom.eval.scenarios.images import images  # noqa: E402
from headroom.formats import parse  # noqa: E402
from headroom.formats.model import BlockKind  # noqa: E402


def _conv_with(scenario, transform=None, detail=None):
    from PIL import Image

    probe = scenario.probes[0]
    conv = parse({"model": "gpt-4o", "messages": scenario.openai_messages(probe)}, "openai_chat")
    [img] = [b for _, _, b in conv.blocks() if b.kind is BlockKind.IMAGE]
    if transform:
        pil = Image.open(io.BytesIO(base64.b64decode(img.image.data)))
        buf = io.BytesIO()
        transform(pil).save(buf, format="PNG")
        img.image.data = base64.b64encode(buf.getvalue()).decode()
    img.image.detail = detail
    return conv


def _judge(scenario, conv, recoverable=""):
    facts = tuple(e for p in scenario.probes for e in p.evidence)  # (error code, corner tag)
    visible, rec = with_image_evidence(facts, conv, "", recoverable)
    return check_evidence(facts, visible, rec)


@pytest.mark.slow
def test_ocr_reads_both_planted_facts_from_the_image_as_sent():
    s = images(800, 1)
    assert _judge(s, _conv_with(s)).kept == 2


@pytest.mark.slow
def test_a_crop_to_the_wrong_region_loses_the_corner_tag_from_view():
    s = images(800, 1)
    # Bottom-left quadrant: neither the centred dialog's code line nor the top-right tag fully.
    check = _judge(s, _conv_with(s, lambda im: im.crop((0, im.height // 2, im.width // 2, im.height))))
    assert check.kept == 0 and check.lost == 2
    right = _judge(s, _conv_with(s, lambda im: im.crop((im.width // 2, 0, im.width, im.height // 2))))
    assert s.probes[1].evidence[0] not in right.lost_strings  # the asked region's marker is in the crop


@pytest.mark.slow
def test_an_illegible_downscale_is_not_in_view_but_recoverable_when_the_original_is_stored():
    s = images(800, 1)
    tiny = _conv_with(s, lambda im: im.resize((80, 50)))
    assert _judge(s, tiny).lost == 2
    assert _judge(s, tiny, recoverable="data:image/png;base64,AAAA").recoverable == 2


@pytest.mark.slow
def test_low_detail_is_judged_after_the_providers_own_downscale():
    from PIL import Image, ImageDraw, ImageFont

    # 18 px text on a 2048 px canvas: legible as sent at high detail, about 4 px after
    # OpenAI fits a detail=low image into 512 px.
    img = Image.new("RGB", (2048, 1280), (255, 255, 255))
    ImageDraw.Draw(img).text((100, 100), "BLD-4821", font=ImageFont.load_default(size=18), fill=(0, 0, 0))
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    s = images(800, 1)
    s.meta["image_png_b64"] = base64.b64encode(buf.getvalue()).decode()
    facts = ("BLD-4821",)
    assert check_evidence(facts, *with_image_evidence(facts, _conv_with(s), "", "")).kept == 1
    assert check_evidence(facts, *with_image_evidence(facts, _conv_with(s, detail="low"), "", "")).kept == 0
