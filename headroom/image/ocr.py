"""Offline OCR with rapidocr-onnxruntime (PP-OCRv4 ONNX models shipped in the wheel).

The recogniser often drops the spaces of Latin text, so words are split here: blank
column runs in the line's pixels wider than a fraction of the ink height are word gaps,
and a space goes between two recognised characters whose centres straddle a gap. Confidence is
the character-weighted mean of the line scores; the caller keeps the image when it is
low.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any

_engine: Any = None
_engine_lock = threading.Lock()
# A word gap is never narrower than this share of the line's ink height.
SPACE_GAP_RATIO = 0.12


@dataclass(frozen=True)
class OcrLine:
    text: str
    confidence: float
    box: tuple[float, float, float, float]  # left, top, right, bottom


@dataclass(frozen=True)
class OcrResult:
    lines: list[OcrLine]

    @property
    def text(self) -> str:
        return "\n".join(line.text for line in self.lines)

    @property
    def confidence(self) -> float:
        chars = sum(len(line.text) for line in self.lines)
        if not chars:
            return 0.0
        return sum(line.confidence * len(line.text) for line in self.lines) / chars


def engine() -> Any:
    global _engine
    with _engine_lock:
        if _engine is None:
            from rapidocr_onnxruntime import RapidOCR

            _engine = RapidOCR()
        return _engine


def _blank_runs(gray: Any, box: tuple[int, int, int, int]) -> tuple[list[tuple[float, int]], int]:
    """(centre x in image coordinates, width) of each blank column run inside a line's ink,
    and the line's ink height."""
    import numpy as np

    left, top, right, bottom = box
    left, top = max(0, left), max(0, top)
    crop = gray[top:bottom, left:right]
    if crop.size == 0:
        return [], 0
    ink = np.abs(crop - np.median(crop)) > 60
    rows = np.flatnonzero(ink.any(axis=1))
    if not rows.size:
        return [], 0
    cols = ink.any(axis=0).tolist()
    inked = [i for i, on in enumerate(cols) if on]
    runs: list[tuple[float, int]] = []
    run_start = None
    for x in range(inked[0], inked[-1] + 1):
        if not cols[x] and run_start is None:
            run_start = x
        elif cols[x] and run_start is not None:
            runs.append((left + (run_start + x) / 2, x - run_start))
            run_start = None
    return runs, int(rows[-1] - rows[0] + 1)


def _word_gap_ratio(ratios: list[float]) -> float:
    """Split blank-run widths (as shares of the ink height, over the whole image) into
    letter gaps and word gaps: a two-class Otsu split.

    Fonts differ too much for one fixed ratio, and one line has too few gaps to split
    reliably, so the split is learned from all lines of the image at once.
    """
    fallback = 0.3
    ratios = [round(r, 3) for r in ratios]
    values = sorted(set(ratios))
    if len(values) < 2:
        return fallback
    best_t, best_var = fallback, -1.0
    for t in values[1:]:
        small = [r for r in ratios if r < t]
        large = [r for r in ratios if r >= t]
        m1, m2 = sum(small) / len(small), sum(large) / len(large)
        var = len(small) * len(large) * (m1 - m2) ** 2
        if var > best_var:
            best_t, best_var = t, var
    small = [r for r in ratios if r < best_t]
    large = [r for r in ratios if r >= best_t]
    if sum(large) / len(large) < 1.5 * (sum(small) / len(small)):
        return fallback  # one population: only clearly wide gaps are spaces
    return max(SPACE_GAP_RATIO, best_t)


def _with_spaces(chars: list[str], char_boxes: list[Any], gaps: list[float]) -> str:
    """Join recognised characters, putting a space wherever a pixel word gap falls between them."""
    if not chars or len(chars) != len(char_boxes) or not gaps:
        return "".join(chars)
    centres = [(min(p[0] for p in b) + max(p[0] for p in b)) / 2 for b in char_boxes]
    out, g = [chars[0]], 0
    for i in range(1, len(chars)):
        crossed = False
        while g < len(gaps) and gaps[g] < centres[i]:
            crossed = crossed or gaps[g] > centres[i - 1]
            g += 1
        if crossed and not chars[i - 1].isspace() and not chars[i].isspace():
            out.append(" ")
        out.append(chars[i])
    return "".join(out)


def read_text(img: Any) -> OcrResult:
    """OCR ``img`` (PIL); lines in reading order (top to bottom, then left to right)."""
    import numpy as np

    rgb = np.asarray(img.convert("RGB"))
    gray = (rgb[..., 0].astype(np.int32) * 299 + rgb[..., 1].astype(np.int32) * 587
            + rgb[..., 2].astype(np.int32) * 114) // 1000
    result, _ = engine()(rgb, return_word_box=True)
    parsed = []
    for item in result or []:
        quad = item[0]
        xs, ys = [p[0] for p in quad], [p[1] for p in quad]
        box = (int(min(xs)), int(min(ys)), int(max(xs)) + 1, int(max(ys)) + 1)
        runs, ink_height = _blank_runs(gray, box)
        parsed.append((item, box, runs, ink_height))
    ratio = _word_gap_ratio([w / h for _, _, runs, h in parsed if h for _, w in runs])
    lines: list[OcrLine] = []
    for item, box, runs, ink_height in parsed:
        text, score = item[1], float(item[2])
        if len(item) >= 5 and isinstance(item[4], list) and item[4]:
            gaps = [c for c, w in runs if ink_height and w >= max(2.0, ratio * ink_height)]
            text = _with_spaces(list(item[4]), item[3], gaps)
        lines.append(OcrLine(text.strip(), score, tuple(float(v) for v in box)))  # type: ignore[arg-type]
    lines = [ln for ln in lines if ln.text]
    lines.sort(key=lambda ln: (round(ln.box[1] / 8), ln.box[0]))
    return OcrResult(lines)
