"""Archive member listings: GNU tar's ``tar -tvvf`` of a release tarball (mode, owner/group,
size, date, name; links with their targets) and Info-ZIP's ``unzip -lv`` (length, method,
compressed size, ratio, date, CRC-32, name) and ``zipinfo -l`` (mode, version, compressed
size, method, name) of a wheel, both of a project tree the capture makes (~220 tar members, ~120 in the wheel).

The tree is alike except for a few members: one far larger asset, one file six years older
than the rest, one owned by another user, one readable by its owner only, one symbolic link,
one hard link, one set-user-ID helper; the wheel stores one already-compressed image
uncompressed and holds one member of random bytes that does not shrink. GNU ``tar`` and
``zip`` write the archives from the files on disk; facts come from Python's ``tarfile`` and
``zipfile`` reading the same archives (another reader), never from the listings' text: the
answer is a member's name, or the CRC-32 of a named member as ``unzip`` writes it. Held out
(issue 33, eighth round): no dev source holds archive listings.
"""

from __future__ import annotations

import os
import random
import stat
import tarfile
import zipfile
from pathlib import Path
from typing import Any

from ._asked import Ask, Output, asked_cases
from ._run import run

SOURCE = "archive_members"
TOP = "shopkit-2.4.1"
STAMP = 1795000000  # 2026-11-18
MODULES = ("cart", "checkout", "coupons", "catalog", "pricing", "stock", "orders", "payments", "refunds",
           "shipping", "taxes", "invoices", "customers", "reviews", "search", "sessions", "webhooks", "exports")
LOCALES = ("de", "fr", "es", "it", "nl", "pl", "pt_BR", "sv", "fi", "da", "cs", "ja", "ko", "tr", "uk", "zh_CN")
ODD = {  # role: the member (under TOP) that alone has it
    "largest": "src/shopkit/pricing/geo-rates.bin",
    "oldest": "src/shopkit/orders/legacy_import.py",
    "foreign": "src/shopkit/payments/gateway_keys.py",
    "private": "src/shopkit/customers/pii_salt.txt",
    "setuid": "src/shopkit/stock/rebuild-helper",
    "symlink": "src/shopkit/search/synonyms-current.txt",
    "hardlink": "src/shopkit/refunds/policy_copy.txt",
}


def _write(path: Path, data: bytes, mode: int = 0o644) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    path.chmod(mode)


def make_tree(root: Path) -> None:
    """The project tree: modules, tests and translations alike, and the odd members."""
    rnd = random.Random(8)
    words = b"price stock order cart item total tax ship refund coupon invoice customer ".split()
    for m in MODULES:
        for part in ("__init__", "models", "views", "service", "schema", "errors"):
            body = b"\n".join(b" ".join(rnd.choices(words, k=12)) for _ in range(rnd.randint(20, 90)))
            _write(root / "src/shopkit" / m / f"{part}.py", b"# " + body + b"\n")
        _write(root / "tests" / f"test_{m}.py", b"def test_%s():\n    assert True\n" % m.encode())
    for loc in LOCALES:
        for domain in ("shopkit", "emails"):
            _write(root / "locales" / loc / "LC_MESSAGES" / f"{domain}.po",
                   b"msgid \"x\"\nmsgstr \"%s\"\n" % bytes(rnd.randint(300, 3000)).replace(b"\0", b"y"))
    _write(root / ODD["largest"], rnd.randbytes(2_300_000))
    _write(root / ODD["oldest"], b"# kept for the 2020 import\n" * 40)
    _write(root / ODD["foreign"], b"KEYS = {}\n" * 30)
    os.chown(root / ODD["foreign"], 1207, 1207)
    _write(root / ODD["private"], b"salt\n" * 9, mode=0o600)
    _write(root / ODD["setuid"], b"#!/bin/sh\nexec true\n", mode=0o4755)
    (root / "src/shopkit/search/synonyms-2026.txt").write_text("car auto\n" * 50)
    os.symlink("synonyms-2026.txt", root / ODD["symlink"])
    _write(root / "src/shopkit/refunds/policy.txt", b"refunds within 30 days\n" * 20)
    os.link(root / "src/shopkit/refunds/policy.txt", root / ODD["hardlink"])
    for p in sorted(root.rglob("*")):
        when = STAMP - 6 * 365 * 86400 if p == root / ODD["oldest"] else STAMP + rnd.randint(0, 86400)
        os.utime(p, (when, when), follow_symlinks=False)


def tar_roles(path: Path) -> dict[str, str]:
    """Each odd role's one member, as Python's ``tarfile`` reads the archive."""
    with tarfile.open(path) as tar:
        members = tar.getmembers()
    files = [m for m in members if m.isfile()]

    def only(test) -> str:
        hits = [m.name for m in members if test(m)]
        assert len(hits) == 1, hits
        return hits[0]

    return {"largest": max(files, key=lambda m: m.size).name,
            "oldest": min(files, key=lambda m: m.mtime).name,
            "foreign": only(lambda m: m.uid != 0),
            "private": only(lambda m: m.isfile() and stat.S_IMODE(m.mode) == 0o600),
            "setuid": only(lambda m: m.mode & stat.S_ISUID),
            "symlink": only(lambda m: m.issym()),
            "hardlink": only(lambda m: m.islnk()),
            "largest_po": _leader([m for m in files if m.name.endswith(".po")], lambda m: m.size)}


def _leader(items: list, size) -> str:
    """The item with the largest size, only where no other ties it."""
    first, second = sorted(items, key=size, reverse=True)[:2]
    assert size(first) > size(second), (first, second)
    return first.name if hasattr(first, "name") else first.filename


def make_wheel(root: Path, wheel: Path) -> None:
    """A wheel written by ``zip`` from the package files; the image is stored, not deflated."""
    pkg = root / "src"
    _write(pkg / "shopkit/static/banner.png", b"\x89PNG\r\n\x1a\n" + random.Random(3).randbytes(90_000))
    dist = pkg / "shopkit-2.4.1.dist-info"
    _write(dist / "METADATA", b"Metadata-Version: 2.1\nName: shopkit\nVersion: 2.4.1\n")
    _write(dist / "WHEEL", b"Wheel-Version: 1.0\nGenerator: capture\nRoot-Is-Purelib: true\nTag: py3-none-any\n")
    names = sorted(str(p.relative_to(pkg)) for p in pkg.rglob("*") if p.is_file() and not p.is_symlink()
                   and "rebuild-helper" not in p.name)
    env = {"PATH": "/usr/bin:/bin", "LC_ALL": "C", "TZ": "UTC"}
    run(["zip", "-q", "-X", "-n", ".png", str(wheel), *names], cwd=pkg, env=env)


def zip_roles(path: Path) -> dict[str, Any]:
    with zipfile.ZipFile(path) as z:
        infos = z.infolist()
    stored = [i.filename for i in infos if i.compress_type == zipfile.ZIP_STORED and i.file_size > 1000]
    deflated = [i for i in infos if i.compress_type == zipfile.ZIP_DEFLATED and i.file_size > 1000]
    worst = max(deflated, key=lambda i: i.compress_size / i.file_size)
    crcs = {i.filename: f"{i.CRC:08x}" for i in infos}
    modules = [i for i in infos if i.filename.endswith(".py")]
    return {"stored": stored, "worst": worst.filename, "crcs": crcs,
            "largest_py": _leader(modules, lambda i: i.file_size)}


def _asks(tars: dict[str, str], zips: dict[str, Any]) -> list[Ask]:
    tar_only = ("tar_tvv",)
    zip_only = ("unzip_lv", "zipinfo_l")
    crc_of = ("shopkit/checkout/service.py", "shopkit/taxes/models.py")
    return [
        Ask("largest", "extreme", "extreme", (tars["largest"],), "tarfile: the largest regular member",
            ("Which file in the tarball is the biggest?", "What's the largest member of this archive?"), tar_only),
        Ask("oldest", "extreme", "extreme", (tars["oldest"],), "tarfile: the member with the oldest mtime",
            ("Which file in the release has the oldest timestamp?", "Is there a stale file in here? Which one?"),
            tar_only),
        Ask("foreign_owner", "named", "named_item", (tars["foreign"],), "tarfile: the one member with uid != 0",
            ("Which file isn't owned by root in this tarball?", "Which member has a different owner?"), tar_only),
        Ask("private", "named", "named_item", (tars["private"],), "tarfile: the one regular member of mode 0600",
            ("Which file is readable only by its owner?", "Is any file in the tarball mode 600? Which?"), tar_only),
        Ask("setuid", "named", "named_item", (tars["setuid"],), "tarfile: the one member with S_ISUID",
            ("Is anything in the archive setuid?", "Which member has the set-user-ID bit?"), tar_only),
        Ask("symlink", "named", "named_item", (tars["symlink"],), "tarfile: the one symbolic link member",
            ("Which entry is a symbolic link?", "Does the tarball contain a symlink? Which path?"), tar_only),
        Ask("hardlink", "named", "named_item", (tars["hardlink"],), "tarfile: the one hard link member",
            ("Which member is stored as a hard link?", "Which file is a hard link to another member?"), tar_only),
        Ask("links", "named", "named_item", (tars["symlink"], tars["hardlink"]), "tarfile: the link members",
            ("Are there any links in this tarball? List them.", "Which members are links rather than files?"),
            tar_only),
        Ask("largest_translation", "extreme", "extreme", (tars["largest_po"],), "tarfile: the largest .po member",
            ("Which translation file is the largest?", "Which locale has the biggest .po file?"), tar_only),
        Ask("largest_module", "extreme", "extreme", (zips["largest_py"],), "zipfile: the largest .py member",
            ("Which Python module in the wheel is the biggest?", "What's the largest .py file in the wheel?"),
            zip_only),
        Ask("stored", "named", "named_item", tuple(zips["stored"]), "zipfile: the members with ZIP_STORED",
            ("Which file in the wheel isn't compressed?", "Which member is stored rather than deflated?"),
            zip_only),
        Ask("worst_ratio", "extreme", "extreme", (zips["worst"],), "zipfile: the deflated member that shrank least",
            ("Which deflated file compresses worst?", "Which member barely shrinks in the wheel?"), zip_only),
        *(Ask(f"crc_{n}", "named", "named_item", (zips["crcs"][name],), "zipfile: ZipInfo.CRC of the member",
              (f"What is the CRC-32 of {name} in the wheel?", f"Give me the checksum unzip reports for {name}."),
              ("unzip_lv",)) for n, name in enumerate(crc_of)),
    ]


def build(work: Path) -> list[dict[str, Any]]:
    root = work / TOP
    make_tree(root)
    env = {"PATH": "/usr/bin:/bin", "LC_ALL": "C", "TZ": "UTC"}
    tar_path = work / f"{TOP}.tar"
    run(["tar", "--sort=name", "-cf", str(tar_path), TOP], cwd=work, env=env)
    wheel = work / "shopkit-2.4.1-py3-none-any.whl"
    make_wheel(root, wheel)
    texts = {"tar_tvv": run(["tar", "-tvvf", tar_path.name], cwd=work, env=env).stdout,
             "unzip_lv": run(["unzip", "-lv", wheel.name], cwd=work, env=env).stdout,
             "zipinfo_l": run(["zipinfo", "-l", wheel.name], cwd=work, env=env).stdout}
    tars, zips = tar_roles(tar_path), zip_roles(wheel)
    assert {k: tars[k].removeprefix(f"{TOP}/") for k in ODD} == ODD, tars  # the record and the reader agree
    assert zips["stored"] == ["shopkit/static/banner.png"], zips["stored"]
    commands = {"tar_tvv": f"tar -tvvf {tar_path.name}", "unzip_lv": f"unzip -lv {wheel.name}",
                "zipinfo_l": f"zipinfo -l {wheel.name}"}
    outputs = {name: Output({"command": commands[name]}, "text", texts[name]) for name in texts}
    out = asked_cases(SOURCE, outputs, _asks(tars, zips))
    assert len(out) >= 12, f"too few {SOURCE} cases: {len(out)}"
    return out
