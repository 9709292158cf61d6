"""Image facts judged on the pixels actually sent.

An image still in the request is not proof that its facts are: a downscale can make text
illegible and a crop can cut away the region the question is about. So the image each
request would send is decoded and read with OCR (rapidocr, the ``image`` extra), after
the resize the provider itself applies for OpenAI's ``detail: "low"`` (fit into 512 px),
and a fact counts as in view only when OCR reads it there.
"""

from __future__ import annotations

import base64
import hashlib
import io
import re
from functools import lru_cache

from ..formats.model import BlockKind, Conversation

# OpenAI scales a low-detail image to fit a 512 x 512 square before the model sees it.
LOW_DETAIL_SIDE = 512
_NOISE = re.compile(r"[\s\-_:.]+")


def normalize(text: str) -> str:
    """OCR output and planted facts compared without case, spaces or separators
    (``E-4821`` may read as ``E4821`` or ``E 4821``)."""
    return _NOISE.sub("", text).upper()


def sent_image_text(conv: Conversation) -> str:
    """Normalised OCR text of every image block ``conv`` still sends ('' when none)."""
    parts = []
    for _, _, b in conv.blocks():
        if b.kind is BlockKind.IMAGE and b.image is not None and b.image.data:
            parts.append(_read(b.image.data, b.image.detail == "low"))
    return "\n".join(parts)


def _read(data_b64: str, low_detail: bool) -> str:
    return _read_cached(hashlib.sha256(data_b64.encode()).hexdigest(), data_b64, low_detail)


@lru_cache(maxsize=256)
def _read_cached(_digest: str, data_b64: str, low_detail: bool) -> str:
    # Keyed on the digest too so the cache's hashing of a multi-megabyte string stays cheap
    # to compare; the same image recurs across probes and wire formats.
    from PIL import Image

    from ..image.ocr import read_text

    img = Image.open(io.BytesIO(base64.b64decode(data_b64)))
    img.load()
    if low_detail and max(img.size) > LOW_DETAIL_SIDE:
        img = img.copy()
        img.thumbnail((LOW_DETAIL_SIDE, LOW_DETAIL_SIDE))
    return normalize(read_text(img).text)
