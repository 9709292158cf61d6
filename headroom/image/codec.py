"""Base64 payload <-> PIL image, keeping the sender's format where it is sensible."""

from __future__ import annotations

import base64
import binascii
import io
from typing import Any

# Formats providers accept and we re-encode to as-is; anything else becomes PNG.
_FORMATS = {"image/png": "PNG", "image/jpeg": "JPEG", "image/jpg": "JPEG", "image/webp": "WEBP"}
JPEG_QUALITY = 85
MAX_PIXELS = 50_000_000  # refuse decompression bombs before decoding them


class ImageDecodeError(ValueError):
    pass


def decode(data: str) -> Any:
    """A base64 payload -> a loaded PIL image (raises ImageDecodeError)."""
    from PIL import Image

    try:
        raw = base64.b64decode(data, validate=False)
    except (binascii.Error, ValueError) as exc:
        raise ImageDecodeError(f"invalid base64: {exc}") from None
    try:
        img = Image.open(io.BytesIO(raw))
        if img.width * img.height > MAX_PIXELS:
            raise ImageDecodeError(f"image too large to process ({img.width}x{img.height})")
        img.load()
    except ImageDecodeError:
        raise
    except Exception as exc:  # noqa: BLE001 -- PIL raises many exception types for bad input
        raise ImageDecodeError(f"not a decodable image: {type(exc).__name__}: {exc}") from None
    return img


def encode(img: Any, media_type: str | None) -> tuple[str, str]:
    """A PIL image -> (media_type, base64 payload) in the sender's format when supported."""
    fmt = _FORMATS.get((media_type or "").lower(), "PNG")
    out_media = {"PNG": "image/png", "JPEG": "image/jpeg", "WEBP": "image/webp"}[fmt]
    if fmt == "JPEG" and img.mode not in ("RGB", "L"):
        img = img.convert("RGB")
    elif fmt == "PNG" and img.mode not in ("RGB", "RGBA", "L", "LA", "P", "1"):
        img = img.convert("RGBA")
    buf = io.BytesIO()
    kwargs: dict[str, Any] = {"quality": JPEG_QUALITY} if fmt in ("JPEG", "WEBP") else {"optimize": True}
    img.save(buf, format=fmt, **kwargs)
    return out_media, base64.b64encode(buf.getvalue()).decode("ascii")
