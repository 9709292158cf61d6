"""The same kind of PostgreSQL run logged to stderr files rotated every 48 kB and named the
way logrotate names them (``postgresql.log.2026-11-27_10:15:02``), concatenated with each
line led by its file's name (``awk '{print FILENAME, $0}'``). Facts from the server's
catalogue and severity words."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from . import _pg_runs

SOURCE = "postgres_multifile"


def build(work: Path) -> list[dict[str, Any]]:
    return _pg_runs.text_source(SOURCE, "sessions", "rotated", work, what="concatenated postgres log files",
                                command="awk '{print FILENAME, $0}' postgresql.log.*", file_names=True)
