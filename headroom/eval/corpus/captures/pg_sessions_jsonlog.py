"""PostgreSQL's own structured logger (``log_destination = jsonlog``) during a run with
pgbench, failing statements of many kinds, a deadlock, timeouts, a killed session, a role
without rights and too many clients: the records as a JSON array (``jq -s .`` of the
rotated ``.json`` files). Facts from the server's catalogue and severity field."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from . import _pg_runs

SOURCE = "pg_sessions_jsonlog"


def build(work: Path) -> list[dict[str, Any]]:
    return _pg_runs.json_source(SOURCE, "sessions", "jsonlog", work, what="postgres JSON log records",
                                tool_name="bash",
                                tool_args={"command": "jq -s . /var/log/postgresql/postgresql.log.*.json"})
