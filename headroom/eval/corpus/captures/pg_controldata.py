"""``pg_controldata`` of PostgreSQL 15 clusters (Debian): the control file as ~50
``label: value`` lines (checkpoint and redo locations, WAL file, next XID/OID, timeline,
system identifier, limits, compiled-in sizes), read from one running cluster at three
moments: fresh from ``initdb``, after ``pgbench`` and a checkpoint, and after more traffic,
``VACUUM ANALYZE`` and a second checkpoint.

Facts come from the server's own SQL functions over the same file
(``pg_control_checkpoint()``, ``pg_control_system()``), never from the text; a fact is
kept only where its value occurs once in the output. Held out (issue 33): no dev source
holds a database's control data (the PostgreSQL sources are logs).
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

from ..cases import fact, make_case
from ..questions import choose
from ._pg_runs import BIN, capture
from ._run import run

SOURCE = "pg_controldata"
SQL = ("SELECT c.checkpoint_lsn, c.redo_lsn, c.redo_wal_file, c.next_xid, c.next_oid, s.system_identifier "
       "FROM pg_control_checkpoint() c, pg_control_system() s")
ASKED = (  # column, wordings
    ("checkpoint_lsn", ("At which WAL location was the latest checkpoint written?",
                        "What is the LSN of the most recent checkpoint?")),
    ("redo_lsn", ("Where in the WAL would crash recovery start replaying from?",
                  "What is the redo location of the last checkpoint?")),
    ("redo_wal_file", ("Which WAL segment file holds the redo point?",
                       "What WAL file does recovery need first?")),
    ("next_xid", ("What transaction id (with its epoch) will the cluster hand out next?",
                  "What is the next XID recorded at the last checkpoint?")),
    ("next_oid", ("What OID will the next object get?", "What is the next OID in the control file?")),
    ("system_identifier", ("What is this cluster's unique system identifier?",
                           "Which system identifier does this database cluster have?")),
)


def _snapshot(data: Path, conn: list[str]) -> tuple[str, dict[str, str]]:
    pg = ["runuser", "-u", "postgres", "--"]
    row = run([*pg, str(BIN / "psql"), *conn, "-U", "postgres", "-d", "postgres", "-AtF", "\t", "-c", SQL]).stdout
    values = dict(zip([c for c, _ in ASKED], row.strip().split("\t")))
    text = run([*pg, str(BIN / "pg_controldata"), str(data)], env={**os.environ, "LC_ALL": "C"}).stdout
    return text, values


def build(work: Path) -> list[dict[str, Any]]:
    snaps: list[tuple[str, str, dict[str, str]]] = []
    data = work / "pg" / "pgdata"

    def workload(psql, conn: list[str]) -> None:
        pg = ["runuser", "-u", "postgres", "--"]
        snaps.append(("fresh", *_snapshot(data, conn)))
        run([*pg, str(BIN / "createdb"), *conn, "-U", "postgres", "bench"])
        run([*pg, str(BIN / "pgbench"), *conn, "-U", "postgres", "-i", "-s", "2", "bench"])
        run([*pg, str(BIN / "pgbench"), *conn, "-U", "postgres", "-c", "4", "-j", "2", "-t", "150", "bench"])
        psql("CHECKPOINT")
        psql("CREATE TABLE audit_trail AS SELECT g AS id, md5(g::text) AS digest FROM generate_series(1, 20000) g")
        snaps.append(("after_pgbench", *_snapshot(data, conn)))
        run([*pg, str(BIN / "pgbench"), *conn, "-U", "postgres", "-c", "2", "-j", "1", "-t", "300", "bench"])
        psql("VACUUM ANALYZE")
        psql("CHECKPOINT")
        snaps.append(("after_second_checkpoint", *_snapshot(data, conn)))

    capture(work / "pg", "", workload)
    out = []
    for name, text, values in snaps:
        args = {"command": "pg_controldata"}
        for column, wordings in ASKED:
            t = values.get(column, "")
            if len(t) < 3 or text.count(t) != 1:
                continue
            sid = f"{name}_{column}"
            out.append(make_case(SOURCE, sid, "text", "bash", args, "named", choose(f"{SOURCE}/{sid}", wordings),
                                 text, [fact(t, "named_item", f"SQL pg_control_*(): {column}", basis="independent")]))
    assert len(out) >= 10, f"too few pg_controldata cases: {len(out)}"
    return out
