"""File-type listings as ``file`` (5.44) prints them: ``file *`` (one ``name: description``
line per entry) and ``file -i *`` (the MIME type and charset instead), over an upload folder
the capture fills with 110 entries under neutral names (``upload-<hex>``).

Most uploads are plain text notes and JSON documents; ten are each of a kind no other entry
is: a gzip stream, a zip archive, an ELF executable (a copy of ``/usr/bin/true``), a PNG
image, an SQLite database, a shell script, an empty file, a dangling symbolic link, text
with CRLF line ends and UTF-16 text with a byte-order mark. Facts come from the capture's
own record of what it wrote, checked against the files' first bytes read in Python, never
from ``file``'s text: the answer is the entry's name. A fact is kept only where its text
stands once in the output. Held out (issue 33, sixth round): no dev source holds ``file``
listings.
"""

from __future__ import annotations

import gzip
import json
import random
import shutil
import sqlite3
import struct
import zipfile
import zlib
from pathlib import Path
from typing import Any

from ..cases import fact, make_case
from ..questions import choose
from ._run import run

SOURCE = "file_types"
WORDS = ("invoice", "meeting", "backlog", "deploy", "review", "budget", "rollout", "incident", "ticket",
         "customer", "release", "capacity", "forecast", "schedule", "vendor")
# kind -> (first bytes it must start with, wordings)
RARE = {
    "gzip": (b"\x1f\x8b", ("Which upload is a gzip-compressed file?", "Which file here is gzipped?")),
    "zip": (b"PK\x03\x04", ("Which upload is a zip archive?", "Which entry is a ZIP file?")),
    "elf": (b"\x7fELF", ("Which upload is an executable program?", "Which file is an ELF binary?")),
    "png": (b"\x89PNG\r\n\x1a\n", ("Which upload is an image?", "Which file is a PNG picture?")),
    "sqlite": (b"SQLite format 3\x00", ("Which upload is a database file?", "Which file is an SQLite database?")),
    "script": (b"#!/bin/sh", ("Which upload is a shell script?", "Which file could be run by /bin/sh?")),
    "empty": (b"", ("Which upload is empty?", "Which file has no content at all?")),
    "dangling": (None, ("Which entry is a broken symbolic link?", "Which link points at nothing?")),
    "crlf": (None, ("Which upload has Windows (CRLF) line endings?", "Which text file uses CR LF line ends?")),
    "utf16": (b"\xff\xfe", ("Which upload is UTF-16 encoded?", "Which text file is in UTF-16 rather than ASCII?")),
}


def _png() -> bytes:
    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))
    raw = b"".join(b"\x00" + bytes([x * 16, 80, 200]) * 16 for x in range(16))
    return (b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", struct.pack(">IIBBBBB", 16, 16, 8, 2, 0, 0, 0))
            + chunk(b"IDAT", zlib.compress(raw)) + chunk(b"IEND", b""))


def _note(rng: random.Random) -> str:
    return "".join(" ".join(rng.choice(WORDS) for _ in range(rng.randint(6, 12))) + ".\n"
                   for _ in range(rng.randint(3, 9)))


def make_uploads(root: Path) -> dict[str, str]:
    """The folder; returns the rare entries' names by kind (the capture's record)."""
    rng = random.Random(3361)
    root.mkdir()
    names = [f"upload-{h:06x}" for h in rng.sample(range(0x100000, 0xFFFFFF), 110)]
    kinds = dict(zip(names[:10], RARE, strict=True))
    for name in names[10:]:
        if rng.random() < 0.5:
            (root / name).write_text(_note(rng))
        else:
            doc = {"id": rng.randint(1000, 9999), "status": rng.choice(["open", "closed"]),
                   "tags": rng.sample(WORDS, 3), "note": rng.choice(WORDS)}
            (root / name).write_text(json.dumps(doc, indent=2) + "\n")
    for name, kind in kinds.items():
        path = root / name
        if kind == "gzip":
            path.write_bytes(gzip.compress(_note(rng).encode(), mtime=0))
        elif kind == "zip":
            with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
                z.writestr("notes.txt", _note(rng))
        elif kind == "elf":
            shutil.copyfile("/usr/bin/true", path)
        elif kind == "png":
            path.write_bytes(_png())
        elif kind == "sqlite":
            with sqlite3.connect(path) as db:
                db.execute("CREATE TABLE tickets (id INTEGER PRIMARY KEY, title TEXT)")
                db.executemany("INSERT INTO tickets (title) VALUES (?)", [(w,) for w in WORDS])
            db.close()
        elif kind == "script":
            path.write_text("#!/bin/sh\nset -e\nfor f in \"$@\"; do gzip -9 \"$f\"; done\n")
        elif kind == "empty":
            path.write_bytes(b"")
        elif kind == "dangling":
            path.symlink_to("../staging/upload-gone")
        elif kind == "crlf":
            path.write_bytes(_note(rng).replace("\n", "\r\n").encode())
        elif kind == "utf16":
            path.write_bytes(_note(rng).encode("utf-16"))
    return {k: n for n, k in kinds.items()}


def check(root: Path, name: str, kind: str) -> bool:
    """The entry is what the capture meant it to be, read back from its bytes."""
    path = root / name
    if kind == "dangling":
        return path.is_symlink() and not path.exists()
    data = path.read_bytes()
    if kind == "crlf":
        return b"\r\n" in data and data.count(b"\n") == data.count(b"\r\n")
    if kind == "empty":
        return data == b""
    return data.startswith(RARE[kind][0])


def build(work: Path) -> list[dict[str, Any]]:
    root = work / "uploads"
    rare = make_uploads(root)
    assert all(check(root, n, k) for k, n in rare.items())
    entries = sorted(p.name for p in root.iterdir())
    out = []
    for output, flags in (("plain", []), ("mime", ["-i"])):
        content = run(["file", *flags, *entries], cwd=root, env={"PATH": "/usr/bin:/bin", "LC_ALL": "C"}).stdout
        args = {"command": f"cd /srv/intake/uploads && file {' '.join(flags)} *".replace("  ", " ")}
        for kind, name in rare.items():
            if content.count(name) != 1 or (output == "mime" and kind == "crlf"):
                continue  # MIME output does not tell line ends apart
            sid = f"{output}_{kind}"
            q = choose(f"{SOURCE}/{sid}", RARE[kind][1])
            out.append(make_case(SOURCE, sid, "text", "bash", args, "named", q, content,
                                 [fact(name, "named_item", f"the capture wrote it as {kind}; its first bytes agree",
                                       basis="independent")]))
    assert len(out) >= 15, f"too few {SOURCE} cases: {len(out)}"
    return out
