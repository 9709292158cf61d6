"""Fetching PyPI's JSON APIs at build time (the captures that record them)."""

from __future__ import annotations

import json
import urllib.request
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
