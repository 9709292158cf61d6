"""Character dumps as GNU coreutils ``od`` prints them: ``od -c`` (octal offsets, sixteen
bytes a row, each as a character or a backslash escape or a three-digit octal code) and ``od
-A d -c`` (the same rows with decimal offsets) of a customer export the capture writes (~9 kB
of letters, commas and newlines, ~560 rows) with eight stray control bytes in its middle.

Facts come from the capture's record of where it put each stray byte (the row offset, written
in octal or decimal by the capture itself), never from the dumps; the export holds no digits,
so an offset stands once. Held out (issue 33, fifteenth round): dev holds hex dumps and byte
comparisons (hexdump -C, xxd, cmp -l), but no od character dump with escaped control bytes.
"""

from __future__ import annotations

import random
from pathlib import Path
from typing import Any

from ._asked import Ask, shell_cases

SOURCE = "octal_dumps"
STRAY = {  # name -> (byte, what an agent calls it)
    "nul": (b"\0", "NUL byte"), "escape": (b"\x1b", "escape character"), "bell": (b"\a", "bell character"),
    "backspace": (b"\b", "backspace"), "vtab": (b"\v", "vertical tab"), "formfeed": (b"\f", "form feed"),
    "carriage": (b"\r", "carriage return"), "delete": (b"\x7f", "DEL byte"),
}
COMMANDS = {"octal": "od -c customers.csv", "decimal": "od -A d -c customers.csv"}
FIRST = ("ada", "bruno", "chloe", "dmitri", "elena", "farid", "greta", "hiro", "ines", "jonas", "kira", "luis")
LAST = ("novak", "okafor", "petrov", "quinn", "rossi", "silva", "tanaka", "umar", "varga", "weber")
CITIES = ("lisbon", "oslo", "porto", "quito", "riga", "sofia", "tunis", "vienna", "warsaw", "zagreb")


def export(rnd: random.Random) -> tuple[bytes, dict[str, int]]:
    """The export's bytes and the byte position of each stray byte (all in its middle half)."""
    rows = [f"{rnd.choice(FIRST)},{rnd.choice(LAST)},{rnd.choice(CITIES)},{rnd.choice(('gold', 'silver', 'basic'))}"
            for _ in range(330)]
    data = bytearray("\n".join(rows).encode() + b"\n")
    spots = sorted(rnd.sample(range(len(data) // 4, len(data) * 3 // 4, 16 * 12), len(STRAY)))
    keys = list(STRAY)
    rnd.shuffle(keys)
    for key, spot in reversed(list(zip(keys, spots, strict=True))):  # from the end: no spot moves
        at = spot + rnd.randrange(16)
        data[at:at] = STRAY[key][0]
    # each stray byte occurs once, so its position is where the capture finds it in its own bytes
    return bytes(data), {key: data.index(STRAY[key][0]) for key in STRAY}


def build(work: Path) -> list[dict[str, Any]]:
    rnd = random.Random(1502)
    data, where = export(rnd)
    (work / "customers.csv").write_bytes(data)
    note = "the capture's record of where it inserted each byte (row offset of sixteen bytes)"
    asks = []
    for key, (_, called) in STRAY.items():
        row = where[key] // 16 * 16
        for form, text in (("octal", f"{row:07o}"), ("decimal", f"{row:07d}")):
            asks.append(Ask(f"{key}_{form}", "named", "named_item", (text,), note,
                            (f"At which offset row of the dump is the stray {called}?",
                             f"Where does the {called} show up in the od output — what's the row's offset?"), (form,)))
    return shell_cases(SOURCE, COMMANDS, asks, cwd=work, env={"PATH": "/usr/bin:/bin", "LC_ALL": "C"})
