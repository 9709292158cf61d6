"""Image compression: technique router, image signals, provider actions, OCR.

Everything heavy (MiniLM, transformers, PIL, numpy, rapidocr) is imported inside
functions, so importing this package is free; the pipeline loads
:class:`headroom.image.transform.ImageTransform` only for conversations with images.
"""

TECHNIQUES = ("full_low", "preserve", "transcode", "crop")

__all__ = ["TECHNIQUES"]
