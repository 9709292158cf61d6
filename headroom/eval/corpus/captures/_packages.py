"""Which real package a file installed on this machine comes from, for the corpus notes
(``; package NAME VERSION (origin): path``, as ``config_files_more`` writes them) and
the structured bench's package counts (issue 33: ">= 6 real packages per format").

Derived from the path alone, by what owns it:
- inside ``node_modules``: the nearest ``package.json`` above the file (npm's own unit);
- inside a ``site-packages``: the distribution whose RECORD lists the top-level name
  (``importlib.metadata.packages_distributions``), or the ``*.dist-info`` it sits in;
- inside a ``third_party`` / ``vendored`` folder: the vendored project (the folder below
  it), named with the Debian package that ships the copy;
- otherwise the Debian package that owns the path (``dpkg -S``), named by its *source*
  package (``dbus-session-bus-common`` and ``dbus-system-bus-common`` are one project,
  ``dbus``), with the binary package and version in the origin;
- a path no package owns (a JDK unpacked under ``/usr/lib/jvm``, ``/opt``): the folder
  right below that install root.
Build-time attribution of corpus data only; nothing here is seen by a compressor.
"""

from __future__ import annotations

import json
import os
import subprocess
from functools import lru_cache
from pathlib import Path

VENDOR_DIRS = ("third_party", "vendored")
UNOWNED_ROOTS = (("usr", "lib", "jvm"), ("opt",), ("usr", "local", "lib"))


@lru_cache(maxsize=1)
def _distributions() -> dict[str, list[str]]:
    from importlib.metadata import packages_distributions

    return packages_distributions()


@lru_cache(maxsize=512)
def _dist_version(name: str) -> str:
    from importlib.metadata import PackageNotFoundError, version

    try:
        return version(name)
    except PackageNotFoundError:
        return ""


@lru_cache(maxsize=1024)
def debian_owner(path: str) -> tuple[str, str, str] | None:
    """(source package, binary package, version) of the Debian package owning ``path``."""
    try:
        got = subprocess.run(["dpkg", "-S", path], check=False, capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired):
        return None
    if got.returncode != 0 or ":" not in got.stdout:
        return None
    binary = got.stdout.split("\n", 1)[0].split(":", 1)[0].split(",")[0].strip()
    fields = subprocess.run(["dpkg-query", "-W", "-f", "${source:Package}\t${Version}", binary],
                            check=False, capture_output=True, text=True, timeout=60)
    if fields.returncode != 0 or "\t" not in fields.stdout:
        return binary, binary, ""
    source, version = fields.stdout.split("\t", 1)
    return source or binary, binary, version.strip()


def _npm(path: Path) -> tuple[str, str, str] | None:
    parts = path.parts
    if "node_modules" not in parts:
        return None
    for parent in path.parents:
        manifest = parent / "package.json"
        if manifest.is_file():
            try:
                doc = json.loads(manifest.read_text(encoding="utf-8"))
            except (OSError, ValueError):
                doc = {}
            if isinstance(doc, dict) and doc.get("name"):
                return doc["name"], str(doc.get("version", "")), "npm"
        if parent.name == "node_modules":
            break
    return None


def _site_packages(path: Path) -> tuple[str, str, str] | None:
    parts = path.parts
    if "site-packages" not in parts:
        return None
    top = parts[parts.index("site-packages") + 1]
    if top.endswith(".dist-info"):
        name = top.removesuffix(".dist-info").rsplit("-", 1)[0]
    else:
        names = _distributions().get(top.removesuffix(".py"), [])
        if not names:
            return None
        name = names[0]
    return name, _dist_version(name), "PyPI, in the venv's site-packages"


def _vendored(path: Path) -> tuple[str, str, str] | None:
    parts = path.parts
    for anchor in VENDOR_DIRS:
        if anchor in parts and parts.index(anchor) + 2 < len(parts):
            k = parts.index(anchor)
            owner = debian_owner(str(path))
            where = f"vendored in {owner[1]} {owner[2]}, Debian" if owner else "vendored"
            return parts[k + 1], "", where
    return None


def _unowned(path: Path) -> tuple[str, str, str] | None:
    parts = path.parts[1:]
    for root in UNOWNED_ROOTS:
        if parts[: len(root)] == root and len(parts) > len(root) + 1:
            return parts[len(root)], "", "unpacked on this machine, no Debian package"
    return None


@lru_cache(maxsize=1024)
def package_of(path: str) -> tuple[str, str, str]:
    """(package name, version, origin) of a file on this machine (see the module doc)."""
    p = Path(path)
    for rule in (_npm, _site_packages, _vendored):
        got = rule(p)
        if got:
            return got
    # dpkg knows a file by the path it installed (``groff/current`` is a link to a version)
    owner = debian_owner(path) or debian_owner(os.path.realpath(path))
    if owner:
        source, binary, version = owner
        return source, version, f"Debian {binary}"
    return _unowned(p) or (p.parent.name, "", "this machine")


def package_note(path: str | Path, shown: str | None = None) -> str:
    """The note's ``; package NAME VERSION (origin): path`` tail for a machine file."""
    name, version, origin = package_of(str(path))
    return f"; package {name}{' ' + version if version else ''} ({origin}): {shown or path}"


def package_name(path: str | Path) -> str:
    return package_of(str(path))[0]
