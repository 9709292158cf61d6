"""PostgreSQL's jsonlog records of the sessions run (the run ``pg_sessions_jsonlog``
captures: pgbench, failing statements, a deadlock, timeouts, a killed session, too many
clients) handed over as a plain table's rows, the way a reporting API or a spreadsheet
export returns them: columns named like any table's (``t``, ``host``, ``level``, ``c3``,
``text``, numeric flags), some misleadingly (``level`` holds the backend type, ``c3`` the
severity), every row holding every column (null where the record had no such field); and
the same rows again under opaque names (``k0`` …) with each row's keys in a shuffled order.

Facts are the sessions run's, from the server's own message catalogue and severity field
(``_pg_runs.facts_for``): nothing in them depends on what the columns are called, so a
compressor that reads logs by field names is measured here on what it misses.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

from . import _pg_runs

SOURCE = "postgres_table_rows"
# Table column <- jsonlog field.
COLUMNS = (("t", "timestamp"), ("host", "remote_host"), ("level", "backend_type"), ("c1", "pid"),
           ("c2", "line_num"), ("c3", "error_severity"), ("text", "message"), ("c5", "txid"),
           ("c9", "detail"), ("c10", "statement"))


def table_rows(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One row per record, every column present; ``has_sql`` flags rows that carried a
    statement (a numeric column, as exports write booleans)."""
    return [{**{col: r.get(field) for col, field in COLUMNS}, "has_sql": int("statement" in r)} for r in records]


def opaque_rows(rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The same rows with every column renamed to ``k<n>`` (a seeded permutation) and each
    row's keys in a shuffled order."""
    rng = random.Random(SOURCE)
    names = list(rows[0])
    codes = [f"k{n}" for n in range(len(names))]
    rng.shuffle(codes)
    rename = dict(zip(names, codes))
    out = []
    for row in rows:
        pairs = [(rename[k], v) for k, v in row.items()]
        rng.shuffle(pairs)
        out.append(dict(pairs))
    return out


def cases_of(records: list[dict[str, Any]]) -> list[dict[str, Any]]:
    rows = table_rows(records)
    out = []
    for name, content, args in (
            ("table", json.dumps(rows), {"url": "http://reports.internal/api/tables/db_events/rows"}),
            ("opaque", json.dumps(opaque_rows(rows)), {"url": "http://reports.internal/api/export/t_0042"})):
        facts = _pg_runs.facts_for(_pg_runs.events_of_records(records), [content], "jsonlog message field")
        out += _pg_runs.cases(SOURCE, name, "json", content, facts, what="rows of a database events table",
                              tool_name="http_get", tool_args=args)
    return out


def build(work: Path) -> list[dict[str, Any]]:
    _, records = _pg_runs.run_logs("sessions", work)
    return cases_of(records)
