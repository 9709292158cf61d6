"""PostgreSQL 15 (Debian) runs in many modes, and facts from what the server itself writes.

Several corpus sources come from these runs, each in another shape an agent meets: JSON
records of PostgreSQL's own structured logger (``log_destination = jsonlog``), size-rotated
files concatenated with their file names in front, a dash-and-epoch line prefix, a
backend-type (category) prefix. The facts never come from a template rule: an *event type*
is the catalogue entry (the English format string in Debian's ``postgres-15.mo``) a
message is an instance of, a *one-off* is an event type the run wrote once, and errors and
warnings are what the server marked ``ERROR``/``FATAL``/``PANIC``/``WARNING`` in its own
severity field.

Basis ``program-field`` (issue 33's audit): these definitions do not use a template rule,
yet every one-off they give coincides with a key the log compressor sees once, and the
severity/component fields are ones ``log_records`` reads by name; so they are not counted
as ``independent`` (a signal the compressor never sees) but on their own line.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from ..cases import fact, make_case
from ..facts import json_safe, spread
from ..questions import pick
from . import _catalogue
from ._run import free_port, run
from .postgres import CONF as SERVER_CONF

BIN = Path("/usr/lib/postgresql/15/bin")
CATALOGUE = "/usr/share/locale/de/LC_MESSAGES/postgres-15.mo"
EVENT_LEVELS = ("LOG", "ERROR", "FATAL", "PANIC", "WARNING", "NOTICE", "INFO", "DEBUG", "DEBUG1", "DEBUG2")
ERROR_LEVELS, WARNING_LEVELS = {"ERROR", "FATAL", "PANIC"}, {"WARNING"}
_SEVERITY = re.compile(r"\b(" + "|".join(EVENT_LEVELS) + r"|DETAIL|HINT|STATEMENT|CONTEXT|LOCATION):  ")

# postgres_server's logging settings (connections, checkpoints, lock waits, slow
# statements, temp files), without its line prefix, which each run sets.
BASE_CONF = "".join(f"{ln}\n" for ln in SERVER_CONF.splitlines() if not ln.startswith("log_line_prefix")) + """
logging_collector = on
log_rotation_age = 0
max_connections = 12
autovacuum_naptime = 1
"""


@dataclass(frozen=True)
class Event:
    severity: str
    message: str


def _as_postgres(cmd: list[str], **kw) -> subprocess.CompletedProcess:
    return run(["runuser", "-u", "postgres", "--", *cmd], **kw)


def query(conn: list[str], db: str, text: str) -> str:
    """``text`` (SQL) run by psql on ``db`` as postgres, stopping at the first error: its
    rows unaligned, tuples only (``a|b`` a line), stripped."""
    cmd = [str(BIN / "psql"), *conn, "-U", "postgres", "-d", db, "-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1"]
    return _as_postgres(cmd, input=text).stdout.strip()


def capture(work: Path, conf: str, workload: Callable[[Callable[..., Any], list[str]], None]) -> Path:
    """A fresh cluster with ``BASE_CONF`` + ``conf``, ``workload(psql, conn)`` against it, a
    fast shutdown; the server's log directory."""
    if shutil.which("runuser") is None or not BIN.exists():
        raise RuntimeError("needs Debian's postgresql-15 and runuser")
    work.mkdir(parents=True, exist_ok=True)
    for d in (work.parent, work):  # the postgres user walks down to its data directory
        os.chmod(d, 0o755)
    data, logs, sock = work / "pgdata", work / "log", work / "sock"
    for d in (data, logs, sock):
        d.mkdir()
        shutil.chown(d, "postgres")
    startup = work / "startup.log"
    startup.touch()
    shutil.chown(startup, "postgres")
    _as_postgres([str(BIN / "initdb"), "-D", str(data), "-A", "trust", "-U", "postgres"])
    port = free_port()
    with open(data / "postgresql.conf", "a") as fh:
        fh.write(BASE_CONF + conf + f"log_directory = '{logs}'\nunix_socket_directories = '{sock}'\n"
                 f"port = {port}\nlisten_addresses = ''\n")
    _as_postgres([str(BIN / "pg_ctl"), "-D", str(data), "-l", str(startup), "-w", "start"])
    conn = ["-h", str(sock), "-p", str(port)]

    def psql(sql: str, db: str = "bench", user: str = "postgres", **kw):
        return _as_postgres([str(BIN / "psql"), *conn, "-U", user, "-d", db, "-v", "ON_ERROR_STOP=0", "-c", sql],
                            check=False, **kw)

    try:
        workload(psql, conn)
    finally:
        _as_postgres([str(BIN / "pg_ctl"), "-D", str(data), "-m", "fast", "-w", "stop"], check=False)
    return logs


def sessions_workload(psql: Callable[..., Any], conn: list[str]) -> None:
    """Connections, a pgbench run, failing statements of many kinds, a deadlock, timeouts,
    a killed session, a role without rights, too many clients, a reload, a checkpoint."""
    pg = ["runuser", "-u", "postgres", "--"]
    run([*pg, str(BIN / "createdb"), *conn, "-U", "postgres", "bench"])
    run([*pg, str(BIN / "pgbench"), *conn, "-U", "postgres", "-i", "-s", "1", "bench"])
    run([*pg, str(BIN / "pgbench"), *conn, "-U", "postgres", "-c", "4", "-j", "2", "-t", "80", "-C", "bench"])
    for sql in (
        "SELECT * FROM accounts_archive LIMIT 1",
        "SELECT abalance / (bid - bid) FROM pgbench_accounts LIMIT 1",
        "INSERT INTO pgbench_branches (bid, bbalance) VALUES (1, 0)",
        "SELEC 1",
        "SELECT 'x'::int",
        "SELECT nosuchcolumn FROM pgbench_tellers",
        "CREATE TABLE t_check (v int CHECK (v > 0)); INSERT INTO t_check VALUES (-1)",
        "CREATE TABLE t_nn (v int NOT NULL); INSERT INTO t_nn VALUES (NULL)",
        "CREATE TABLE t_fk (bid int REFERENCES pgbench_branches(bid)); INSERT INTO t_fk VALUES (999)",
        "PREPARE TRANSACTION 'x'",
        "SET statement_timeout = '150ms'; SELECT pg_sleep(1)",
        "SELECT count(*) FROM generate_series(1, 2000000)",
        "SELECT aid FROM pgbench_accounts ORDER BY abalance DESC, filler LIMIT 5",
        "CREATE INDEX ON pgbench_accounts (abalance)",
        "CREATE ROLE reader LOGIN",
        "ALTER SYSTEM SET log_min_duration_statement = 30",
        "SELECT pg_reload_conf()",
        "VACUUM ANALYZE pgbench_accounts",
        "CHECKPOINT",
        "SELECT pg_switch_wal()",
    ):
        psql(sql)
    psql("SELECT * FROM pgbench_accounts LIMIT 1", user="reader")
    psql("DROP TABLE pgbench_history", user="reader")
    psql("SELECT 1", user="nosuchrole")
    psql("SELECT 1", db="nosuchdb")
    psql("SET idle_in_transaction_session_timeout = '200ms'; BEGIN; SELECT 1; SELECT pg_sleep(0.5); SELECT 2")
    # A real deadlock: two sessions take the same two rows in opposite order.
    a = ("BEGIN; UPDATE pgbench_accounts SET abalance = abalance + 1 WHERE aid = 1; SELECT pg_sleep(0.5); "
         "UPDATE pgbench_accounts SET abalance = abalance + 1 WHERE aid = 2; COMMIT;")
    b = ("BEGIN; UPDATE pgbench_accounts SET abalance = abalance - 1 WHERE aid = 2; SELECT pg_sleep(0.5); "
         "UPDATE pgbench_accounts SET abalance = abalance - 1 WHERE aid = 1; COMMIT;")
    pa = subprocess.Popen([*pg, str(BIN / "psql"), *conn, "-U", "postgres", "-d", "bench", "-c", a],
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    psql(b)
    pa.wait(timeout=30)
    # A session killed by another.
    sleeper = subprocess.Popen([*pg, str(BIN / "psql"), *conn, "-U", "postgres", "-d", "bench", "-c",
                                "SELECT pg_sleep(5)"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    psql("SELECT pg_sleep(0.5); SELECT pg_terminate_backend(pid) FROM pg_stat_activity "
         "WHERE query LIKE 'SELECT pg_sleep(5)%' AND pid <> pg_backend_pid()")
    sleeper.wait(timeout=30)
    # More clients than max_connections allows (12, 3 reserved for superusers).
    run([*pg, str(BIN / "pgbench"), *conn, "-U", "reader", "-c", "14", "-j", "2", "-t", "5", "-S", "bench"],
        check=False)
    run([*pg, str(BIN / "pgbench"), *conn, "-U", "postgres", "-c", "2", "-j", "1", "-t", "40", "-C", "bench"])


def modes_workload(psql: Callable[..., Any], conn: list[str]) -> None:
    """The sessions workload plus what the server logs at debug levels: DDL of many kinds,
    vacuum and analyze of several tables, replication slots, a tablespace-less database
    copy, two-phase commit enabled, sequence wraparound, a checkpoint and a reload."""
    sessions_workload(psql, conn)
    for sql in (
        "CREATE TABLE items (id serial PRIMARY KEY, name text UNIQUE, price numeric, tags text[])",
        ("INSERT INTO items (name, price, tags) SELECT 'item' || g, g * 1.5, ARRAY['a', 'b'] "
         "FROM generate_series(1, 20000) g"),
        "CREATE INDEX items_tags ON items USING gin (tags)",
        "CLUSTER items USING items_pkey",
        "REINDEX TABLE items",
        "VACUUM (VERBOSE, ANALYZE) items",
        "ANALYZE VERBOSE pgbench_tellers",
        "CREATE MATERIALIZED VIEW item_prices AS SELECT name, price FROM items; REFRESH MATERIALIZED VIEW item_prices",
        "SELECT pg_create_physical_replication_slot('standby_slot')",
        "SELECT pg_drop_replication_slot('standby_slot')",
        "CREATE SEQUENCE small_seq MAXVALUE 2; SELECT nextval('small_seq'), nextval('small_seq'), nextval('small_seq')",
        "CREATE DATABASE bench_copy TEMPLATE bench",
        "DROP DATABASE bench_copy",
        "ALTER TABLE items ADD COLUMN stock int DEFAULT 0",
        "ALTER TABLE items ALTER COLUMN price TYPE float8",
        "TRUNCATE item_prices",
        "DROP MATERIALIZED VIEW item_prices",
        "LOCK TABLE items IN ACCESS EXCLUSIVE MODE",
        "SELECT pg_stat_reset()",
        "CHECKPOINT",
    ):
        psql(sql)


def read_stderr_logs(logs: Path) -> list[tuple[str, str]]:
    """(file name, line) of every stderr log file, in rotation order."""
    out = []
    for p in sorted(logs.iterdir()):
        if p.suffix != ".json" and p.is_file():
            out += [(p.name, ln) for ln in p.read_text(errors="replace").splitlines()]
    return out


def read_json_logs(logs: Path) -> list[dict[str, Any]]:
    """Every record PostgreSQL's jsonlog wrote (one JSON object a line), in rotation order."""
    out = []
    for p in sorted(logs.glob("*.json")):
        out += [json.loads(ln) for ln in p.read_text().splitlines() if ln.strip()]
    return out


def events_of_lines(lines: Sequence[str]) -> list[Event]:
    """The events of stderr lines: the text after a severity word the server wrote."""
    out = []
    for ln in lines:
        m = _SEVERITY.search(ln)
        if m and m.group(1) in EVENT_LEVELS:
            out.append(Event(m.group(1).rstrip("0123456789") if m.group(1).startswith("DEBUG") else m.group(1),
                             ln[m.end():]))
    return out


def events_of_records(records: Sequence[dict[str, Any]]) -> list[Event]:
    return [Event(str(r.get("error_severity", "")), str(r.get("message", ""))) for r in records]


def facts_for(events: Sequence[Event], contents: Sequence[str], basis_note: str) -> dict[str, list[dict[str, str]]]:
    """one_off and errors facts, defined by the catalogue and the server's severity field."""
    match = _catalogue.Matcher(_catalogue.load(CATALOGUE))
    counts = _catalogue.event_counts((e.message for e in events), match)
    one_offs = []
    for e in events:
        entry = match(e.message)
        if entry is None or counts[entry.msgid] != 1:
            continue
        text = json_safe(e.message)
        if text and all(c.count(text) == 1 for c in contents) and text not in one_offs:
            one_offs.append(text)
    problems: list[dict[str, str]] = []
    seen: set[str] = set()
    for e in events:
        kind = "error" if e.severity in ERROR_LEVELS else "warning" if e.severity in WARNING_LEVELS else None
        if kind is None:
            continue
        entry = match(e.message)
        key = entry.msgid if entry is not None else e.message
        if key in seen:
            continue
        seen.add(key)
        repeated = entry is not None and counts[entry.msgid] > 1
        text = json_safe(_catalogue.literal_stretch(entry.msgid) if repeated else e.message)
        if text and all(text in c for c in contents) and all(f["text"] != text for f in problems):
            problems.append(fact(text, kind, f"{e.severity} in the server's severity field; one per catalogue "
                                 "entry" + (" (its literal text: the entry repeats)" if repeated else ""),
                                 basis="program-field"))
    return {
        "one_off": [fact(t, "one_off", f"the only message of its catalogue entry ({basis_note})",
                         basis="program-field")
                    for t in spread(one_offs, 30)],
        "errors": problems[:40],
    }


def cases(source: str, name: str, form: str, content: str, facts: dict[str, list[dict[str, str]]], *,
          what: str, tool_name: str, tool_args: dict[str, Any]) -> list[dict[str, Any]]:
    out = []
    for intent, fs in facts.items():
        if fs:
            scen = f"{name}_{intent}"
            out.append(make_case(source, scen, form, tool_name, tool_args, intent, pick(intent, f"{source}/{scen}", what),
                                 content, fs))
    return out


_RUNS: dict[str, tuple[list[tuple[str, str]], list[dict[str, Any]]]] = {}
RUN_CONFS = {
    # JSON records and size-rotated stderr files named the way logrotate names them.
    "sessions": (("log_destination = 'stderr,jsonlog'\nlog_filename = 'postgresql.log.%Y-%m-%d_%H:%M:%S'\n"
                  "log_rotation_size = '48kB'\nlog_line_prefix = '%m [%p] %q%u@%d '\n"), sessions_workload),
    # Debug levels and a line prefix that starts with a dash and a Unix time, the session
    # id, virtual transaction id and application name before the wall-clock time.
    "modes": (("log_destination = 'stderr,jsonlog'\nlog_filename = 'postgresql-%Y%m%d.log'\n"
               "log_rotation_size = 0\nlog_min_messages = debug1\n"
               "log_line_prefix = '- %n %c %v %a %q%u@%d [%p] %m '\n"), modes_workload),
    # The backend type (a category: client backend, checkpointer, autovacuum worker …) first.
    "category": (("log_destination = 'stderr'\nlog_filename = 'postgresql-%Y%m%d.log'\nlog_rotation_size = 0\n"
                  "log_line_prefix = '%b %n [%p] '\n"), sessions_workload),
}


def run_logs(name: str, work: Path) -> tuple[list[tuple[str, str]], list[dict[str, Any]]]:
    """(stderr lines with their file names, jsonlog records) of one run, run once per build."""
    if name not in _RUNS:
        conf, workload = RUN_CONFS[name]
        logs = capture(work / name, conf, workload)
        _RUNS[name] = (read_stderr_logs(logs), read_json_logs(logs))
    return _RUNS[name]


def json_source(source: str, run_name: str, name: str, work: Path, *, what: str, tool_name: str,
                tool_args: dict[str, Any]) -> list[dict[str, Any]]:
    """Cases over a run's jsonlog records, as one JSON array."""
    _, records = run_logs(run_name, work)
    content = json.dumps(records)
    facts = facts_for(events_of_records(records), [content], "jsonlog message field")
    return cases(source, name, "json", content, facts, what=what, tool_name=tool_name, tool_args=tool_args)


def text_source(source: str, run_name: str, name: str, work: Path, *, what: str, command: str,
                file_names: bool = False) -> list[dict[str, Any]]:
    """Cases over a run's stderr lines, each led by its file's name when ``file_names``."""
    lines, _ = run_logs(run_name, work)
    content = "".join(f"{fname} {line}\n" if file_names else f"{line}\n" for fname, line in lines)
    facts = facts_for(events_of_lines([ln for _, ln in lines]), [content], "stderr line")
    return cases(source, name, "text", content, facts, what=what, tool_name="bash", tool_args={"command": command})
