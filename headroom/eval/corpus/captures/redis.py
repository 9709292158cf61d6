"""redis-server (Debian's redis 7) on loopback with ``loglevel verbose``, driven by
redis-benchmark and redis-cli: client churn, CONFIG SET, BGSAVE, a replica that syncs,
CLIENT KILL, a failing command, and a shutdown. Both servers' log files are captured."""

from __future__ import annotations

import re
import subprocess
import time
from pathlib import Path
from typing import Any

from ..cases import LogLine, log_cases
from ._run import free_port, run, wait_for

SOURCE = "redis_server"
# "<pid>:<role> <day> <Mon> <year> <hh:mm:ss.mmm> <level char> <message>"
_LINE = re.compile(r"^(\d+:[A-Z]) (\d{1,2} [A-Z][a-z]{2} \d{4} \d{2}:\d{2}:\d{2}\.\d{3}) ([.\-*#]) (.*)$")
_LEVELS = {".": "debug", "-": "verbose", "*": "notice", "#": "warning"}


def parse(text: str) -> list[LogLine]:
    out = []
    for raw in text.splitlines():
        m = _LINE.match(raw)
        if m:  # the ASCII-art banner lines carry no prefix; they are not events
            out.append(LogLine(raw, m.group(2), _LEVELS[m.group(3)], m.group(1), m.group(4)))
    return out


def _server(work: Path, name: str, port: int, *extra: str) -> subprocess.Popen:
    log = work / f"{name}.log"
    proc = subprocess.Popen(["redis-server", "--port", str(port), "--bind", "127.0.0.1", "--loglevel", "verbose",
                             "--logfile", str(log), "--dir", str(work), "--dbfilename", f"{name}.rdb", "--save", "",
                             "--enable-debug-command", "yes", *extra])
    wait_for(lambda: run(["redis-cli", "-p", str(port), "PING"], check=False).stdout.strip() == "PONG")
    return proc


def _capture(work: Path, bench_rounds: int) -> tuple[str, str]:
    work.mkdir(exist_ok=True)
    port, rport = free_port(), free_port()
    master = _server(work, "master", port)
    cli = ["redis-cli", "-p", str(port)]
    try:
        for k in range(bench_rounds):
            run(["redis-benchmark", "-p", str(port), "-c", "25", "-n", "500", "-q", "-t", "set,get,incr,lpush"])
            if k == bench_rounds // 4:
                run([*cli, "CONFIG", "SET", "maxmemory", "64mb"])
                run([*cli, "BGSAVE"])
            if k == bench_rounds // 3:
                replica = _server(work, "replica", rport, "--replicaof", "127.0.0.1", str(port))
                wait_for(lambda: "master_link_status:up" in run(["redis-cli", "-p", str(rport), "INFO", "replication"]).stdout)
            if k == bench_rounds // 2:
                run([*cli, "DEBUG", "SLEEP", "0.2"])
                run([*cli, "CLIENT", "KILL", "TYPE", "replica"], check=False)
            if k == 2 * bench_rounds // 3:
                run([*cli, "CONFIG", "SET", "no-such-option", "1"], check=False)
                run([*cli, "DEBUG", "JMAP"], check=False)
            time.sleep(0.3)  # lets serverCron write its periodic verbose lines between bursts
        run(["redis-cli", "-p", str(rport), "SHUTDOWN", "NOSAVE"], check=False)
        run([*cli, "SHUTDOWN", "SAVE"], check=False)
    finally:
        for p in (master, locals().get("replica")):
            if p is not None:
                try:
                    p.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    p.kill()
    return (work / "master.log").read_text(), (work / "replica.log").read_text()


def build(work: Path) -> list[dict[str, Any]]:
    master, replica = _capture(work, bench_rounds=12)
    common = {"what": "redis server log", "error_levels": set(), "warning_levels": {"warning"}}
    out = log_cases(SOURCE, "master", parse(master), tool_name="bash",
                    text_args={"command": "cat /var/log/redis/redis-server.log"}, json_tool="http_get",
                    json_args={"url": "http://logs.internal/api/v1/redis/master/lines?format=json"},
                    intents=("one_off", "errors", "last"), json_intents=("one_off", "last"), **common)
    # A long run (about 10,000 lines): the same events drowned in more client churn.
    long_master, _ = _capture(work / "long", bench_rounds=48)
    out += log_cases(SOURCE, "long", parse(long_master), tool_name="bash",
                     text_args={"command": "cat /var/log/redis/redis-server.log.1"}, json_tool="http_get",
                     json_args={"url": "http://logs.internal/api/v1/redis/master/lines?day=-1&format=json"},
                     intents=("one_off",), json_intents=("one_off",), **common)
    out += log_cases(SOURCE, "replica", parse(replica), tool_name="read_file",
                     text_args={"path": "/var/log/redis/redis-replica.log"}, json_tool="http_get",
                     json_args={"url": "http://logs.internal/api/v1/redis/replica/lines?format=json"},
                     intents=("one_off",), json_intents=(), **common)
    return out
