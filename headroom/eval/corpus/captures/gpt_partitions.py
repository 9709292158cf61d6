"""A disk's partition table as util-linux's ``partx`` reads it: ``partx --show disk.img`` (one
aligned row a partition: number, start, end, sectors, size, name, UUID; ~110 lines, ~9 kB) and
``partx --pairs`` with the type GUID, attribute flags and scheme (``NR="1" START="2048"
...`` a line; ~110 lines, ~21 kB), of a GPT disk image the capture writes itself with ``struct``
and ``zlib`` (protective MBR, primary and backup headers and entry arrays with their CRC-32s;
a sparse file, no loop device needed): 108 Linux partitions of a storage node (data, WAL, index,
log and cache slices of sizes from a few MiB upwards) in a seeded order.

In the middle, one partition carries the legacy-BIOS-bootable attribute, one is an EFI system
partition and one a swap partition among Linux filesystem ones, one is far larger than the rest
and one far smaller. Facts come from the capture's own record of the table it packed (names,
first and last sectors, unique GUIDs, types, attributes), never from partx's text; a fact is kept
only where it stands once. Held out (issue 33, twentieth round): dev holds mount tables, file
system super-blocks (``dumpe2fs``) and disk usage, but no partition table.
"""

from __future__ import annotations

import random
import struct
import uuid
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ._asked import Ask, shell_cases

SOURCE = "gpt_partitions"
SECTOR = 512
ENTRIES = 128
LINUX = uuid.UUID("0fc63daf-8483-4772-8e79-3d69d8477de4")
EFI = uuid.UUID("c12a7328-f81f-11d2-ba4b-00a0c93ec93b")
SWAP = uuid.UUID("0657fd6d-a4ab-43c4-84e5-0933c84b4f4f")
ROLES = ("data", "wal", "index", "log", "cache", "spool")


@dataclass(frozen=True)
class Part:
    name: str
    first: int
    last: int
    guid: uuid.UUID
    kind: uuid.UUID = LINUX
    attrs: int = 0

    def entry(self) -> bytes:
        """One 128-byte GPT entry: type and unique GUIDs (mixed-endian), first and last LBA,
        attribute bits, the name in UTF-16LE."""
        return (self.kind.bytes_le + self.guid.bytes_le + struct.pack("<QQQ", self.first, self.last, self.attrs)
                + self.name.encode("utf-16-le").ljust(72, b"\0"))


def plan(rnd: random.Random) -> tuple[list[Part], dict[str, str]]:
    names = [f"{r}-{n:02d}" for r in ROLES for n in range(1, 19)]
    rnd.shuffle(names)
    mib = [rnd.choice((4, 8, 16, 24, 32, 48, 64)) for _ in names]
    odd = {"large": names[47], "small": names[61], "boot": names[38], "efi": names[55], "swap": names[70]}
    mib[47], mib[61] = 4096, 1
    parts, start = [], 2048
    for name, size in zip(names, mib, strict=True):
        last = start + size * 2048 - 1
        kind = EFI if name == odd["efi"] else SWAP if name == odd["swap"] else LINUX
        parts.append(Part(name, start, last, uuid.UUID(int=rnd.getrandbits(128), version=4), kind,
                          4 if name == odd["boot"] else 0))
        start = last + 1 + 2048 * rnd.choice((0, 0, 0, 1))  # now and then a one-MiB gap
    return parts, odd


def write_image(path: Path, parts: list[Part], disk_guid: uuid.UUID) -> None:
    """The protective MBR, both GPT headers and both entry arrays, on a sparse file."""
    total = parts[-1].last + 2048 + 34
    array = b"".join(p.entry() for p in parts).ljust(ENTRIES * 128, b"\0")

    def header(current: int, backup: int, entries_at: int) -> bytes:
        head = struct.pack("<8sIIIIQQQQ16sQIII", b"EFI PART", 0x10000, 92, 0, 0, current, backup, 34, total - 34,
                           disk_guid.bytes_le, entries_at, ENTRIES, 128, zlib.crc32(array))
        return head[:16] + struct.pack("<I", zlib.crc32(head)) + head[20:]

    mbr = bytearray(SECTOR)
    mbr[446:462] = struct.pack("<BBBBBBBBII", 0, 0, 2, 0, 0xEE, 0xFF, 0xFF, 0xFF, 1, min(total - 1, 0xFFFFFFFF))
    mbr[510:] = b"\x55\xaa"
    with path.open("wb") as fh:
        fh.truncate(total * SECTOR)
        for at, blob in ((0, bytes(mbr)), (1, header(1, total - 1, 2)), (2, array),
                         (total - 33, array), (total - 1, header(total - 1, 1, total - 33))):
            fh.seek(at * SECTOR)
            fh.write(blob)


def _asks(parts: list[Part], odd: dict[str, str], rnd: random.Random) -> list[Ask]:
    note = "the capture's record of the GPT entries it packed"
    pairs = ("pairs",)
    by = {p.name: p for p in parts}
    asks = [Ask("boot_flag", "named", "named_item", (odd["boot"],), note,
                ("Which partition has the legacy BIOS bootable attribute set?", "What partition carries flag 0x4?"),
                pairs),
            Ask("efi", "named", "named_item", (odd["efi"],), note,
                ("Which partition is the EFI system partition?", "What partition has the EFI System type GUID?"), pairs),
            Ask("swap", "named", "named_item", (odd["swap"],), note,
                ("Which partition is a Linux swap partition?", "What partition is typed as swap?"), pairs),
            Ask("largest", "extreme", "extreme", (odd["large"],), note,
                ("Which partition is the largest?", "What's the biggest partition on this disk?")),
            Ask("smallest", "extreme", "extreme", (odd["small"],), note,
                ("Which partition is the smallest?", "What's the tiniest partition here?"))]
    middle = [p.name for p in parts[30:80] if p.name not in odd.values()]
    for name in rnd.sample(middle, 5):
        asks.append(Ask(f"start_{name}", "named", "named_item", (str(by[name].first),), note,
                        (f"What is the start sector of {name}?", f"Where does partition {name} begin?")))
    for name in rnd.sample(middle, 3):
        asks.append(Ask(f"uuid_{name}", "named", "named_item", (str(by[name].guid),), note,
                        (f"What is the partition UUID of {name}?", f"PARTUUID of {name}?"), pairs))
    return asks


def build(work: Path) -> list[dict[str, Any]]:
    rnd = random.Random(2003)
    parts, odd = plan(rnd)
    data = work / "data"
    data.mkdir()
    write_image(data / "disk.img", parts, uuid.UUID(int=rnd.getrandbits(128), version=4))
    commands = {"show": "partx --show disk.img",
                "pairs": "partx --pairs -o NR,START,END,SECTORS,SIZE,NAME,UUID,TYPE,FLAGS,SCHEME disk.img"}
    env = {"PATH": "/usr/bin:/bin:/usr/sbin:/sbin", "LC_ALL": "C"}
    return shell_cases(SOURCE, commands, _asks(parts, odd, rnd), cwd=data, env=env)
