"""What compressed files hold, as the compressors list it: ``xz -lvv`` of 40 nightly exports
(per file its streams, blocks, sizes, ratio, integrity check and, per block, offsets, sizes,
check values and filter chain; ~900 lines) and ``gzip -lv`` of 90 smaller ones (method, CRC,
date, compressed and uncompressed size, ratio, name; one row a file), of files the capture
writes and compresses with settings of its choosing (each xz integrity check, a block size that
splits the largest export, a delta filter on one binary series; one gzip export of random bytes
and one of a repeated line).

Facts come from the capture's record of what it wrote and how it compressed it (the file with
no integrity check, the one checked with SHA-256, the one behind a delta filter, the one split
into the most blocks, the largest, a named file's length, the incompressible and the most
compressible one) and from Python's ``zlib.crc32`` reading the same bytes (a named file's CRC),
never from the listings' text; a fact is kept only where it stands once in its output. Held out
(issue 33, fourteenth round): dev holds archive member listings and checksum listings, but no
listing of a compressed container's streams, blocks and checks.
"""

from __future__ import annotations

import os
import random
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ._asked import Ask, shell_cases
from ._run import run

SOURCE = "compression_listings"
KINDS = (("orders", "csv"), ("refunds", "csv"), ("stock", "csv"), ("events", "jsonl"), ("sessions", "log"),
         ("prices", "csv"), ("carts", "jsonl"), ("audit", "log"))
COMMANDS = {"xz": "xz -lvv exports/*.xz", "gzip": "gzip -lv small/*.gz"}
XZ_ODD = {"none": 17, "sha256": 22, "delta": 13, "blocks": 30, "largest": 26}  # in the middle of 40


@dataclass
class Exports:
    xz: list[str] = field(default_factory=list)
    gz: dict[str, bytes] = field(default_factory=dict)  # name (as gzip lists it) -> the bytes
    record: dict[str, str] = field(default_factory=dict)


def rows(rnd: random.Random, kind: str, count: int) -> bytes:
    """Text in the shape of a nightly export: enough repetition to compress, enough noise to differ."""
    out = [f"id,{kind}_ref,amount,region,status"]
    for n in range(count):
        out.append(f"{n},{kind[:2].upper()}{rnd.randint(10**6, 10**7)},{rnd.randint(1, 99999) / 100:.2f},"
                   f"{rnd.choice(('eu', 'us', 'ap'))},{rnd.choice(('ok', 'ok', 'ok', 'late', 'held'))}")
    return ("\n".join(out) + "\n").encode()


def write_xz(work: Path, rnd: random.Random, ex: Exports) -> None:
    (work / "exports").mkdir()
    checks = ("crc64", "crc32")
    for n in range(40):
        kind, ext = KINDS[n % len(KINDS)]
        name = f"exports/{kind}-2026-10-{n // 8 * 6 + n % 8 + 1:02d}.{ext}"
        size = 60000 if n == XZ_ODD["largest"] else rnd.randint(800, 9000)
        (work / name).write_bytes(rows(rnd, kind, size))
        args = ["xz", "-1", "-T1", f"--check={checks[n % 2]}"]
        if n == XZ_ODD["none"]:
            args[3] = "--check=none"
        elif n == XZ_ODD["sha256"]:
            args[3] = "--check=sha256"
        elif n == XZ_ODD["delta"]:
            args += ["--delta=dist=4", "--lzma2=preset=1"]
        args += ["--block-size=48KiB" if n == XZ_ODD["blocks"] else "--block-size=8MiB", name]
        run(args, cwd=work)
        ex.xz.append(f"{name}.xz")
    for odd, n in XZ_ODD.items():
        ex.record[odd] = ex.xz[n]


def write_gz(work: Path, rnd: random.Random, ex: Exports) -> None:
    (work / "small").mkdir()
    stamp = 1_790_000_000  # 2026-09-21, the exports' own time, stored in each gzip header
    for n in range(90):
        kind, ext = KINDS[n % len(KINDS)]
        name = f"small/{kind}-{n:03d}.{ext}"
        data = rows(rnd, kind, rnd.randint(20, 900))
        if n == 41:
            data, ex.record["random"] = rnd.randbytes(len(data)), name
        elif n == 52:
            data, ex.record["repeated"] = b"ok,ok,ok,ok\n" * (len(data) // 12), name
        (work / name).write_bytes(data)
        os.utime(work / name, (stamp + n * 3600, stamp + n * 3600))
        run(["gzip", "-6", name], cwd=work)
        ex.gz[name] = data


def _asks(ex: Exports, rnd: random.Random) -> list[Ask]:
    note = "the capture's record of the files it wrote and how it compressed them"
    asks = [
        Ask("none", "named", "named_item", (ex.record["none"],), note,
            ("Which export was compressed without an integrity check?", "Which .xz file has no check at all?"),
            ("xz",)),
        Ask("sha256", "named", "named_item", (ex.record["sha256"],), note,
            ("Which archive is checked with SHA-256?",), ("xz",)),
        Ask("delta", "named", "named_item", (ex.record["delta"],), note,
            ("Which export was packed with a delta filter in front of LZMA2?",), ("xz",)),
        Ask("blocks", "extreme", "extreme", (ex.record["blocks"],), note,
            ("Which .xz export is split into the most blocks?",), ("xz",)),
        Ask("largest", "extreme", "extreme", (ex.record["largest"],), note,
            ("Which .xz export is the biggest once decompressed?", "Which archive holds the most data?"),
            ("xz",)),
        Ask("random", "extreme", "extreme", (ex.record["random"],), note,
            ("Which of the small exports barely compressed at all?", "Which gzip file has the worst ratio?"),
            ("gzip",)),
        Ask("repeated", "extreme", "extreme", (ex.record["repeated"],), note,
            ("Which small export compressed best?", "Which gzip file has the highest compression ratio?"),
            ("gzip",)),
    ]
    middle = [n for n in list(ex.gz)[25:70] if n not in ex.record.values()]
    named = rnd.sample(middle, 9)
    for name in named[:6]:
        asks.append(Ask(f"crc_{name.split('/')[1]}", "named", "named_item",
                        (f"{zlib.crc32(ex.gz[name]):08x}",), "Python's zlib.crc32 over the same bytes",
                        (f"What CRC does gzip record for {name}?", f"What's the CRC-32 of {name}?"), ("gzip",)))
    for name in named[6:]:
        asks.append(Ask(f"size_{name.split('/')[1]}", "named", "named_item", (str(len(ex.gz[name])),), note,
                        (f"How many bytes is {name} uncompressed?", f"What's the original size of {name}?"),
                        ("gzip",)))
    return asks


def build(work: Path) -> list[dict[str, Any]]:
    rnd = random.Random(1406)
    ex = Exports()
    write_xz(work, rnd, ex)
    write_gz(work, rnd, ex)
    return shell_cases(SOURCE, COMMANDS, _asks(ex, rnd), cwd=work, env={"PATH": "/usr/bin:/bin", "LC_ALL": "C",
                                                                            "TZ": "UTC"})
