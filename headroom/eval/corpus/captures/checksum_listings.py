"""Checksum listings: GNU coreutils' ``sha256sum`` and ``md5sum`` (digest, two spaces, path),
``cksum`` (CRC, byte count, path) over a release tree of ~330 files the capture makes, and
``sha256sum -c`` of the tree's manifest after the tree has drifted (``path: OK`` for all but
two lines, the verdicts and the closing warnings on stderr, joined).

The tree is alike except for a few files: one empty file, two files with the same bytes
under different names, one far larger file; after the manifest is written one file is
rewritten and one deleted. Facts come from Python's ``hashlib``, the capture's own CRC of
the POSIX ``cksum`` polynomial, ``os.stat`` and the capture's record of what it changed,
never from the listings' text: the answer is a digest or CRC of a named file, or a file's
path. Every odd file sorts into the middle of the listing. Held out (issue 33, ninth round):
no dev source holds checksum listings.
"""

from __future__ import annotations

import hashlib
import random
from pathlib import Path
from typing import Any

from ._asked import Ask, Output, asked_cases
from ._run import run

SOURCE = "checksum_listings"
AREAS = ("assets/fonts", "assets/icons", "assets/sounds", "docs/api", "docs/guide", "firmware/boards",
         "firmware/blobs", "maps/tiles", "maps/styles", "translations")
ODD = {  # role: the file (relative to the tree) that alone has it
    "empty": "firmware/boards/rev-c.cfg",
    "twin_a": "docs/guide/install.html",
    "twin_b": "maps/styles/legacy-install.html",
    "largest": "maps/tiles/z12-overview.bin",
    "modified": "firmware/blobs/bootloader-07.bin",
    "missing": "docs/api/module-14.txt",
}
NAMED = ("assets/sounds/chime-09.ogg", "firmware/blobs/bootloader-11.bin", "maps/tiles/tile-017.bin")
ENV = {"PATH": "/usr/bin:/bin", "LC_ALL": "C"}


def _cksum_table() -> list[int]:
    table = []
    for byte in range(256):
        crc = byte << 24
        for _ in range(8):
            crc = ((crc << 1) ^ 0x04C11DB7) if crc & 0x80000000 else crc << 1
        table.append(crc & 0xFFFFFFFF)
    return table


_TABLE = _cksum_table()


def posix_cksum(data: bytes) -> int:
    """POSIX ``cksum``'s CRC: polynomial 0x04C11DB7, most significant bit first, over the
    bytes and then the length (least significant byte first, no trailing zeros), inverted."""
    crc = 0
    length = len(data)
    tail = bytearray()
    while length:
        tail.append(length & 0xFF)
        length >>= 8
    for b in data + bytes(tail):
        crc = ((crc << 8) & 0xFFFFFFFF) ^ _TABLE[(crc >> 24) ^ b]
    return ~crc & 0xFFFFFFFF


def make_tree(root: Path) -> list[str]:
    """The tree's files, sorted: ~33 per area, sizes from 0.2 to 9 KiB, and the odd ones."""
    rnd = random.Random(9)
    suffix = {"fonts": "woff2", "icons": "svg", "sounds": "ogg", "api": "txt", "guide": "html", "boards": "cfg",
              "blobs": "bin", "tiles": "bin", "styles": "json", "translations": "po"}
    stems = {"boards": "rev", "blobs": "bootloader", "tiles": "tile", "api": "module", "sounds": "chime"}
    for area in AREAS:
        leaf = area.rsplit("/", 1)[-1]
        for n in range(33):
            stem = stems.get(leaf, leaf.rstrip("s"))
            (root / area).mkdir(parents=True, exist_ok=True)
            name = f"{stem}-{n:03d}" if leaf in ("tiles",) else f"{stem}-{n:02d}"
            (root / area / f"{name}.{suffix[leaf]}").write_bytes(rnd.randbytes(rnd.randint(200, 9000)))
    (root / ODD["empty"]).write_bytes(b"")
    page = b"<html><body>" + rnd.randbytes(3000).hex().encode() + b"</body></html>\n"
    (root / ODD["twin_a"]).write_bytes(page)
    (root / ODD["twin_b"]).write_bytes(page)
    (root / ODD["largest"]).write_bytes(rnd.randbytes(700_000))
    return sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())


def tree_roles(root: Path, names: list[str]) -> dict[str, Any]:
    """What hashlib, the CRC and ``os.stat`` say of the tree (before it drifts)."""
    data = {n: (root / n).read_bytes() for n in names}
    sha = {n: hashlib.sha256(b).hexdigest() for n, b in data.items()}
    by_digest: dict[str, list[str]] = {}
    for n, d in sha.items():
        by_digest.setdefault(d, []).append(n)
    twins = [ns for ns in by_digest.values() if len(ns) > 1]
    assert len(twins) == 1, twins
    sizes = {n: (root / n).stat().st_size for n in names}
    ranked = sorted(sizes, key=sizes.get, reverse=True)
    assert sizes[ranked[0]] > 10 * sizes[ranked[1]]
    empty = [n for n, s in sizes.items() if s == 0]
    assert len(empty) == 1, empty
    return {"sha256": sha, "md5": {n: hashlib.md5(b).hexdigest() for n, b in data.items()},
            "crc": {n: str(posix_cksum(b)) for n, b in data.items()}, "twins": tuple(twins[0]),
            "largest": ranked[0], "empty": empty[0]}


def _asks(roles: dict[str, Any], drift: dict[str, str]) -> list[Ask]:
    digests = ("sha256sum", "md5sum")
    asks = [
        Ask("empty", "named", "named_item", (roles["empty"],), "os.stat: the one file of size 0",
            ("Is any file in the tree empty? Which one?", "Which file has zero bytes?"), (*digests, "cksum")),
        Ask("duplicates", "named", "named_item", roles["twins"], "hashlib: the two files with the same SHA-256",
            ("Are there any duplicate files in this tree?", "Which files have identical contents?"), digests),
        Ask("largest", "extreme", "extreme", (roles["largest"],), "os.stat: the largest file",
            ("Which file is the biggest?", "What's the largest file in the release tree?"), ("cksum",)),
        Ask("changed", "named", "named_item", (drift["modified"],), "the capture's record: the file it rewrote",
            ("Which file fails verification?", "Did any file's checksum stop matching? Which one?"), ("verify",)),
        Ask("missing", "named", "named_item", (drift["missing"],), "the capture's record: the file it deleted",
            ("Which listed file couldn't be read?", "Is a file from the manifest missing? Which?"), ("verify",)),
    ]
    for n, name in enumerate(NAMED):
        asks += [
            Ask(f"sha256_{n}", "named", "named_item", (roles["sha256"][name],), "hashlib.sha256 of the file",
                (f"What's the SHA-256 of {name}?", f"Give me the sha256 digest for {name}."), ("sha256sum",)),
            Ask(f"md5_{n}", "named", "named_item", (roles["md5"][name],), "hashlib.md5 of the file",
                (f"What's the MD5 of {name}?", f"Which md5 hash does {name} have?"), ("md5sum",)),
            Ask(f"crc_{n}", "named", "named_item", (roles["crc"][name],),
                "the capture's POSIX cksum CRC of the file's bytes",
                (f"What CRC does cksum report for {name}?", f"What is the cksum checksum of {name}?"), ("cksum",)),
        ]
    return asks


def build(work: Path) -> list[dict[str, Any]]:
    root = work / "firmware-bundle-5.2"
    names = make_tree(root)
    roles = tree_roles(root, names)
    assert {roles["empty"], roles["largest"], *roles["twins"]} == {ODD[k] for k in ("empty", "largest",
                                                                                     "twin_a", "twin_b")}
    texts = {"sha256sum": run(["sha256sum", *names], cwd=root, env=ENV).stdout,
             "md5sum": run(["md5sum", *names], cwd=root, env=ENV).stdout,
             "cksum": run(["cksum", *names], cwd=root, env=ENV).stdout}
    (root / "SHA256SUMS").write_text(texts["sha256sum"])
    (root / ODD["modified"]).write_bytes(random.Random(10).randbytes(4100))
    (root / ODD["missing"]).unlink()
    checked = run(["sha256sum", "-c", "SHA256SUMS"], cwd=root, env=ENV, check=False)
    assert checked.returncode == 1, checked.returncode
    texts["verify"] = checked.stdout + checked.stderr
    commands = {"sha256sum": "find * -type f | sort | xargs sha256sum",
                "md5sum": "find * -type f | sort | xargs md5sum",
                "cksum": "find * -type f | sort | xargs cksum",
                "verify": "sha256sum -c SHA256SUMS 2>&1"}
    outputs = {name: Output({"command": commands[name]}, "text", texts[name]) for name in texts}
    out = asked_cases(SOURCE, outputs, _asks(roles, {"modified": ODD["modified"], "missing": ODD["missing"]}))
    assert len(out) >= 12, f"too few {SOURCE} cases: {len(out)}"
    return out
