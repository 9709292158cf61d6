"""The region of an image a question names, and its pixel box.

Corners are quadrants, halves are halves, the centre is the middle half of each side.
Synonyms (upper/lower, northeast, "left-hand side", "top edge") map onto those nine
regions; a question naming none returns None and the caller keeps the whole image.
"""

from __future__ import annotations

import re

REGIONS = ("top_left", "top_right", "bottom_left", "bottom_right", "top", "bottom", "left", "right", "center")

_V = r"(?P<v>top|upper|bottom|lower)"
_H = r"(?P<h>left|right)"
_COMPASS = {"northwest": "top_left", "northeast": "top_right", "southwest": "bottom_left", "southeast": "bottom_right"}
_CORNER_RE = re.compile(rf"\b{_V}[\s-]*(?:hand[\s-]*)?{_H}\b", re.IGNORECASE)
_SIDE_RE = re.compile(r"\b(?P<s>left|right|top|upper|bottom|lower)(?:[\s-]*hand)?[\s-]*(?:half|side|part|portion|edge|strip|third|area|region|section)\b", re.IGNORECASE)
_CENTER_RE = re.compile(r"\b(?:cent(?:er|re)|central|middle)\b", re.IGNORECASE)
_COMPASS_RE = re.compile(r"\b(north[\s-]?east|north[\s-]?west|south[\s-]?east|south[\s-]?west)\b", re.IGNORECASE)
_ALONE_RE = re.compile(r"\b(?:at|in|on|to)\s+the\s+(?P<s>top|bottom|left|right)\b", re.IGNORECASE)

_VERT = {"top": "top", "upper": "top", "bottom": "bottom", "lower": "bottom"}


def find_region(query: str, strict: bool = False) -> str | None:
    """The first region ``query`` names (corners before sides before the centre).

    ``strict`` ignores bare "on the left"/"at the top" (often not about the image:
    "what's on the top of the cake?") and only accepts corners, halves/sides/parts,
    compass corners and the centre.
    """
    if not query:
        return None
    m = _CORNER_RE.search(query)
    if m:
        return f"{_VERT[m.group('v').lower()]}_{m.group('h').lower()}"
    m = _COMPASS_RE.search(query)
    if m:
        return _COMPASS[re.sub(r"[\s-]", "", m.group(1).lower())]
    m = _SIDE_RE.search(query) or (None if strict else _ALONE_RE.search(query))
    if m:
        side = m.group("s").lower()
        return _VERT.get(side, side)
    if _CENTER_RE.search(query):
        return "center"
    return None


def crop_box(region: str, width: int, height: int) -> tuple[int, int, int, int]:
    """(left, upper, right, lower) pixel box of ``region`` in a width x height image."""
    hw, hh = width // 2, height // 2
    boxes = {
        "top_left": (0, 0, hw, hh),
        "top_right": (width - hw, 0, width, hh),
        "bottom_left": (0, height - hh, hw, height),
        "bottom_right": (width - hw, height - hh, width, height),
        "top": (0, 0, width, hh),
        "bottom": (0, height - hh, width, height),
        "left": (0, 0, hw, height),
        "right": (width - hw, 0, width, height),
        "center": (width // 4, height // 4, width - width // 4, height - height // 4),
    }
    try:
        return boxes[region]
    except KeyError:
        raise ValueError(f"unknown region {region!r}; one of {', '.join(REGIONS)}") from None
