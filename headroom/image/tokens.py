"""What an image costs in input tokens, per provider (published sizing rules).

- OpenAI (GPT-4o family): ``detail: low`` is a flat 85 tokens. Otherwise the image is
  scaled to fit 2048x2048, then so its short side is at most 768, and costs
  85 + 170 per 512-px tile. ``auto``/unset is counted as high (the upper bound).
- Anthropic: about width*height/750 tokens after the API's own downscale (long side at
  most 1568 px, about 1.15 megapixels), i.e. at most ~1600 tokens.
- Google Gemini: 258 tokens when both sides are at most 384 px, otherwise 258 per
  768x768 tile.
"""

from __future__ import annotations

import math

OPENAI_BASE, OPENAI_TILE, OPENAI_LOW = 85, 170, 85
ANTHROPIC_MAX_LONG, ANTHROPIC_MAX_PIXELS = 1568, 1_150_000
GEMINI_TILE_TOKENS, GEMINI_SMALL, GEMINI_TILE = 258, 384, 768


def openai_tokens(width: int, height: int, detail: str | None = None) -> int:
    if detail == "low":
        return OPENAI_LOW
    w, h = float(width), float(height)
    if max(w, h) > 2048:
        s = 2048 / max(w, h)
        w, h = w * s, h * s
    if min(w, h) > 768:
        s = 768 / min(w, h)
        w, h = w * s, h * s
    tiles = math.ceil(w / 512) * math.ceil(h / 512)
    return OPENAI_BASE + OPENAI_TILE * tiles


def anthropic_tokens(width: int, height: int) -> int:
    w, h = float(width), float(height)
    if max(w, h) > ANTHROPIC_MAX_LONG:
        s = ANTHROPIC_MAX_LONG / max(w, h)
        w, h = w * s, h * s
    # Above the pixel cap the image is scaled to exactly the cap: use the cap itself, as
    # w * h after a sqrt scaling can land a hair above it and round up to one token more.
    area = min(w * h, float(ANTHROPIC_MAX_PIXELS))
    return max(1, math.ceil(area / 750))


def gemini_tokens(width: int, height: int) -> int:
    if width <= GEMINI_SMALL and height <= GEMINI_SMALL:
        return GEMINI_TILE_TOKENS
    return GEMINI_TILE_TOKENS * math.ceil(width / GEMINI_TILE) * math.ceil(height / GEMINI_TILE)


def image_tokens(provider: str, width: int, height: int, detail: str | None = None) -> int:
    if provider == "openai":
        return openai_tokens(width, height, detail)
    if provider == "anthropic":
        return anthropic_tokens(width, height)
    if provider == "google":
        return gemini_tokens(width, height)
    raise ValueError(f"unknown provider {provider!r}")
