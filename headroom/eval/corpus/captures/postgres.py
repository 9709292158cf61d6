"""PostgreSQL 15 (Debian) in a fresh cluster on a Unix socket, with connection, checkpoint,
lock-wait and slow-statement logging, driven by pgbench (a connection per transaction)
and psql: failing statements, a real deadlock between two sessions, slow queries, a
manual checkpoint, and a fast shutdown."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

from ..cases import LogLine, fact, log_cases, make_case
from ..facts import json_safe
from ..questions import choose
from ._run import free_port, run

SOURCE = "postgres_server"
BIN = Path("/usr/lib/postgresql/15/bin")
_LINE = re.compile(r"^(\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{3} \w+) \[(\d+)\] (?:(\S+@\S+) )?"
                   r"(LOG|ERROR|FATAL|PANIC|WARNING|DETAIL|HINT|STATEMENT|CONTEXT|NOTICE):  (.*)$")
_DURATION = re.compile(r"duration: ([\d.]+) ms  statement: (.*)$")
CONF = """
log_line_prefix = '%m [%p] %q%u@%d '
log_connections = on
log_disconnections = on
log_checkpoints = on
log_lock_waits = on
deadlock_timeout = '200ms'
log_min_duration_statement = 40
log_autovacuum_min_duration = 0
log_temp_files = 0
work_mem = '64kB'
"""


def parse(text: str) -> list[LogLine]:
    out = []
    for raw in text.splitlines():
        m = _LINE.match(raw)
        if m:  # continuation lines of a multi-line statement carry no prefix
            out.append(LogLine(raw, m.group(1), m.group(4), m.group(3) or f"[{m.group(2)}]", m.group(5)))
    return out


def _as_postgres(cmd: list[str], **kw) -> subprocess.CompletedProcess:
    return run(["runuser", "-u", "postgres", "--", *cmd], **kw)


def _capture(work: Path) -> str:
    if shutil.which("runuser") is None or not BIN.exists():
        raise RuntimeError("needs Debian's postgresql-15 and runuser")
    os.chmod(work, 0o755)
    data, log, sock = work / "pgdata", work / "postgres.log", work / "sock"
    for d in (data, sock):
        d.mkdir()
        shutil.chown(d, "postgres")
    log.touch()
    shutil.chown(log, "postgres")
    _as_postgres([str(BIN / "initdb"), "-D", str(data), "-A", "trust", "-U", "postgres"])
    with open(data / "postgresql.conf", "a") as fh:
        fh.write(CONF + f"unix_socket_directories = '{sock}'\nport = {free_port()}\nlisten_addresses = ''\n")
    port = re.search(r"port = (\d+)", (data / "postgresql.conf").read_text().split(CONF)[-1]).group(1)
    _as_postgres([str(BIN / "pg_ctl"), "-D", str(data), "-l", str(log), "-w", "start"])
    conn = ["-h", str(sock), "-p", port, "-U", "postgres"]

    def psql(sql: str, check: bool = False, **kw):
        return _as_postgres([str(BIN / "psql"), *conn, "-d", "bench", "-v", "ON_ERROR_STOP=0", "-c", sql],
                            check=check, **kw)

    try:
        _as_postgres([str(BIN / "createdb"), *conn, "bench"])
        _as_postgres([str(BIN / "pgbench"), *conn, "-i", "-s", "1", "bench"])
        _as_postgres([str(BIN / "pgbench"), *conn, "-c", "4", "-j", "2", "-t", "120", "-C", "bench"])
        psql("SELECT * FROM accounts_archive LIMIT 1")
        psql("SELECT abalance / (bid - bid) FROM pgbench_accounts LIMIT 1")
        psql("INSERT INTO pgbench_branches (bid, bbalance) VALUES (1, 0)")
        psql("SELECT count(*) FROM generate_series(1, 2000000)")
        psql("SELECT aid FROM pgbench_accounts ORDER BY abalance DESC, filler LIMIT 5")
        psql("SELECT pg_sleep(0.35)")
        # A real deadlock: two sessions take the same two rows in opposite order.
        a = ("BEGIN; UPDATE pgbench_accounts SET abalance = abalance + 1 WHERE aid = 1; SELECT pg_sleep(0.5); "
             "UPDATE pgbench_accounts SET abalance = abalance + 1 WHERE aid = 2; COMMIT;")
        b = ("BEGIN; UPDATE pgbench_accounts SET abalance = abalance - 1 WHERE aid = 2; SELECT pg_sleep(0.5); "
             "UPDATE pgbench_accounts SET abalance = abalance - 1 WHERE aid = 1; COMMIT;")
        pa = subprocess.Popen(["runuser", "-u", "postgres", "--", str(BIN / "psql"), *conn, "-d", "bench", "-c", a],
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        psql(b)
        pa.wait(timeout=30)
        psql("VACUUM ANALYZE pgbench_accounts")
        psql("CHECKPOINT")
        _as_postgres([str(BIN / "pgbench"), *conn, "-c", "2", "-j", "1", "-t", "60", "-C", "bench"])
        psql("DROP TABLE pgbench_history_missing")
    finally:
        _as_postgres([str(BIN / "pg_ctl"), "-D", str(data), "-m", "fast", "-w", "stop"], check=False)
    return log.read_text()


def build(work: Path) -> list[dict[str, Any]]:
    lines = parse(_capture(work))
    out = log_cases(SOURCE, "server", lines, what="postgres server log", tool_name="bash",
                    text_args={"command": "tail -n 5000 /var/log/postgresql/postgresql-15-main.log"},
                    json_tool="http_get", json_args={"url": "http://logs.internal/api/v1/postgres/main?format=json"},
                    error_levels={"ERROR", "FATAL", "PANIC"}, warning_levels={"WARNING"},
                    intents=("one_off", "errors", "last"), json_intents=("one_off", "errors"))
    out += _slowest_cases(lines)
    return out


def _slowest_cases(lines: list[LogLine]) -> list[dict[str, Any]]:
    """The slowest logged statement (an extreme): asked by duration, answered by its SQL."""
    timed = [(float(m.group(1)), m.group(2)) for ln in lines if (m := _DURATION.match(ln.message))]
    if not timed:
        return []
    ms, sql = max(timed)
    text = json_safe(sql)
    content = "".join(f"{ln.raw}\n" for ln in lines)
    if not text or content.count(text) < 1:
        return []
    q = choose(f"{SOURCE}/server_text_slowest", (
        "Which SQL statement took the longest to run according to the postgres log, and how long did it take?",
        "Find the slowest query in this postgres log and tell me how many milliseconds it ran."))
    facts = [fact(text, "extreme", f"statement with the largest 'duration:' ({ms} ms)"),
             fact(f"{ms:.3f}" if f"{ms:.3f}" in content else str(ms), "extreme", "its duration in ms")]
    facts = [f for f in facts if f["text"] in content]
    return [make_case(SOURCE, "server_text_slowest", "text", "bash",
                      {"command": "grep -n '' /var/log/postgresql/postgresql-15-main.log"}, "extreme", q, content,
                      facts)]
