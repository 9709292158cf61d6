"""Held-out Python modules from the shared venv's site-packages (fsspec, packaging,
urllib3, dateutil, pydantic, redis), read whole; built like ``read_python``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ._source_files import file_cases, python_functions
from .read_python import site_packages

SOURCE = "python_site_packages"
FILES = ("fsspec/spec.py", "fsspec/caching.py", "packaging/specifiers.py", "packaging/version.py",
         "urllib3/response.py", "urllib3/connectionpool.py", "dateutil/rrule.py", "pydantic/main.py",
         "redis/connection.py", "packaging/tags.py")


def build(work: Path) -> list[dict[str, Any]]:
    site = site_packages()
    return file_cases(SOURCE, [(f, site / f) for f in FILES], python_functions)
