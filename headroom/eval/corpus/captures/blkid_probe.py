"""File-system signatures as util-linux's probe reads them: ``blkid -p -o export disk-*.img``
(one block of ``KEY=value`` lines an image: name, label, UUID, version, block size, type,
usage; ~570 lines, ~10 kB) and ``blkid -p disk-*.img`` (one line an image with the same
``KEY="value"`` pairs; ~70 lines, ~10 kB), over a folder of ~70 small disk images the capture
makes with ``mkfs`` on plain files (no root, no loop device): an image pool of a test lab.

Most images are ext4 with a label and UUID of their own; in the middle, a few are ext2 or ext3,
one holds a swap area, one a minix file system, one a cramfs image, one an ext4 file system
with no label. Facts come from the capture's own record of what it made (the labels and UUIDs
it gave ``mkfs``), checked against each ext image's super-block read with ``struct`` (magic,
UUID and label at their offsets), never from blkid's text; a fact is kept only where it stands
once. Held out (issue 33, twenty-third round): dev holds a partition table (``partx``), an ext4
super-block dump (``dumpe2fs``), mounts and file types, but no probe of file-system signatures
over many images.
"""

from __future__ import annotations

import random
import struct
import uuid
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from ._asked import Ask, shell_cases
from ._run import run

SOURCE = "blkid_probe"
COUNT = 72
WORDS = ("amber", "birch", "cobalt", "dune", "ember", "fjord", "garnet", "harbor", "indigo", "juniper", "krill",
         "lagoon", "maple", "nectar", "onyx", "pepper", "quartz", "raven", "saffron", "tundra", "umber", "violet",
         "willow", "yarrow", "zephyr", "alder", "basalt", "cedar", "delta", "egret")
ENV = {"PATH": "/usr/sbin:/usr/bin:/sbin:/bin", "LC_ALL": "C", "E2FSPROGS_FAKE_TIME": "1796000000"}
COMMANDS = {"export": "blkid -p -o export disk-*.img", "full": "blkid -p disk-*.img"}


@dataclass
class Pool:
    """The capture's record: each image's type, label and UUID as given to mkfs."""

    kind: dict[str, str] = field(default_factory=dict)  # image -> ext4, ext3, ext2, swap, minix, cramfs
    label: dict[str, str] = field(default_factory=dict)
    uuid: dict[str, str] = field(default_factory=dict)
    unlabelled: str = ""


def plan(rnd: random.Random) -> Pool:
    p = Pool()
    images = [f"disk-{n:02d}.img" for n in range(COUNT)]
    labels = iter(rnd.sample([f"{a}-{b}" for a in WORDS for b in WORDS if a != b], COUNT))
    middle = images[COUNT // 3: 2 * COUNT // 3]
    odd = rnd.sample(middle, 9)
    kinds = dict(zip(odd, ("ext2", "ext2", "ext3", "ext3", "swap", "minix", "cramfs", "ext4", "ext4"), strict=True))
    p.unlabelled = odd[-1]
    for img in images:
        p.kind[img] = kinds.get(img, "ext4")
        if p.kind[img] in ("ext2", "ext3", "ext4", "swap") and img != p.unlabelled:
            p.label[img] = next(labels)
        if p.kind[img] in ("ext2", "ext3", "ext4", "swap"):
            p.uuid[img] = str(uuid.UUID(int=rnd.getrandbits(128), version=4))
    return p


def make(p: Pool, folder: Path, seed_dir: Path) -> None:
    for img, kind in p.kind.items():
        path = folder / img
        with path.open("wb") as f:
            f.truncate(2 << 20)
        lab = ["-L", p.label[img]] if img in p.label else []
        if kind.startswith("ext"):
            run([f"mkfs.{kind}", "-q", "-F", *lab, "-U", p.uuid[img], "-E", f"hash_seed={p.uuid[img]}", str(path)],
                env=ENV)
        elif kind == "swap":
            run(["mkswap", *lab, "-U", p.uuid[img], str(path)], env=ENV)
        elif kind == "minix":
            run(["mkfs.minix", str(path)], env=ENV)
        else:
            path.unlink()
            run(["mkfs.cramfs", str(seed_dir), str(path)], env=ENV)


def ext_superblock(path: Path) -> tuple[str, str]:
    """(UUID, label) from an ext2/3/4 super-block: 1024 bytes in, magic 0xEF53 at 0x38."""
    with path.open("rb") as f:
        f.seek(1024)
        sb = f.read(1024)
    assert struct.unpack_from("<H", sb, 0x38)[0] == 0xEF53
    return str(uuid.UUID(bytes=sb[0x68:0x78])), sb[0x78:0x88].rstrip(b"\0").decode()


def _asks(p: Pool, rnd: random.Random) -> list[Ask]:
    note = "the capture's record of the images it made (ext super-blocks read back with struct)"
    by_kind = {k: [i for i, v in p.kind.items() if v == k] for k in set(p.kind.values())}
    asks = [Ask(f"only_{k}", "named", "named_item", (by_kind[k][0],), note,
                (f"Which image holds a {k} signature?", f"What image is formatted as {k}?"))
            for k in ("swap", "minix", "cramfs")]
    asks.append(Ask("unlabelled", "named", "named_item", (p.unlabelled,), note,
                    ("Which ext4 image has no label?", "What ext4 image was made without a label?")))
    plain = [i for i in p.kind if p.kind[i] == "ext4" and i in p.label]
    for img in rnd.sample(plain, 4):
        asks.append(Ask(f"label_{img}", "named", "named_item", (p.label[img],), note,
                        (f"What label does {img} carry?", f"What is the file-system label of {img}?")))
    for img in rnd.sample(plain, 3):
        asks.append(Ask(f"uuid_{img}", "named", "named_item", (img,), note,
                        (f"Which image has the UUID {p.uuid[img]}?", f"What image's file system is {p.uuid[img]}?")))
    return asks


def build(work: Path) -> list[dict[str, Any]]:
    rnd = random.Random(2304)
    pool = plan(rnd)
    seed_dir = work / "seed"
    seed_dir.mkdir()
    for n in range(12):  # what the cramfs image holds: a few fixed files
        (seed_dir / f"fixture{n:02d}.txt").write_text(f"fixture {n}\n" * (n + 1))
    images = work / "images"
    images.mkdir()
    make(pool, images, seed_dir)
    for img, kind in pool.kind.items():
        if kind.startswith("ext"):
            assert ext_superblock(images / img) == (pool.uuid[img], pool.label.get(img, ""))
    out = shell_cases(SOURCE, COMMANDS, _asks(pool, rnd), cwd=images, env=ENV, least=12)
    for img in pool.kind:  # 2 MiB each: not kept
        (images / img).unlink()
    return out
