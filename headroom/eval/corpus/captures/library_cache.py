"""The shared-library cache as glibc's ``ldconfig`` shows it: ``ldconfig -p`` (one line per
cached library: soname, ABI and hardware-capability flags, path; ~570 lines, the system's
libraries around the capture's) and ``ldconfig -v`` (each scanned directory, then one
``soname -> file`` line per library in it), of a cache the capture builds into a file of
its own (``-C``) from a configuration naming four library directories it fills.

The capture compiles ~16 small shared libraries with ``gcc -shared`` under sonames of its
choosing. Most are plain (``libNAME.so.MAJOR`` pointing at ``libNAME.so.MAJOR.MINOR.PATCH``);
a few differ in one way each: one soname points at a file named otherwise, one library has
an extra build under ``glibc-hwcaps/x86-64-v3``, one has two major versions in two
directories, one soname carries no version, one library was linked without any soname, and
one soname is in two directories. Facts come from the capture's own record of what it
built, checked with ``os.path.realpath`` on the links it made, never from ``ldconfig``'s
text: the answer is a path or a file name. A fact is kept only where its text stands once
in the output. Held out (issue 33, tenth round): no dev source holds the library cache.
"""

from __future__ import annotations

import os
import random
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ._asked import Ask, shell_cases
from ._run import run

SOURCE = "library_cache"
ENV = {"PATH": "/usr/bin:/bin:/usr/sbin:/sbin", "LC_ALL": "C"}
DIRS = ("opt/shop/lib", "opt/vendor/lib", "opt/legacy/lib", "opt/shop/lib/glibc-hwcaps/x86-64-v3")
PLAIN = ("shopcore", "shopdb", "shopcache", "shopmail", "shopsearch", "shopmetrics", "shoppdf", "shoptax",
         "vendorgeo", "vendorpay")
CODE = "int answer_{n}(void) {{ return {n}; }}\n"


@dataclass(frozen=True)
class Library:
    folder: str  # one of DIRS
    file: str
    soname: str | None  # None: linked without -soname
    link: str | None = None  # the soname link the capture makes beside the file


def plan() -> dict[str, Library]:
    """Every library the capture builds, by role (the plain ones by their stem)."""
    rnd = random.Random(1010)
    libs = {}
    for stem in PLAIN:
        major = rnd.randint(0, 9)
        version = f"{major}.{rnd.randint(0, 20)}.{rnd.randint(0, 9)}"
        folder = DIRS[1] if stem.startswith("vendor") else DIRS[0]
        libs[stem] = Library(folder, f"lib{stem}.so.{version}", f"lib{stem}.so.{major}", f"lib{stem}.so.{major}")
    libs.update({
        "renamed": Library(DIRS[0], "libshopcodec-impl-4.9.so", "libshopcodec.so.4", "libshopcodec.so.4"),
        "simd_base": Library(DIRS[0], "libshopsimd.so.1.3.0", "libshopsimd.so.1", "libshopsimd.so.1"),
        "simd_v3": Library(DIRS[3], "libshopsimd.so.1.3.0", "libshopsimd.so.1", "libshopsimd.so.1"),
        "auth_new": Library(DIRS[0], "libshopauth.so.2.1.0", "libshopauth.so.2", "libshopauth.so.2"),
        "auth_old": Library(DIRS[2], "libshopauth.so.1.8.2", "libshopauth.so.1", "libshopauth.so.1"),
        "unversioned": Library(DIRS[1], "libvendorplug.so", "libvendorplug.so"),
        "no_soname": Library(DIRS[1], "libvendorjit.so.0", None),
        "json_shop": Library(DIRS[0], "libshopjson.so.2.4.1", "libshopjson.so.2", "libshopjson.so.2"),
        "json_vendor": Library(DIRS[1], "libshopjson.so.2.2.7", "libshopjson.so.2", "libshopjson.so.2"),
    })
    return libs


def make(work: Path, libs: dict[str, Library]) -> Path:
    """Compile every library, make its soname link, write the configuration; its path."""
    (work / "answer.c").write_text("".join(CODE.format(n=n) for n in range(3)))
    for folder in DIRS:
        (work / folder).mkdir(parents=True, exist_ok=True)
    for lib in libs.values():
        target = work / lib.folder / lib.file
        soname = [f"-Wl,-soname,{lib.soname}"] if lib.soname else []
        run(["gcc", "-shared", "-fPIC", *soname, "-o", str(target), "answer.c"], cwd=work, env=ENV)
        if lib.link:
            (work / lib.folder / lib.link).symlink_to(lib.file)
    conf = work / "ld.so.conf"
    conf.write_text("".join(f"{work / d}\n" for d in DIRS[:3]))
    return conf


def _asks(work: Path, libs: dict[str, Library]) -> list[Ask]:
    def path(role: str, *, link: bool = True) -> str:
        lib = libs[role]
        return str(work / lib.folder / (lib.link if link and lib.link else lib.file))

    renamed = libs["renamed"]
    assert os.path.realpath(path("renamed")) == path("renamed", link=False)
    note = "the capture's record of the libraries it built"
    return [
        Ask("renamed", "named", "named_item", (renamed.file,), f"{note}; os.path.realpath of the soname link",
            (f"Which file does {renamed.soname} actually point to?", f"What file is behind {renamed.soname}?"),
            ("verbose",)),
        Ask("hwcaps", "named", "named_item",
            lambda output: (path("simd_v3", link=False),) if output == "cache" else (str(work / DIRS[3]),),
            note, ("Where is the x86-64-v3 optimised build of our libraries?",
                   "Which path holds the CPU-specific (x86-64-v3) variant?")),
        Ask("old_auth", "named", "named_item",
            lambda output: (path("auth_old"),) if output == "cache" else (libs["auth_old"].file,),
            note, ("Where's the older major version of libshopauth?",
                   "Which libshopauth from the legacy directory is still cached?")),
        Ask("unversioned", "named", "named_item", (path("unversioned"),), note,
            ("Which cached library has no version number in its soname, and where is it?",), ("cache",)),
        Ask("json_copies", "named", "named_item", (path("json_shop"), path("json_vendor")), note,
            ("Which copies of libshopjson.so.2 are in the cache?", "Where are the two libshopjson.so.2 files?"),
            ("cache",)),
        Ask("json_files", "named", "named_item", (libs["json_shop"].file, libs["json_vendor"].file), note,
            ("Which real files do the two libshopjson.so.2 links point to?",), ("verbose",)),
        *[Ask(f"plain_{stem}", "named", "named_item",
              lambda output, stem=stem: (path(stem),) if output == "cache" else (libs[stem].file,), note,
              (f"Where does the loader find lib{stem}?", f"Which lib{stem} file is cached?"))
          for stem in ("shopmetrics", "vendorgeo", "shoptax")],
    ]


def build(work: Path) -> list[dict[str, Any]]:
    libs = plan()
    make(work, libs)
    commands = {"cache": "ldconfig -X -C ld.so.cache -f ld.so.conf && ldconfig -p -C ld.so.cache",
                "verbose": "ldconfig -v -N -X -C ld.so.cache -f ld.so.conf"}
    return shell_cases(SOURCE, commands, _asks(work, libs), cwd=work, env=ENV)
