"""Write-ahead log records as PostgreSQL 15's ``pg_waldump`` prints them: one line a record
(resource manager, lengths, transaction, LSN and previous LSN, description, block
references ``rel <tablespace>/<database>/<filenode> blk N``), and with ``-b`` each block
reference on a line of its own, over the stretch of WAL a throwaway cluster writes after a
checkpoint: ~220 one-row transactions, each on a table of its own, among which a few do
something else (a delete, an update, an exclusive row lock, a truncate, a COPY of many rows, a
rolled back insert, a shared row lock).

Facts come from SQL the capture runs on the same cluster (``pg_relation_filenode()`` of each
table an odd transaction touched, after the workload), never from ``pg_waldump``'s text; a fact is
kept only where it stands once. Held out (issue 33, sixteenth round): dev holds PostgreSQL's
logs, plans, schema dumps and control data, but no WAL records.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from functools import partial
from pathlib import Path
from typing import Any

from ._asked import Ask, shell_cases
from ._pg_runs import BIN, capture, query

SOURCE = "wal_records"
AREAS = ("ledger", "checkout", "search", "catalog", "billing", "profile", "media", "reports", "stock", "audit")
NOUNS = ("orders", "events", "totals", "drafts", "tokens", "limits", "queues", "notes", "rates", "holds",
         "claims", "slots")
COUNT = 220
# The odd transactions: what each does to its own table (its relation's filenode is the answer).
ODD = {
    "delete": "DELETE FROM {t}",
    "update": "UPDATE {t} SET note = 'revised'",
    "lock": "BEGIN; SELECT * FROM {t} FOR UPDATE; COMMIT",
    "truncate": "TRUNCATE {t}",
    "copy": "COPY {t} (id) FROM PROGRAM 'seq 1 60'",
    "rollback": "BEGIN; INSERT INTO {t} VALUES (2, 'undone'); ROLLBACK",
    "share": "BEGIN; SELECT * FROM {t} FOR SHARE; COMMIT",
}
WORDINGS = {
    "delete": ("Which relation file did the DELETE in this WAL go to? Give its filenode.",
               "Rows were deleted somewhere in this stretch of WAL: which relfilenode?"),
    "update": ("Which relation was updated in place (HOT) here, by filenode?",
               "Find the update record: what's the filenode of the table it touched?"),
    "lock": ("Which relation had a row locked (SELECT FOR UPDATE) in this WAL? Filenode, please.",
             "There's a row-lock record in this dump: which relfilenode does it refer to?"),
    "truncate": ("A table was truncated in this stretch: what's the filenode of the new file it got?",
                 "Which relfilenode did the TRUNCATE create?"),
    "copy": ("Which relation received the multi-row insert from COPY, by filenode?",
             "The bulk load here: which relfilenode did the multi-insert write to?"),
    "rollback": ("One insert here was rolled back: which relation's filenode did it touch?",
                 "Which relfilenode holds the insert of the aborted transaction?"),
    "share": ("Which relation had a row locked in share mode (FOR SHARE)? Give the filenode.",
              "One row lock here is a shared one, not exclusive: which relfilenode?"),
}


def tables(rnd: random.Random) -> tuple[list[str], dict[str, str]]:
    """The tables in write order and which table each odd transaction goes to (middle half)."""
    names = [f"{rnd.choice(AREAS)}_{rnd.choice(NOUNS)}_{i:03d}" for i in range(COUNT)]
    spots = rnd.sample(range(COUNT // 4, COUNT * 3 // 4), len(ODD))
    return names, {what: names[i] for what, i in zip(ODD, spots, strict=True)}


def scripts(names: list[str], odd: dict[str, str]) -> tuple[str, str]:
    """The set-up (before the checkpoint) and the workload (after it): one statement a
    transaction, each table touched once."""
    setup = [f"CREATE TABLE {t} (id int, note text); INSERT INTO {t} VALUES (1, 'seed');" for t in names]
    setup.append("CHECKPOINT;")
    by_table = {t: what for what, t in odd.items()}
    work = []
    for t in names:
        what = by_table.get(t)
        work.append((ODD[what] if what else "INSERT INTO {t} VALUES (2, 'later')").format(t=t) + ";")
    return "\n".join(setup) + "\n", "\n".join(work) + "\n"


def filenode_sql(odd: dict[str, str]) -> str:
    """One ``name|filenode`` row per relation an odd transaction touched, read after the workload."""
    return " UNION ALL ".join(f"SELECT '{what}', pg_relation_filenode('{t}')" for what, t in odd.items()) + ";"


def workload(names: list[str], odd: dict[str, str], found: dict[str, Any]) -> Callable[..., None]:
    setup, work = scripts(names, odd)

    def go(psql: Callable[..., Any], conn: list[str]) -> None:
        sql = partial(query, conn, "shop")

        psql("CREATE DATABASE shop", db="postgres")
        sql(setup)
        found["start"] = sql("SELECT pg_current_wal_insert_lsn();")
        sql(work)
        found["end"] = sql("SELECT pg_current_wal_insert_lsn();")
        found["filenodes"] = dict(line.split("|") for line in sql(filenode_sql(odd)).splitlines())

    return go


def _asks(filenodes: dict[str, str]) -> list[Ask]:
    note = "pg_relation_filenode() of the relation, by SQL on the same cluster after the workload"
    return [Ask(what, "named", "named_item", (filenodes[what],), note, WORDINGS[what]) for what in ODD]


def build(work: Path) -> list[dict[str, Any]]:
    rnd = random.Random(1603)
    names, odd = tables(rnd)
    found: dict[str, Any] = {}
    capture(work / "pg", "autovacuum = off\n", workload(names, odd, found))
    span = f"-p pg_wal -s {found['start']} -e {found['end']}"
    commands = {"records": f"pg_waldump {span}", "blocks": f"pg_waldump -b {span}"}
    return shell_cases(SOURCE, commands, _asks(found["filenodes"]), cwd=work / "pg" / "pgdata",
                       env={"PATH": f"{BIN}:/usr/bin:/bin", "LC_ALL": "C"})
