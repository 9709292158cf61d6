"""Image signals: has text, is a document, is complex, has small details.

With a SigLIP checkpoint directory (``ImageConfig.siglip_path``, ``HEADROOM_SIGLIP_PATH``
or a local Hugging Face cache of google/siglip-base-patch16-224) the semantic signals
come from zero-shot prompt pairs scored by ``transformers.SiglipModel``: for each signal
the probability that the positive prompt fits better than the negative one. Without a
checkpoint, :mod:`headroom.image.stats` pixel statistics stand in.

Pixel statistics are always computed: the text line height they measure is what keeps
small text legible, which a 224-px SigLIP view cannot tell.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .stats import PixelStats, pixel_stats

# Positive prompt, negative prompt. Phrased as SigLIP's training captions tend to be.
PROMPTS: dict[str, tuple[str, str]] = {
    "has_text": ("a picture containing written text", "a picture with no text at all"),
    "is_document": ("a scanned document or a screenshot of a page", "a photograph of a real scene"),
    "is_complex": ("a busy, cluttered picture with many objects", "a simple picture with a plain background"),
    "has_small_details": ("a picture full of tiny fine details", "a picture of a few large simple shapes"),
}
SIGNALS = tuple(PROMPTS)
# Vision models read text reliably down to about this line height (in pixels).
MIN_LEGIBLE_LINE_PX = 10.0
# Share of the ink inside text lines above which an image counts as "just text".
TEXT_DOMINANT_INK_SHARE = 0.8
# Long side the "low" actions produce; used to decide whether text would survive it.
SMALL_TEXT_REFERENCE_SIDE = 512


@dataclass(frozen=True)
class ImageSignals:
    has_text: bool
    is_document: bool
    is_complex: bool
    has_small_details: bool
    source: str  # "siglip" | "pixel-stats"
    scores: dict[str, float] = field(default_factory=dict)
    stats: PixelStats | None = None

    @property
    def text_dominant(self) -> bool:
        """Text is (nearly) all there is: OCR text can stand in for the image.

        A chart or a photo of a sign has text too, but OCR would drop the bars or the
        scene; the pixel statistics tell the two apart by where the ink is.
        """
        if not self.has_text:
            return False
        if self.stats is not None and self.stats.text_lines:
            return self.stats.text_ink_share >= TEXT_DOMINANT_INK_SHARE
        return self.is_document

    @property
    def small_text(self) -> bool:
        """Text that a downscale to the 512-px reference would make illegible."""
        if not self.has_text or self.stats is None or not self.stats.line_height:
            return False
        long_side = max(self.stats.width, self.stats.height)
        shrink = min(1.0, SMALL_TEXT_REFERENCE_SIDE / long_side)
        return self.stats.line_height * shrink < MIN_LEGIBLE_LINE_PX

    def summary(self) -> str:
        extra = [name for name in ("text_dominant", "small_text") if getattr(self, name)]
        on = [s for s in SIGNALS if getattr(self, s)] + extra
        return f"{self.source}: {', '.join(on) if on else 'no text, simple'}"


def heuristic_signals(stats: PixelStats) -> dict[str, bool]:
    has_text = stats.background_share >= 0.3 and stats.text_lines >= 1 and stats.stroke_density >= 2.0
    is_document = has_text and stats.text_lines >= 3 and stats.background_share >= 0.6
    is_complex = stats.colour_entropy >= 6.0 or stats.edge_density >= 0.12
    small_text = False
    if has_text and stats.line_height:
        shrink = min(1.0, SMALL_TEXT_REFERENCE_SIDE / max(stats.width, stats.height))
        small_text = stats.line_height * shrink < MIN_LEGIBLE_LINE_PX
    return {
        "has_text": has_text,
        "is_document": is_document,
        "is_complex": is_complex,
        "has_small_details": small_text or stats.edge_density >= 0.2,
    }


class SiglipScorer:
    """A loaded SigLIP checkpoint plus the pre-embedded prompt pairs."""

    def __init__(self, model: Any, processor: Any, device: str):
        import torch

        self.model, self.processor, self.device = model, processor, device
        texts = [p for pair in PROMPTS.values() for p in pair]
        tok = processor.tokenizer(texts, padding="max_length", truncation=True, return_tensors="pt")
        with torch.inference_mode():
            feats = _features(model.get_text_features(input_ids=tok["input_ids"].to(device)))
        self.text_features = torch.nn.functional.normalize(feats, dim=-1)

    def scores(self, img: Any) -> dict[str, float]:
        import torch

        pixels = self.processor.image_processor(images=[img.convert("RGB")], return_tensors="pt")["pixel_values"]
        with torch.inference_mode():
            feats = _features(self.model.get_image_features(pixel_values=pixels.to(self.device)))
            image = torch.nn.functional.normalize(feats, dim=-1)
            logits = (image @ self.text_features.T)[0] * self.model.logit_scale.exp() + self.model.logit_bias
        pairs = logits.view(-1, 2)
        probs = torch.softmax(pairs, dim=-1)[:, 0].tolist()
        return {name: round(float(p), 4) for name, p in zip(PROMPTS, probs)}


def _features(out: Any) -> Any:
    # transformers 5 may return a model output object instead of a bare tensor.
    return out if hasattr(out, "norm") else getattr(out, "pooler_output", out)


def load_siglip(location: Any, device: str) -> SiglipScorer:
    """Loader for the model registry: checkpoint directory -> :class:`SiglipScorer`."""
    from transformers import AutoTokenizer, SiglipImageProcessorPil, SiglipModel, SiglipProcessor

    path = Path(location.path)
    model = SiglipModel.from_pretrained(str(path)).to(device).eval()
    if (path / "preprocessor_config.json").exists():
        image_processor = SiglipImageProcessorPil.from_pretrained(str(path))
    else:
        size = model.config.vision_config.image_size
        image_processor = SiglipImageProcessorPil(size={"height": size, "width": size})
    tokenizer = AutoTokenizer.from_pretrained(str(path))
    processor = SiglipProcessor(image_processor=image_processor, tokenizer=tokenizer)
    return SiglipScorer(model, processor, device)


class SignalAnalyzer:
    """Signals for an image: SigLIP when a checkpoint resolves, pixel statistics otherwise."""

    def __init__(self, siglip_path: str | None = None, device: str = "cpu", use_siglip: bool = True):
        self.siglip_path, self.device, self.use_siglip = siglip_path, device, use_siglip
        self._scorer: SiglipScorer | None = None
        self._unavailable: str | None = None if use_siglip else "disabled"
        self._lock = threading.Lock()

    @property
    def siglip_status(self) -> str:
        """``loaded``, ``not loaded yet`` or why SigLIP is not used."""
        return "loaded" if self._scorer else (self._unavailable or "not loaded yet")

    def scorer(self) -> SiglipScorer | None:
        with self._lock:
            if self._scorer is None and self._unavailable is None:
                from ..ml.registry import ModelNotFound, get_model

                try:
                    self._scorer = get_model("siglip", load_siglip, self.device, self.siglip_path)
                except ModelNotFound as exc:
                    self._unavailable = f"no checkpoint ({exc})"
                except ImportError as exc:
                    self._unavailable = f"transformers/torch missing ({exc})"
            return self._scorer

    def analyze(self, img: Any) -> ImageSignals:
        stats = pixel_stats(img)
        heur = heuristic_signals(stats)
        scorer = self.scorer()
        if scorer is None:
            return ImageSignals(**heur, source="pixel-stats", stats=stats)
        scores = scorer.scores(img)
        sem = {name: scores[name] >= 0.5 for name in SIGNALS}
        # Small text is measured, not guessed: keep the pixel verdict as a floor.
        sem["has_small_details"] = sem["has_small_details"] or heur["has_small_details"]
        return ImageSignals(**sem, source="siglip", scores=scores, stats=stats)
