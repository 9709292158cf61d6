"""The debug-level PostgreSQL run of ``postgres_dash_prefix`` as its jsonlog records (a JSON
array): hundreds of distinct event types, most of them written once. Facts from the
server's catalogue and severity field."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from . import _pg_runs

SOURCE = "postgres_debug_log"


def build(work: Path) -> list[dict[str, Any]]:
    return _pg_runs.json_source(SOURCE, "modes", "debug_json", work, what="postgres debug log records",
                                tool_name="http_get",
                                tool_args={"url": "http://logs.internal/api/v1/postgres/main?level=debug1"})
