"""Images with questions: a screenshot the user attached, and a question about its text.

The image transform may keep the image (possibly downscaled), transcribe it with OCR,
or crop it. Facts are judged on the pixels sent: OCR must read them from the image as
the request carries it (:mod:`headroom.eval.pixels`). One probe asks about the dialog in
the centre, one about a build tag planted in the top-right corner, so a crop to the
wrong region or an illegible downscale loses the fact from view. Pillow is imported only
when an image scenario is generated.
"""

from __future__ import annotations

import base64
import io
import random

from .base import Probe, Scenario, Turn

_SERVICES = ("billing-api", "auth-gateway", "search-indexer", "media-store")
_ERRORS = ("disk quota exceeded", "certificate expired", "connection pool exhausted", "schema version mismatch")


def render_screenshot(width: int, code: str, message: str, service: str, tag: str = "") -> str:
    """A dialog-style screenshot as base64 PNG."""
    from PIL import Image, ImageDraw, ImageFont

    height = width * 5 // 8
    scale = width / 1600
    img = Image.new("RGB", (width, height), (236, 236, 236))
    d = ImageDraw.Draw(img)
    d.rectangle((int(300 * scale), int(250 * scale), int(1300 * scale), int(750 * scale)), fill=(255, 255, 255),
                outline=(180, 0, 0), width=max(1, int(4 * scale)))
    big, small = ImageFont.load_default(size=max(10, int(56 * scale))), ImageFont.load_default(size=max(8, int(40 * scale)))
    d.text((int(340 * scale), int(300 * scale)), "Deployment failed", font=big, fill=(180, 0, 0))
    d.text((int(340 * scale), int(420 * scale)), f"ERROR {code}: {message}", font=small, fill=(20, 20, 20))
    d.text((int(340 * scale), int(500 * scale)), f"Service: {service}", font=small, fill=(20, 20, 20))
    if tag:  # the top-right corner's planted marker
        d.text((int(1180 * scale), int(40 * scale)), tag, font=small, fill=(20, 20, 20))
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    return base64.b64encode(buf.getvalue()).decode()


def images(size: int, seed: int) -> Scenario:
    """``size`` is the screenshot width in pixels."""
    rng = random.Random(f"images:{seed}:{size}")
    code = f"E-{rng.randint(1000, 9999)}"
    message, service = rng.choice(_ERRORS), rng.choice(_SERVICES)
    tag = f"BLD-{rng.randint(1000, 9999)}"
    png = render_screenshot(size, code, message, service, tag)
    probes = [Probe("What error code does this screenshot show?", code, (code,), kind="image"),
              Probe("Which build tag is printed in the top right corner of the screenshot?", tag, (tag,),
                    kind="image_region")]
    return Scenario("images", size, seed, "You are a support engineer. Answer from what the user shows you.",
                    [Turn("(screenshot attached)")], probes, meta={"image_png_b64": png})
