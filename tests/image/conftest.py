"""Shared fixtures: PIL-generated images, base64 helpers, a scripted router, tiny SigLIP."""

from __future__ import annotations

import base64
import io
import random
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))  # tiny_siglip helper
sys.path.insert(0, str(Path(__file__).resolve().parents[2]))  # training/ (repo root)

from headroom.image.router import RouteDecision

WORDS = ["invoice", "total", "amount", "due", "error", "failed", "connection", "timeout", "retry", "server", "config", "value"]


def font(size: int):
    from PIL import ImageFont

    return ImageFont.load_default(size=size)


def document(width: int = 1200, height: int = 1600, size: int = 22, lines: int = 30):
    from PIL import Image, ImageDraw

    img = Image.new("RGB", (width, height), "white")
    draw = ImageDraw.Draw(img)
    rng = random.Random(0)
    for i in range(lines):
        draw.text((40, 40 + i * int(size * 1.6)), " ".join(rng.choice(WORDS) for _ in range(9)), fill="black",
                  font=font(size))
    return img


def photo(width: int = 1024, height: int = 768):
    import numpy as np
    from PIL import Image, ImageDraw

    rng = np.random.default_rng(0)
    y, x = np.mgrid[0:height, 0:width]
    base = np.stack([120 + 80 * np.sin(x / 97.0), 100 + 60 * np.cos(y / 53.0), 140 + 50 * np.sin((x + y) / 71.0)], -1)
    base += rng.normal(0, 18, base.shape)
    img = Image.fromarray(np.clip(base, 0, 255).astype("uint8"))
    draw = ImageDraw.Draw(img)
    r = random.Random(1)
    for _ in range(25):
        x0, y0 = r.randrange(width), r.randrange(height)
        draw.ellipse([x0, y0, x0 + r.randrange(20, 160), y0 + r.randrange(20, 160)],
                     fill=tuple(r.randrange(256) for _ in range(3)))
    return img


def error_screenshot():
    from PIL import Image, ImageDraw

    img = Image.new("RGB", (900, 200), "white")
    draw = ImageDraw.Draw(img)
    draw.text((20, 20), "Error: connection refused on port 5432", fill="black", font=font(28))
    draw.text((20, 90), "Traceback (most recent call last): db.py line 17", fill="black", font=font(24))
    return img


def quadrants(width: int = 800, height: int = 600):
    """Four flat colours: top-left red, top-right green, bottom-left blue, bottom-right yellow."""
    from PIL import Image, ImageDraw

    img = Image.new("RGB", (width, height))
    d = ImageDraw.Draw(img)
    hw, hh = width // 2, height // 2
    d.rectangle([0, 0, hw - 1, hh - 1], fill=(255, 0, 0))
    d.rectangle([hw, 0, width - 1, hh - 1], fill=(0, 255, 0))
    d.rectangle([0, hh, hw - 1, height - 1], fill=(0, 0, 255))
    d.rectangle([hw, hh, width - 1, height - 1], fill=(255, 255, 0))
    return img


def b64(img, fmt: str = "PNG") -> str:
    buf = io.BytesIO()
    img.save(buf, format=fmt)
    return base64.b64encode(buf.getvalue()).decode("ascii")


def unb64(data: str):
    from PIL import Image

    return Image.open(io.BytesIO(base64.b64decode(data)))


class ScriptedRouter:
    """Routes by substring, so transform tests do not load MiniLM (the router has its own tests)."""

    def __init__(self, rules: dict[str, str], default: str = "preserve"):
        self.rules, self.default = rules, default
        self.calls: list[str] = []

    def route(self, query: str) -> RouteDecision:
        self.calls.append(query)
        for needle, technique in self.rules.items():
            if needle.lower() in query.lower():
                return RouteDecision(technique, 0.99, technique, {technique: 0.99})
        return RouteDecision(self.default, 0.99, self.default, {self.default: 0.99})


RULES = {"animal": "full_low", "whiskers": "preserve", "read": "transcode", "corner": "crop", "describe": "full_low"}


@pytest.fixture
def scripted_router() -> ScriptedRouter:
    return ScriptedRouter(dict(RULES))


@pytest.fixture(scope="session")
def tiny_siglip_dir(tmp_path_factory) -> Path:
    from tests.image.tiny_siglip import build_tiny_siglip

    return build_tiny_siglip(tmp_path_factory.mktemp("tiny-siglip"))
