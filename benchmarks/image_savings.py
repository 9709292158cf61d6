"""Provider token savings on sample image requests (all images generated with PIL).

    .venv/bin/python benchmarks/image_savings.py

Each sample is a (question, image) pair sent as an OpenAI Chat request, an Anthropic
Messages request (both through ``headroom.compress()``) and Gemini ``contents`` (through
``compress_gemini_contents``). Tokens are the provider sizing estimates recorded in the
image decisions (OpenAI tiles, Anthropic w*h/750, Gemini 258 per tile); for a
transcoded image, the OCR text's tokens.
"""

from __future__ import annotations

import base64
import io
import random
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def _font(size):
    from PIL import ImageFont

    return ImageFont.load_default(size=size)


def photo(w, h, seed=0):
    import numpy as np
    from PIL import Image, ImageDraw

    rng = np.random.default_rng(seed)
    y, x = np.mgrid[0:h, 0:w]
    base = np.stack([120 + 80 * np.sin(x / 97.0), 100 + 60 * np.cos(y / 53.0), 140 + 50 * np.sin((x + y) / 71.0)], -1)
    img = Image.fromarray(np.clip(base + rng.normal(0, 18, base.shape), 0, 255).astype("uint8"))
    d, r = ImageDraw.Draw(img), random.Random(seed)
    for _ in range(30):
        x0, y0 = r.randrange(w), r.randrange(h)
        d.ellipse([x0, y0, x0 + r.randrange(20, 200), y0 + r.randrange(20, 200)], fill=tuple(r.randrange(256) for _ in range(3)))
    return img


def text_image(w, h, lines, size):
    from PIL import Image, ImageDraw

    img = Image.new("RGB", (w, h), "white")
    d = ImageDraw.Draw(img)
    for i, line in enumerate(lines):
        d.text((30, 30 + i * int(size * 1.7)), line, fill="black", font=_font(size))
    return img


def chart(w, h):
    from PIL import Image, ImageDraw

    img = Image.new("RGB", (w, h), "white")
    d = ImageDraw.Draw(img)
    for i in range(8):
        d.rectangle([80 + i * 110, h - 120 - i * 50, 150 + i * 110, h - 120], fill=(60, 120, 200))
    d.line([60, h - 120, w - 40, h - 120], fill="black", width=2)
    d.text((w // 3, h - 80), "Quarterly revenue by region", fill="black", font=_font(26))
    return img


def samples():
    err = ["Traceback (most recent call last):", '  File "app/db.py", line 17, in connect',
           "psycopg2.OperationalError: connection refused", "  Is the server running on port 5432?"]
    receipt = ["ACME HARDWARE  #0042", "hammer            12.99", "screws x100        4.50",
               "tape               3.25", "TOTAL             20.74", "VISA ****1234"]
    small_doc = [f"clause {i}: the supplier shall deliver item {i} within {i + 3} days" for i in range(70)]
    return [
        ("What animal is this?", photo(1024, 768)),
        ("Describe this photo in one sentence.", photo(3000, 2000, seed=2)),
        ("Read the error in this screenshot", text_image(1280, 400, err, 26)),
        ("What's the total on the receipt?", text_image(600, 900, receipt, 30)),
        ("What's in the top-left corner?", photo(1600, 1200, seed=3)),
        ("What is in the bottom right of the picture?", photo(2048, 1536, seed=4)),
        ("Count the rivets on the bridge", photo(1920, 1080, seed=5)),
        ("What is this chart about?", chart(1100, 800)),
        ("Read the axis labels of the chart", chart(1100, 800)),
        ("Summarize what you see", text_image(2400, 3000, small_doc, 14)),
    ]


def b64(img):
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    return base64.b64encode(buf.getvalue()).decode()


def main() -> None:
    sys.path.insert(0, str(ROOT))
    from headroom import compress
    from headroom.ccr.store import CompressionStore
    from headroom.config import HeadroomConfig
    from headroom.image.gemini import compress_gemini_contents
    from headroom.pipeline import Pipeline

    pipeline = Pipeline(HeadroomConfig(), store=CompressionStore())
    totals = {"openai": [0, 0], "anthropic": [0, 0], "google": [0, 0]}
    rows = []
    t0 = time.perf_counter()
    for q, img in samples():
        data = b64(img)
        chat = {"model": "gpt-4o", "messages": [{"role": "user", "content": [
            {"type": "text", "text": q}, {"type": "image_url", "image_url": {"url": f"data:image/png;base64,{data}"}}]}]}
        anth = {"model": "claude-sonnet-4-5", "max_tokens": 100, "messages": [{"role": "user", "content": [
            {"type": "image", "source": {"type": "base64", "media_type": "image/png", "data": data}},
            {"type": "text", "text": q}]}]}
        gem = [{"role": "user", "parts": [{"text": q}, {"inlineData": {"mimeType": "image/png", "data": data}}]}]
        ds = {
            "openai": next(d for d in compress(chat, pipeline=pipeline).decisions if d.transform == "image"),
            "anthropic": next(d for d in compress(anth, model="claude-sonnet-4-5", pipeline=pipeline).decisions
                          if d.transform == "image"),
            "google": compress_gemini_contents(gem, store=pipeline.store, memo=pipeline.memo)[1][0],
        }
        for prov, d in ds.items():
            totals[prov][0] += d.tokens_before
            totals[prov][1] += d.tokens_after
        rows.append((q, f"{img.width}x{img.height}", ds))
    elapsed = time.perf_counter() - t0

    print(f"{'question':46} {'size':>9} | {'OpenAI':>17} | {'Anthropic':>17} | {'Gemini':>17}")
    for q, size, ds in rows:
        cells = [f"{d.strategy or 'kept':>9} {d.tokens_before:>4}->{d.tokens_after:<4}" for d in ds.values()]
        print(f"{q[:46]:46} {size:>9} | " + " | ".join(cells))
    print()
    for prov, (before, after) in totals.items():
        print(f"{prov:9}: {before:6} -> {after:6} tokens  ({(before - after) / before:.1%} saved)")
    print(f"\n{len(rows)} samples x 3 providers in {elapsed:.1f} s (includes model loads and OCR)")


if __name__ == "__main__":
    main()
