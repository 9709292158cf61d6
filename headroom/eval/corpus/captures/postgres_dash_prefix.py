"""PostgreSQL at ``log_min_messages = debug1`` through DDL, vacuum, analyze, cluster,
reindex, replication slots, a database copy, a sequence running out and the failing
sessions of ``pg_sessions_jsonlog``: a high-diversity server log whose every line starts
with a dash and a Unix time (``log_line_prefix = '- %n %c %v %a …'``). Facts from the
server's catalogue and severity words."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from . import _pg_runs

SOURCE = "postgres_dash_prefix"


def build(work: Path) -> list[dict[str, Any]]:
    return _pg_runs.text_source(SOURCE, "modes", "debug", work, what="postgres debug log",
                                command="cat /var/log/postgresql/postgresql-15-main.log")
