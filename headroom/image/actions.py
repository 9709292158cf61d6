"""What happens to one image, per provider: the policy and the pixel operations.

Techniques (from the router) become provider actions:

- ``full_low``: a provider with a low-detail setting uses it (OpenAI ``detail: "low"``,
  flat 85 tokens); the others downscale to the long side their adapter names in the
  image config (Anthropic 512 px, Google 768). Never below the size at which measured
  text lines stay legible (``min_legible_line_px``).
- ``crop``: crop to the region the question names (quadrant, half or centre).
- ``transcode``: OCR; the text replaces the image only when text is (nearly) all the
  image holds and the OCR is confident, otherwise the image is kept.
- ``preserve``: unchanged.

Every change must also save tokens by the provider's own sizing rules (its adapter's
``IMAGES``); otherwise the image goes through untouched ("never worse").
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from ..formats import image_rules
from ..formats.model import ImageData
from . import codec
from .regions import crop_box, find_region
from .siglip import ImageSignals
from .stats import legible_long_side

MIN_CROP_SIDE = 16



@dataclass
class Outcome:
    """The result for one image. ``action`` is what was done: low_detail, downscale, crop,
    transcode, or kept (with ``reason``)."""

    action: str
    reason: str
    tokens_before: int
    tokens_after: int
    image: ImageData | None = None  # the new image (None when kept or transcoded)
    text: str | None = None  # the OCR text when transcoded
    size_before: tuple[int, int] | None = None
    size_after: tuple[int, int] | None = None
    details: dict[str, Any] = field(default_factory=dict)

    @property
    def changed(self) -> bool:
        return self.action != "kept"


def resize_long_side(img: Any, long_side: int) -> Any:
    """Downscale so the long side is at most ``long_side`` (never upscales)."""
    from PIL import Image

    w, h = img.size
    if max(w, h) <= long_side:
        return img
    s = long_side / max(w, h)
    return img.resize((max(1, round(w * s)), max(1, round(h * s))), Image.Resampling.LANCZOS)


def crop_to_region(img: Any, region: str) -> Any:
    return img.crop(crop_box(region, *img.size))


def image_tokens(provider: str, width: int, height: int, detail: str | None = None) -> int:
    """What the image costs ``provider`` in input tokens, by its adapter's sizing rule."""
    return image_rules(provider).tokens(width, height, detail)


def low_target(provider: str, cfg: Any) -> int:
    """The long side "gist is enough" downscales to, from the config field the adapter
    names (every provider without a low-detail setting names one: the contract test)."""
    return getattr(cfg, image_rules(provider).downscale_field)


def _kept(reason: str, tokens: int, size: tuple[int, int] | None) -> Outcome:
    return Outcome("kept", reason, tokens, tokens, size_before=size, size_after=size)


def _encoded(img: Any, source: ImageData) -> ImageData:
    media, data = codec.encode(img, source.media_type)
    return ImageData(media_type=media, data=data, url=None, detail=source.detail)


def compress_remote(technique: str, image: ImageData, provider: str) -> Outcome:
    """An image given by URL: nothing is fetched (offline by design), so its size and
    token cost are unknown (recorded as 0); only OpenAI's ``detail`` can change."""
    if technique == "full_low" and image_rules(provider).low_detail and image.detail != "low":
        return Outcome("low_detail", "gist is enough: detail low (remote image, size unknown)", 0, 0,
                       image=ImageData(image.media_type, image.data, image.url, "low"))
    return _kept(f"remote image not fetched (offline); technique {technique}", 0, None)


def compress_image(
    img: Any,
    image: ImageData,
    technique: str,
    provider: str,
    signals: ImageSignals,
    query: str,
    cfg: Any,
    ocr: Any = None,
    count_text: Any = None,
) -> Outcome:
    """Apply ``technique`` to a decoded image for ``provider``.

    ``ocr(img) -> OcrResult`` and ``count_text(str) -> int`` are injected so tests and
    the Gemini path reuse the policy unchanged.
    """
    size = img.size
    before = image_tokens(provider, *size, detail=image.detail)
    stats = signals.stats
    legible = legible_long_side(stats, cfg.min_legible_line_px) if stats is not None and signals.has_text else 0

    if technique == "preserve":
        return _kept("fine detail needed: kept at full resolution", before, size)

    if technique == "full_low":
        if image_rules(provider).low_detail:
            if image.detail == "low":
                return _kept("already low detail", before, size)
            if legible and legible > 512:
                return _kept(f"small text (line {stats.line_height:.0f}px) would be illegible in low detail",
                             before, size)
            return Outcome("low_detail", "gist is enough: detail low", before, image_tokens(provider, *size, "low"),
                           image=ImageData(image.media_type, image.data, image.url, "low"), size_before=size,
                           size_after=size)
        target = max(low_target(provider, cfg), legible)
        if target >= max(size):
            why = "small text: already at the legible minimum" if legible >= max(size) else "already small enough"
            return _kept(why, before, size)
        out = resize_long_side(img, target)
        after = image_tokens(provider, *out.size, detail=image.detail)
        reason = f"gist is enough: long side {max(size)} -> {max(out.size)}"
        if legible and target == legible:
            reason += f" (held at text legibility, line {stats.line_height:.0f}px)"
        return _finish("downscale", reason, before, after, out, image, size)

    if technique == "crop":
        region = find_region(query)
        if region is None:
            return _kept("crop: the question names no region", before, size)
        box = crop_box(region, *size)
        if min(box[2] - box[0], box[3] - box[1]) < MIN_CROP_SIDE:
            return _kept(f"crop: {region} region too small", before, size)
        out = img.crop(box)
        after = image_tokens(provider, *out.size, detail=image.detail)
        result = _finish("crop", f"cropped to {region} {box}", before, after, out, image, size)
        result.details["region"], result.details["box"] = region, box
        return result

    if technique == "transcode":
        if not signals.has_text:
            return _kept(f"no text detected ({signals.source}): image never sent to OCR", before, size)
        if not signals.text_dominant:
            return _kept("image has more than text (chart, drawing, scene): OCR would lose it", before, size)
        if ocr is None:  # the proxy's shared OCR process when it runs one, else this process
            from .ocr_client import default_reader

            ocr = default_reader()
        result = ocr(img)
        text = result.text.strip()
        if not text:
            return _kept("OCR found no text: image kept", before, size)
        if result.confidence < cfg.ocr_min_confidence:
            return _kept(f"OCR confidence {result.confidence:.2f} < {cfg.ocr_min_confidence}: image kept", before, size)
        after = count_text(text) if count_text else len(text) // 4 + 1
        if after >= before:
            return _kept(f"OCR text ({after} tokens) not smaller than the image ({before})", before, size)
        return Outcome("transcode", f"transcribed by OCR (confidence {result.confidence:.2f})", before, after,
                       text=text, size_before=size, details={"ocr_confidence": round(result.confidence, 4),
                                                            "ocr_lines": len(result.lines)})
    raise ValueError(f"unknown technique {technique!r}")


def _finish(action: str, reason: str, before: int, after: int, out: Any, image: ImageData,
            size: tuple[int, int]) -> Outcome:
    if after >= before:
        return _kept(f"{action} would not save tokens ({before} -> {after})", before, size)
    return Outcome(action, reason, before, after, image=_encoded(out, image), size_before=size, size_after=out.size)
