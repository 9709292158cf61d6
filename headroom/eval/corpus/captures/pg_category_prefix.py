"""A PostgreSQL run whose stderr lines start with the backend type, a category (``client
backend``, ``checkpointer``, ``autovacuum worker`` …), then a Unix time
(``log_line_prefix = '%b %n [%p] '``). Facts from the server's catalogue and severity words."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from . import _pg_runs

SOURCE = "pg_category_prefix"


def build(work: Path) -> list[dict[str, Any]]:
    return _pg_runs.text_source(SOURCE, "category", "category", work, what="postgres log",
                                command="tail -n 4000 /var/log/postgresql/postgresql-15-main.log")
