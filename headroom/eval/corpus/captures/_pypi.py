"""Fetching PyPI's JSON APIs at build time (the captures that record them)."""

from __future__ import annotations

import hashlib
import io
import json
import re
import tarfile
import urllib.request
from collections.abc import Callable
from pathlib import Path
from typing import Any

SIMPLE_JSON = "application/vnd.pypi.simple.v1+json"  # PEP 691


def fetch(url: str, accept: str = "application/json") -> str:
    req = urllib.request.Request(url, headers={"Accept": accept, "User-Agent": "headroom-corpus-build"})
    with urllib.request.urlopen(req, timeout=60) as resp:
        return resp.read().decode()


def simple_project(name: str) -> tuple[str, dict[str, Any]]:
    """The simple index page of ``name`` as PEP 691 JSON: its text and parsed value."""
    text = fetch(f"https://pypi.org/simple/{name}/", SIMPLE_JSON)
    return text, json.loads(text)


def pypi_sdist(name: str, version: str, dest: Path, wanted: Callable[[str], bool]) -> Path:
    """The release's sdist from PyPI's simple index, its SHA-256 checked, only the members
    ``wanted`` accepts (by their path in the archive) unpacked into ``dest/name-version``;
    never built, so no build backend runs."""
    index = json.loads(fetch(f"https://pypi.org/simple/{name}/", SIMPLE_JSON))

    def norm(s: str) -> str:  # PEP 503 style: "pydantic_core-2.0.tar.gz" ~ "pydantic-core-2.0.tar.gz"
        return re.sub(r"[-_.]+", "-", s.lower())

    (entry,) = [f for f in index["files"] if norm(f["filename"]) == norm(f"{name}-{version}.tar.gz")]
    req = urllib.request.Request(entry["url"], headers={"User-Agent": "headroom-corpus-build"})
    with urllib.request.urlopen(req, timeout=300) as resp:
        data = resp.read()
    if hashlib.sha256(data).hexdigest() != entry["hashes"]["sha256"]:
        raise RuntimeError(f"{entry['filename']}: SHA-256 differs from PyPI's index")
    out = dest / f"{name}-{version}"
    with tarfile.open(fileobj=io.BytesIO(data)) as tar:
        tar.extractall(out, members=[m for m in tar.getmembers() if m.isfile() and wanted(m.name)], filter="data")
    return out
