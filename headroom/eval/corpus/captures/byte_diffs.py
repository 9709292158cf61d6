"""Byte-by-byte comparisons as GNU diffutils' ``cmp`` prints them: ``cmp -l`` (one line per
differing byte: its 1-based offset in decimal, the old and the new byte in octal), ``cmp -l
-b`` (each byte also as a character) and a loop that runs ``cmp -l`` over a folder of image
pairs under ``== name`` headers, of firmware images the capture writes and then patches.

Each gateway image (64 KiB) is patched in ways the capture records: a calibration table
rewritten (a run of ~200 bytes), a region code renamed, one byte of the version field
bumped, one lone byte flipped far from the others and, after it, the embedded certificate
replaced (~380 bytes), so the lone line sits in the middle of the listing. In the folder, one image is unchanged,
one differs in a single byte and one in far more than the rest. Facts come from that record
(the offsets the capture wrote at, counted from 1 as ``cmp`` counts, and the images it
touched), never from cmp's text. A fact is kept only where its text stands once in the output.
Held out (issue 33, eleventh round): no dev source holds byte-difference listings.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from ._asked import Ask, shell_cases

SOURCE = "byte_diffs"
ENV = {"PATH": "/usr/bin:/bin", "LC_ALL": "C"}
SIZE = 64 * 1024
IMAGES = ("bootloader", "gateway", "modem", "radio", "sensor-hub", "display", "charger", "keypad")
# Patches of the gateway image: where each starts (0-based) and how long it is.
CALIBRATION = (23_517, 203)
REGION = (14_862, 5)  # "EU868" -> "US915"
VERSION_BYTE = 18_431  # the minor version, 3 -> 4
LONE_FLIP = 41_290  # one bit, far from the rest
CERTIFICATE = (52_114, 380)  # the embedded certificate replaced, after the lone flip


def cmp_offset(at: int) -> str:
    """How ``cmp -l`` numbers a byte: from 1, in decimal."""
    return str(at + 1)


def image(rnd: random.Random) -> bytearray:
    data = bytearray(rnd.getrandbits(8) for _ in range(SIZE))
    data[REGION[0]:REGION[0] + 5] = b"EU868"
    data[VERSION_BYTE] = 3
    return data


def patched(data: bytearray, rnd: random.Random) -> bytearray:
    """The gateway's new image: every change the record lists, and no other."""
    new = bytearray(data)
    start, length = CALIBRATION
    for at in range(start, start + length):
        new[at] = (data[at] + rnd.randint(1, 255)) % 256
    new[REGION[0]:REGION[0] + 5] = b"US915"
    new[VERSION_BYTE] = 4
    new[LONE_FLIP] = data[LONE_FLIP] ^ 0x10
    start, length = CERTIFICATE
    for at in range(start, start + length):
        new[at] = (data[at] + rnd.randint(1, 255)) % 256
    return new


def changed_at(old: bytes, new: bytes) -> list[int]:
    return [n for n, (a, b) in enumerate(zip(old, new, strict=True)) if a != b]


def folder(work: Path, rnd: random.Random) -> dict[str, list[int]]:
    """Write old/ and new/ image pairs; the offsets each pair differs at."""
    (work / "old").mkdir()
    (work / "new").mkdir()
    diffs = {}
    for name in IMAGES:
        old = image(rnd)
        if name == "gateway":
            new = patched(old, rnd)
        elif name == "display":
            new = bytearray(old)  # unchanged
        else:
            many = {"modem": 1, "charger": 900}.get(name, rnd.randint(20, 120))
            new = bytearray(old)
            for at in rnd.sample(range(SIZE), many):
                new[at] = (old[at] + rnd.randint(1, 255)) % 256
        (work / "old" / f"{name}.bin").write_bytes(old)
        (work / "new" / f"{name}.bin").write_bytes(new)
        diffs[name] = changed_at(old, new)
    return diffs


def _asks(diffs: dict[str, list[int]]) -> list[Ask]:
    gateway = diffs["gateway"]
    assert len(gateway) == CALIBRATION[1] + REGION[1] + CERTIFICATE[1] + 2, len(gateway)  # every patched byte differs
    region = [at for at in gateway if REGION[0] <= at < REGION[0] + 5]
    calibration = [at for at in gateway if CALIBRATION[0] <= at < sum(CALIBRATION)]
    note = "the capture's record of the bytes it patched"
    pair = ("gateway", "gateway_chars")
    counts = {name: len(at) for name, at in diffs.items()}
    most = max(counts, key=counts.get)
    assert sorted(counts.values())[-2] < counts[most]
    return [
        Ask("lone", "one_off", "named_item", (cmp_offset(LONE_FLIP),), note,
            ("Where's the single byte that changed on its own, away from the other differences?",), pair),
        Ask("version", "named", "named_item", (cmp_offset(VERSION_BYTE),), note,
            ("At which offset does the version byte differ?",), pair),
        Ask("region_start", "named", "named_item", (cmp_offset(region[0]),), note,
            ("Where does the changed region code begin?",), pair),
        Ask("calibration_start", "named", "named_item", (cmp_offset(calibration[0]),), note,
            ("At which offset does the rewritten calibration table start?",
             "Where does the calibration table's run of changed bytes begin?"), pair),
        Ask("calibration_end", "extreme", "extreme", (cmp_offset(calibration[-1]),), note,
            ("What's the last offset of the rewritten calibration table?",), pair),
        Ask("last", "extreme", "extreme", (cmp_offset(gateway[-1]),), note,
            ("What's the highest offset where the two images differ?",), ("gateway_chars",)),
        Ask("single", "named", "named_item", ("modem.bin",), note,
            ("Which image differs in exactly one byte?",), ("folder",)),
        Ask("single_offset", "named", "named_item", (cmp_offset(diffs["modem"][0]),), note,
            ("At which offset does the modem image differ?",), ("folder",)),
        Ask("most", "extreme", "extreme", (f"{most}.bin",), note,
            ("Which image changed the most?", "Which image pair has the most differing bytes?"), ("folder",)),
        Ask("same", "named", "named_item", ("display.bin",), note,
            ("Which image is identical in both folders?",), ("folder",)),
    ]


def build(work: Path) -> list[dict[str, Any]]:
    diffs = folder(work, random.Random(1115))
    commands = {
        "gateway": "cmp -l old/gateway.bin new/gateway.bin",
        "gateway_chars": "cmp -l -b old/gateway.bin new/gateway.bin",
        "folder": 'for f in old/*.bin; do echo "== ${f#old/}"; cmp -l "$f" "new/${f#old/}"; done',
    }
    return shell_cases(SOURCE, commands, _asks(diffs), cwd=work, env=ENV, check=False)
