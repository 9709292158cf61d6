"""A process supervisor's view of the programs it runs, through supervisor 4.2's
``supervisorctl``: ``status`` (one line a program: name, state, then ``pid N, uptime H:MM:SS``
for a running one, the reason for a failed one, the exit time for an exited one; ~90 lines, ~6 kB) and
``avail`` (one line a configured program: name, ``in use``, ``auto`` or ``manual`` start, its
priority as ``N:N``; ~90 lines, ~5.5 kB), of a supervisord the capture starts with 88 programs: most
run (each a ``sleep`` of a length of its own), one fails to start (FATAL after its retries), one
exits by itself, one is configured not to start. supervisor runs from a throwaway venv (PyPI at
build time); its socket, logs and configuration sit in the capture's work folder.

Facts come from the capture's own record of the programs it configured (name, priority, start
mode, what the command does) and, for process ids, from ``psutil`` over supervisord's children
(each matched to its program by its sleep length), never from supervisorctl's text; a fact is
kept only where it stands once. Every program has a name and a priority of its own. Held out
(issue 33, twenty-fifth round): dev holds process tables, limits and status files, but no
supervisor's per-program state.
"""

from __future__ import annotations

import random
import time
from pathlib import Path
from typing import Any

import psutil

from ._asked import Ask, shell_cases
from ._run import pinned_tool, run

SOURCE = "supervisor_status"
RELEASE = "supervisor==4.2.5"
ENV = {"PATH": "/usr/bin:/bin", "LC_ALL": "C.UTF-8"}
ROLES = ("ingest", "billing", "mailer", "thumbnailer", "indexer", "notifier", "scheduler", "exporter", "webhook",
         "cache-warmer", "reaper", "uploader", "geocoder", "auditor", "metrics", "sitemap", "crawler", "resizer",
         "ledger", "invoicer")
SUFFIXES = ("eu", "us", "apac", "primary", "backup")
BASE = 90_000  # each running program sleeps BASE + its number of seconds


def plan(rnd: random.Random) -> dict[str, Any]:
    """The capture's record: programs in order with priority and role (run, fatal, exits, manual)."""
    names = rnd.sample([f"{r}-{s}" for r in ROLES for s in SUFFIXES], 88)
    priorities = rnd.sample(range(100, 990), len(names))
    odd = rnd.sample(names, 3)
    roles = dict.fromkeys(names, "run")
    roles[odd[0]], roles[odd[1]], roles[odd[2]] = "fatal", "exits", "manual"
    return {"names": names, "priority": dict(zip(names, priorities, strict=True)), "role": roles}


def config(p: dict[str, Any], work: Path) -> str:
    head = [
        "[unix_http_server]", f"file={work}/supervisor.sock",
        "[supervisord]", f"logfile={work}/supervisord.log", f"pidfile={work}/supervisord.pid",
        f"childlogdir={work}", "[rpcinterface:supervisor]",
        "supervisor.rpcinterface_factory = supervisor.rpcinterface:make_main_rpcinterface",
        "[supervisorctl]", f"serverurl=unix://{work}/supervisor.sock",
    ]
    body = []
    for n, name in enumerate(p["names"]):
        role = p["role"][name]
        command = {"fatal": "false", "exits": 'bash -c "sleep 2; exit 0"'}.get(role, f"sleep {BASE + n}")
        body += [f"[program:{name}]", f"command={command}", f"priority={p['priority'][name]}"]
        body += {"fatal": ["startretries=1"], "exits": ["startsecs=1", "autorestart=false"],
                 "manual": ["autostart=false"]}.get(role, [])
    return "\n".join(head + body) + "\n"


def running_pids(supervisord_pid: int, p: dict[str, Any]) -> dict[str, int]:
    """Program name -> pid, by psutil over supervisord's children (their sleep lengths)."""
    by_length = {BASE + n: name for n, name in enumerate(p["names"])}
    out = {}
    for child in psutil.Process(supervisord_pid).children():
        cmd = child.cmdline()
        if len(cmd) == 2 and cmd[0] == "sleep" and int(cmd[1]) in by_length:
            out[by_length[int(cmd[1])]] = child.pid
    return out


def _asks(p: dict[str, Any], pids: dict[str, int], rnd: random.Random) -> list[Ask]:
    note = "the capture's record of the programs it configured; pids by psutil over supervisord's children"
    odd = {role: name for name, role in p["role"].items() if role != "run"}
    asks = [
        Ask("fatal", "named", "named_item", (odd["fatal"],), note,
            ("Which program failed to start?", "What program is in the FATAL state?"), only=("status",)),
        Ask("exited", "named", "named_item", (odd["exits"],), note,
            ("Which program has exited?", "What program ran and then stopped by itself?"), only=("status",)),
        Ask("manual", "named", "named_item", (odd["manual"],), note,
            ("Which program is not started automatically?", "What program is set to start by hand only?")),
    ]
    for name in rnd.sample(sorted(pids), 9):
        asks.append(Ask(f"pid_{name}", "named", "named_item", (str(pids[name]),), note,
                        (f"What is the process id of {name}?", f"Which pid does {name} run as?"), only=("status",)))
    for name in rnd.sample(sorted(p["names"]), 7):
        prio = p["priority"][name]
        asks.append(Ask(f"priority_{name}", "named", "named_item", (f"{prio}:{prio}",), note,
                        (f"What priority is {name} configured with?", f"At which priority does {name} start?"),
                        only=("avail",)))
    return asks


def build(work: Path) -> list[dict[str, Any]]:
    rnd = random.Random(2505)
    p = plan(rnd)
    daemon = pinned_tool(work, RELEASE, "supervisord")
    conf = work / "supervisord.conf"
    conf.write_text(config(p, work))
    env = {**ENV, "PATH": f"{daemon.parent}:/usr/bin:/bin"}
    run([str(daemon), "-c", str(conf)], cwd=work, env=env)
    daemon_pid = int((work / "supervisord.pid").read_text())
    try:
        time.sleep(8)  # past every program's startsecs, the failing one's retries and the exiting one's run
        pids = running_pids(daemon_pid, p)
        assert set(pids) == {n for n, r in p["role"].items() if r == "run"}, len(pids)
        commands = {"status": f"supervisorctl -c {conf.name} status; true", "avail": f"supervisorctl -c {conf.name} avail"}
        cases = shell_cases(SOURCE, commands, _asks(p, pids, rnd), cwd=work, env=env, least=12)
    finally:
        run([str(daemon.parent / "supervisorctl"), "-c", str(conf), "shutdown"], cwd=work, env=env, check=False)
        # wait for it to stop its programs and go, before the work folder is removed under it
        try:
            proc = psutil.Process(daemon_pid)
            try:
                proc.wait(timeout=30)
            except psutil.TimeoutExpired:  # a daemon that would not stop: end its programs, then it
                for child in proc.children():
                    child.kill()
                proc.kill()
                proc.wait(timeout=10)
        except psutil.NoSuchProcess:
            pass
    return cases
