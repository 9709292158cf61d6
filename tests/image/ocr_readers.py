"""Readers the OCR service runs in tests (``--reader tests.image.ocr_readers:NAME``).

They stand in for RapidOCR only where the test is about the process (sharing, timeouts,
crashes); the test that compares text runs the real reader.
"""

from __future__ import annotations

import os
import time

from headroom.image.ocr import OcrLine, OcrResult


def describe(img) -> OcrResult:
    """The image's size and its top-left pixel: proves the pixels crossed the socket intact."""
    return OcrResult([OcrLine(f"{img.size[0]}x{img.size[1]} {img.getpixel((0, 0))}", 1.0, (0.0, 0.0, 1.0, 1.0))])


def crash_on_black(img) -> OcrResult:
    """Dies (like a segfault in native code would) on an all-black image; describes any other."""
    if img.getbbox() is None:
        os._exit(70)
    return describe(img)


def slow(img) -> OcrResult:
    time.sleep(3.0)
    return describe(img)


def fails(img) -> OcrResult:
    raise ValueError("this image cannot be read")
