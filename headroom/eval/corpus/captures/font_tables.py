"""A font's tables as fontTools' ``ttx`` dumps them to XML: the horizontal metrics (``ttx -t
hmtx``: one ``<mtx name= width= lsb=>`` element a glyph, by glyph name) and the character map
(``ttx -t cmap``: one ``<map code= name=>`` element a code point, the character's Unicode name
in a comment), of a ~330-glyph TrueType font the capture builds with fontTools' FontBuilder
(Basic Latin, Latin-1, Latin Extended-A, currency signs, a few marks and spaces).

Most glyphs share a handful of widths; the odd ones (in the middle of the alphabet, not at
either end) have widths of their own: a zero-width combining mark, a thin space, one glyph
far wider than the rest, and a few currency signs. Facts come from the capture's record of
the font it built (its widths, which code point it mapped to which glyph), never from the
dumps; a fact is kept only where it stands once. Held out (issue 33, seventeenth round): no
dev source holds a font's tables.
"""

from __future__ import annotations

import random
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ._asked import Ask, shell_cases

SOURCE = "font_tables"
FONT = "ShopdSans-Regular.ttf"
COMMANDS = {"hmtx": f"fonttools ttx -q -t hmtx -o - {FONT}", "cmap": f"fonttools ttx -q -t cmap -o - {FONT}"}
CODES = [*range(0x20, 0x7F), *range(0xA0, 0x100), *range(0x100, 0x180), *range(0x20A0, 0x20C0),
         0x0192, 0x0300, 0x0301, 0x0308, 0x2009, 0x2013, 0x2014, 0x2026, 0x2116, 0x2122]
ROUTINE_WIDTHS = (480, 520, 560, 600, 640, 680)
# Odd glyphs by code point: their own widths (not multiples of 20, so none meets a routine one).
ODD_WIDTHS = {0x0301: 0, 0x2009: 167, 0x2026: 1213, 0x20AC: 617, 0x20BD: 583, 0x20B9: 571, 0x00A3: 533, 0x2116: 959}
ASKED_CODES = (0x20AC, 0x0192, 0x00B6, 0x0167, 0x00A7, 0x0141, 0x00DF)
LSB = 40


@dataclass
class Font:
    """The capture's record: code point -> glyph name, glyph name -> advance width."""

    glyph: dict[int, str] = field(default_factory=dict)
    width: dict[str, int] = field(default_factory=dict)


def glyph_name(code: int) -> str:
    from fontTools.agl import UV2AGL

    return UV2AGL.get(code, f"uni{code:04X}")


def build_font(path: Path, rnd: random.Random) -> Font:
    from fontTools.fontBuilder import FontBuilder
    from fontTools.pens.ttGlyphPen import TTGlyphPen

    record = Font()
    for code in CODES:
        name = glyph_name(code)
        record.glyph[code] = name
        record.width[name] = ODD_WIDTHS.get(code, rnd.choice(ROUTINE_WIDTHS))
    names = [".notdef", *record.width]
    pen = TTGlyphPen(None)
    pen.moveTo((LSB, 0))
    pen.lineTo((LSB, 500))
    pen.lineTo((LSB + 300, 0))
    pen.closePath()
    box = pen.glyph()
    fb = FontBuilder(1000, isTTF=True)
    fb.setupGlyphOrder(names)
    fb.setupCharacterMap(dict(record.glyph))
    # FontBuilder writes the map twice (Unicode and Windows platforms); a font may carry one.
    fb.font["cmap"].tables = [t for t in fb.font["cmap"].tables if t.platformID == 3]
    fb.setupGlyf({n: box for n in names})
    fb.setupHorizontalMetrics({".notdef": (500, LSB), **{n: (w, LSB) for n, w in record.width.items()}})
    fb.setupHorizontalHeader(ascent=800, descent=-200)
    fb.setupNameTable({"familyName": "Shopd Sans", "styleName": "Regular"})
    fb.setupOS2()
    fb.setupPost()
    fb.save(str(path))
    return record


def _asks(record: Font) -> list[Ask]:
    note = "the capture's record of the font it built"
    widest = max(record.width, key=record.width.get)
    thinnest = min((n for n, w in record.width.items() if w), key=record.width.get)
    zero = next(n for n, w in record.width.items() if w == 0)
    asks = [Ask("widest", "extreme", "extreme", (widest,), note,
                ("Which glyph has the largest advance width?", "What's the widest glyph in the font?"), ("hmtx",)),
            Ask("thinnest", "extreme", "extreme", (thinnest,), note,
                ("Which glyph is the narrowest one that still advances?",
                 "Smallest non-zero advance width: which glyph?"), ("hmtx",)),
            Ask("zero", "named", "named_item", (zero,), note,
                ("Which glyph doesn't advance at all (zero width)?", "Is there a zero-width glyph? Which?"), ("hmtx",))]
    for code in (0x20AC, 0x20BD, 0x20B9, 0x00A3, 0x2116):
        name = record.glyph[code]
        asks.append(Ask(f"width_{name}", "named", "named_item", (str(record.width[name]),), note,
                        (f"How wide is the glyph {name}?", f"What advance width does {name} have?"), ("hmtx",)))
    for code in ASKED_CODES:
        name = record.glyph[code]
        asks.append(Ask(f"code_{name}", "named", "named_item", (f"0x{code:x}",), note,
                        (f"Which code point is mapped to the glyph {name}?", f"What character code does {name} cover?"),
                        ("cmap",)))
    return asks


def build(work: Path) -> list[dict[str, Any]]:
    rnd = random.Random(1702)
    record = build_font(work / FONT, rnd)
    return shell_cases(SOURCE, COMMANDS, _asks(record), cwd=work, env={"PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin", "LC_ALL": "C.UTF-8"})
