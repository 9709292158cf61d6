"""ext4 file-system metadata as e2fsprogs prints it: ``dumpe2fs`` (the super block's
``key: value`` header, then one block of lines per block group: its block range, checksum
and flags, where its bitmaps and inode table sit, free block/inode counts and free ranges)
and ``dumpe2fs -h`` (the header alone, for the second image), of two image files the capture makes with
``mkfs.ext4 -d`` from a directory tree (no mount needed): a 48 MiB, 1 KiB-block image with
a journal and 48 small groups, filled with copies of installed Python packages, seeded log
files and one large data file, two files then removed with ``debugfs -w`` (holes in the
free ranges); and an 80 MiB, 4 KiB-block image without a journal.

Facts come from another reader of the same bytes: the super block and the group
descriptor table read from the image with ``struct`` (ext4's on-disk layout), never from
e2fsprogs' text: the UUID, the directory-hash seed, the last-mounted path, the super
block's checksum, the total free blocks, the group that is nearly but not completely full,
the group holding the most directories, and the counts of a group whose line is the only
one of its kind. A fact is kept only where its text occurs once in the output. Held out
(issue 33, fourth round): no dev source holds file-system metadata.
"""

from __future__ import annotations

import random
import shutil
import struct
import sysconfig
import uuid
from collections import Counter
from pathlib import Path
from typing import Any

from ..cases import fact, make_case
from ..questions import choose
from ._run import run

SOURCE = "ext4_dumpe2fs"
IMAGES = {  # name: (size MiB, mkfs.ext4 options, files removed afterwards with debugfs)
    "archive": (48, ["-b", "1024", "-g", "1024", "-N", "2048", "-L", "pgarchive", "-M", "/srv/archive"],
                ("/logs/app-07.log", "/logs/app-21.log")),
    "bulk": (80, ["-b", "4096", "-g", "1024", "-O", "^has_journal", "-I", "128", "-L", "bulkstore",
                  "-M", "/var/lib/bulk"], ("/spool/part-3.bin",)),
}
OUTPUTS = {"dumpe2fs": [], "dumpe2fs_h": ["-h"]}
HEADER_ONLY = ("bulk",)  # images also shown by ``dumpe2fs -h`` (a short output: one is enough)


def _tree(root: Path, image: str) -> None:
    """What the image holds: copies of installed packages (real files), seeded binary logs."""
    rng = random.Random(f"ext4-{image}")
    site = Path(sysconfig.get_paths()["purelib"])  # the build's own venv
    for pkg in (("click", "idna") if image == "archive" else ("idna",)):
        if (site / pkg).is_dir():
            shutil.copytree(site / pkg, root / pkg, ignore=shutil.ignore_patterns("__pycache__"))
    if image == "archive":
        (root / "logs").mkdir(parents=True)
        for i in range(40):
            (root / "logs" / f"app-{i:02d}.log").write_bytes(rng.randbytes(rng.randint(2000, 60000)))
        (root / "db").mkdir()
        (root / "db" / "base.dat").write_bytes(rng.randbytes(6 * 1024 * 1024))
    else:
        (root / "spool").mkdir(parents=True)
        for i in range(6):
            (root / "spool" / f"part-{i}.bin").write_bytes(rng.randbytes(rng.randint(3, 9) * 1024 * 1024))
        for d in range(9):
            (root / f"tenant-{d}").mkdir()
            (root / f"tenant-{d}" / "quota").write_bytes(rng.randbytes(100))


def superblock(image: bytes) -> dict[str, Any]:
    """The fields asked about, read at ext4's documented offsets (the super block starts at
    byte 1024)."""
    sb = image[1024:2048]

    def u32(off: int) -> int:
        return struct.unpack_from("<I", sb, off)[0]

    return {"inodes": u32(0x0), "blocks": u32(0x4), "free_blocks": u32(0xC), "free_inodes": u32(0x10),
            "first_data_block": u32(0x14), "block_size": 1024 << u32(0x18), "blocks_per_group": u32(0x20),
            "inodes_per_group": u32(0x28), "magic": struct.unpack_from("<H", sb, 0x38)[0],
            "incompat": u32(0x60), "uuid": str(uuid.UUID(bytes=sb[0x68:0x78])),
            "volume": sb[0x78:0x88].split(b"\0")[0].decode(), "last_mounted": sb[0x88:0xC8].split(b"\0")[0].decode(),
            "hash_seed": str(uuid.UUID(bytes=sb[0xEC:0xFC])), "desc_size": struct.unpack_from("<H", sb, 0xFE)[0],
            "checksum": u32(0x3FC)}


def groups(image: bytes, sb: dict[str, Any]) -> list[dict[str, int]]:
    """Each group descriptor (32 bytes, or ``s_desc_size`` with the 64bit feature): block
    range, free blocks, free inodes, directories."""
    size = sb["desc_size"] if sb["incompat"] & 0x80 and sb["desc_size"] else 32
    table = (sb["first_data_block"] + 1) * sb["block_size"]
    count = -(-(sb["blocks"] - sb["first_data_block"]) // sb["blocks_per_group"])
    out = []
    for g in range(count):
        d = image[table + g * size: table + (g + 1) * size]
        free_b, free_i, dirs = struct.unpack_from("<HHH", d, 0xC)
        start = sb["first_data_block"] + g * sb["blocks_per_group"]
        out.append({"group": g, "start": start, "end": min(start + sb["blocks_per_group"], sb["blocks"]) - 1,
                    "free_blocks": free_b, "free_inodes": free_i, "dirs": dirs})
    return out


def _head(g: dict[str, int]) -> str:
    return f"Group {g['group']}: (Blocks {g['start']}-{g['end']})"


def _counts(g: dict[str, int]) -> str:
    return f"{g['free_blocks']} free blocks, {g['free_inodes']} free inodes, {g['dirs']} directories"


def questions(sb: dict[str, Any], gs: list[dict[str, int]]) -> list[tuple[str, bool, str, tuple[str, ...], str, str]]:
    """(scenario, needs the group listing, intent, wordings, fact text, note)."""
    asked = [
        ("uuid", False, "named", ("What is this filesystem's UUID?", "Which UUID identifies the filesystem?"),
         sb["uuid"], "super block s_uuid (offset 0x68)"),
        ("hash_seed", False, "named", ("Which seed does the filesystem use for its directory hashes?",
                                       "What is the directory hash seed?"),
         sb["hash_seed"], "super block s_hash_seed (offset 0xEC)"),
        ("last_mounted", False, "named", ("Where was this filesystem last mounted?",
                                          "What mount point did the filesystem record last?"),
         sb["last_mounted"], "super block s_last_mounted (offset 0x88)"),
        ("checksum", False, "named", ("What is the super block's checksum?",
                                      "Which crc32c checksum does the super block carry?"),
         f"0x{sb['checksum']:08x}", "super block s_checksum (offset 0x3FC)"),
        ("free_blocks", False, "named", ("How many blocks are free on the whole filesystem?",
                                         "What is the total number of free blocks?"),
         str(sb["free_blocks"]), "super block s_free_blocks_count_lo (offset 0xC)"),
    ]
    partial = [g for g in gs if 0 < g["free_blocks"] < sb["blocks_per_group"] // 4]
    if partial:
        low = min(partial, key=lambda g: g["free_blocks"])
        if sum(g["free_blocks"] == low["free_blocks"] for g in partial) == 1:
            asked.append(("nearly_full_group", True, "extreme",
                          ("Which block group is almost full but still has a few free blocks?",
                           "Which group has the fewest free blocks without being completely full?"),
                          _head(low), f"group descriptor: bg_free_blocks_count = {low['free_blocks']}"))
    most = max(gs, key=lambda g: g["dirs"])
    if most["dirs"] and sum(g["dirs"] == most["dirs"] for g in gs) == 1:
        asked.append(("most_dirs_group", True, "extreme",
                      ("Which block group holds the most directories?", "In which group are most directories?"),
                      _head(most), f"group descriptor: bg_used_dirs_count = {most['dirs']}"))
    kinds = Counter(_counts(g) for g in gs)
    rare = [g for g in gs if kinds[_counts(g)] == 1 and g["group"]]
    for g in rare[:3]:
        asked.append((f"group_{g['group']}", True, "named",
                      (f"How many free blocks, free inodes and directories does group {g['group']} have?",
                       f"What are the free-space counts of block group {g['group']}?"),
                      _counts(g), "group descriptor: bg_free_blocks/free_inodes/used_dirs counts"))
    return asked


def build(work: Path) -> list[dict[str, Any]]:
    for tool in ("mkfs.ext4", "dumpe2fs", "debugfs"):
        if shutil.which(tool) is None:
            raise RuntimeError(f"needs e2fsprogs ({tool})")
    out = []
    for name, (mib, opts, removed) in IMAGES.items():
        root, img = work / f"{name}-tree", work / f"{name}.img"
        root.mkdir()
        _tree(root, name)
        with open(img, "wb") as fh:
            fh.truncate(mib * 1024 * 1024)
        run(["mkfs.ext4", "-q", "-F", *opts, "-E", "root_owner=0:0", "-d", str(root), str(img)])
        for path in removed:
            run(["debugfs", "-w", "-R", f"rm {path}", str(img)])
        data = img.read_bytes()
        sb = superblock(data)
        assert sb["magic"] == 0xEF53, "not an ext4 super block"
        gs = groups(data, sb)
        for output, flags in OUTPUTS.items():
            if output == "dumpe2fs_h" and name not in HEADER_ONLY:
                continue
            content = run(["dumpe2fs", *flags, str(img)]).stdout
            command = f"dumpe2fs {' '.join(flags + [f'/srv/images/{name}.img'])}"
            content = content.replace(str(img), f"/srv/images/{name}.img")
            for scen, listing, intent, wordings, text, note in questions(sb, gs):
                if (listing and output == "dumpe2fs_h") or content.count(text) != 1:
                    continue
                sid = f"{name}_{output}_{scen}"
                kind = "extreme" if intent == "extreme" else "named_item"
                out.append(make_case(SOURCE, sid, "text", "bash", {"command": command}, intent,
                                     choose(f"{SOURCE}/{sid}", wordings), content,
                                     [fact(text, kind, note, basis="independent")]))
    assert len(out) >= 12, f"too few ext4_dumpe2fs cases: {len(out)}"
    return out
