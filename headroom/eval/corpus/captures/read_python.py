"""Python modules of widely used packages in the shared venv's site-packages (click,
httpx, requests, rich, jinja2), read whole as an agent reads them; questions describe one
function by its docstring's first sentence. The held-out twin is ``python_site_packages``."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ._source_files import file_cases, python_functions

SOURCE = "read_python"
FILES = ("click/core.py", "click/types.py", "httpx/_client.py", "httpx/_models.py", "requests/models.py",
         "requests/utils.py", "rich/console.py", "rich/text.py", "jinja2/environment.py", "jinja2/filters.py")


def site_packages() -> Path:
    import click  # locates the shared venv's site-packages (not the standard library)

    return Path(click.__file__).parents[1]


def build(work: Path) -> list[dict[str, Any]]:
    site = site_packages()
    return file_cases(SOURCE, [(f, site / f) for f in FILES], python_functions)
