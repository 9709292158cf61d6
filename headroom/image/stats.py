"""Cheap pixel statistics that stand in for SigLIP when no checkpoint is installed.

They are tuned for the images agents actually send: screenshots, documents, charts and
photos. Text is found as the printed-page pattern: a dominant background colour with
thin, high-contrast "ink" arranged in horizontal bands (lines) full of stroke edges.
The median band height is the text line height, which tells how far an image can be
downscaled before its text becomes illegible.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

ANALYSIS_LONG_SIDE = 1600  # enough resolution to measure small text, bounded cost
INK_CONTRAST = 60  # luminance distance from the background that counts as ink
MIN_LINE_PX, MAX_LINE_PX = 4, 120


@dataclass(frozen=True)
class PixelStats:
    width: int
    height: int
    edge_density: float  # fraction of pixels on a strong luminance edge
    colour_entropy: float  # bits, over a 12-bit colour quantisation (max 12)
    background_share: float  # share of the most common quantised colour
    stroke_density: float  # ink-edge transitions per text-band pixel row, per 100 px
    text_lines: int  # horizontal ink bands that look like text lines
    line_height: float | None  # median text line height in original pixels
    text_ink_share: float = 0.0  # share of all ink that lies in text lines (charts, drawings: low)


def _text_bands(ink: Any, min_row_ink: float) -> list[tuple[int, int]]:
    """Runs of consecutive rows containing ink (candidate text lines)."""
    rows = ink.mean(axis=1) > min_row_ink
    bands, start = [], None
    for y, on in enumerate(rows.tolist()):
        if on and start is None:
            start = y
        elif not on and start is not None:
            bands.append((start, y))
            start = None
    if start is not None:
        bands.append((start, len(rows)))
    return bands


def pixel_stats(img: Any) -> PixelStats:
    import numpy as np

    width, height = img.size
    scale = min(1.0, ANALYSIS_LONG_SIDE / max(width, height))
    work = img.convert("RGB")
    if scale < 1.0:
        work = work.resize((max(1, round(width * scale)), max(1, round(height * scale))))
    rgb = np.asarray(work, dtype=np.int32)
    lum = (rgb[..., 0] * 299 + rgb[..., 1] * 587 + rgb[..., 2] * 114) // 1000

    gx = np.abs(np.diff(lum, axis=1))
    gy = np.abs(np.diff(lum, axis=0))
    edge_density = float(((gx[:-1, :] + gy[:, :-1]) > 48).mean()) if lum.shape[0] > 1 and lum.shape[1] > 1 else 0.0

    q = (rgb[..., 0] >> 4) << 8 | (rgb[..., 1] >> 4) << 4 | (rgb[..., 2] >> 4)
    counts = np.bincount(q.ravel(), minlength=4096).astype(np.float64)
    p = counts[counts > 0] / counts.sum()
    colour_entropy = float(-(p * np.log2(p)).sum())
    background_share = float(p.max())
    bg_code = int(counts.argmax())
    bg_rgb = np.array([(bg_code >> 8) & 15, (bg_code >> 4) & 15, bg_code & 15]) * 16 + 8
    bg_lum = (bg_rgb[0] * 299 + bg_rgb[1] * 587 + bg_rgb[2] * 114) // 1000

    ink = np.abs(lum - bg_lum) > INK_CONTRAST
    bands = _text_bands(ink, min_row_ink=0.003)
    text_heights, transitions, text_ink = [], [], 0
    for y0, y1 in bands:
        h = y1 - y0
        if not (MIN_LINE_PX * scale <= h <= MAX_LINE_PX):
            continue
        band = ink[y0:y1]
        # Letters: many on/off switches along a row, each ink run short (strokes, not blobs).
        switches = np.abs(np.diff(band.astype(np.int8), axis=1)).sum(axis=1)
        per_100px = float(switches.mean()) * 100 / max(1, band.shape[1])
        runs = band.sum() / max(1.0, switches.sum() / 2)
        if per_100px >= 2.0 and runs <= max(6.0, h * 0.8):
            text_heights.append(h / scale)
            transitions.append(per_100px)
            text_ink += int(band.sum())
    line_height = float(np.median(text_heights)) if text_heights else None
    return PixelStats(
        width=width,
        height=height,
        edge_density=round(edge_density, 4),
        colour_entropy=round(colour_entropy, 3),
        background_share=round(background_share, 4),
        stroke_density=round(float(np.mean(transitions)) if transitions else 0.0, 3),
        text_lines=len(text_heights),
        line_height=round(line_height, 1) if line_height else None,
        text_ink_share=round(text_ink / max(1, int(ink.sum())), 4),
    )


def legible_long_side(stats: PixelStats, min_line_px: float) -> int:
    """The smallest long side at which text lines stay ``min_line_px`` tall (0: no text)."""
    if not stats.line_height:
        return 0
    long_side = max(stats.width, stats.height)
    return min(long_side, math.ceil(long_side * min_line_px / stats.line_height))
