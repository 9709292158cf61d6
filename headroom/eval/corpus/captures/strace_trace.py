"""``strace -f -tt`` of a small real Python program that reads a config file, probes one
that is missing, runs a child process and connects to a loopback port nobody listens on:
the trace an agent gets when it asks why a program fails. Text as strace wrote it, and the
same calls as JSON rows."""

from __future__ import annotations

import re
import shutil
import sys
from pathlib import Path
from typing import Any

from ..cases import LogLine, log_cases
from ._run import free_port, run

SOURCE = "strace_trace"
# "<pid> HH:MM:SS.micro <call>(<args>) = <result>" (also "<... resumed>" and "+++ exited")
_LINE = re.compile(r"^(\d+) +(\d\d:\d\d:\d\d\.\d+) (.*)$")
_FAILED = re.compile(r"= -1 (E[A-Z]+)")
# A missing file is how the dynamic loader and Python's import system look for things:
# hundreds of routine probes. Every other failed call is an error of the program.
_ROUTINE = {"ENOENT"}

PROGRAM = """
import json, os, socket, subprocess, sys
cfg = json.load(open(sys.argv[1]))
os.path.exists("/etc/app/override.toml")
subprocess.run(["ls", "-d", "/tmp"], check=True, stdout=subprocess.DEVNULL)
s = socket.socket()
code = s.connect_ex(("127.0.0.1", int(sys.argv[2])))
print("connect", code, cfg["name"])
"""


def build(work: Path) -> list[dict[str, Any]]:
    if shutil.which("strace") is None:
        raise SystemExit("strace_trace needs strace (apt install strace)")
    (work / "app.json").write_text('{"name": "billing-sync"}')
    (work / "app.py").write_text(PROGRAM)
    trace = work / "trace.txt"
    run(["strace", "-f", "-tt", "-e", "trace=%file,%process,%network", "-o", str(trace),
         sys.executable, "-S", str(work / "app.py"), str(work / "app.json"), str(free_port())], cwd=work)
    lines = []
    for raw in trace.read_text().splitlines():
        m = _LINE.match(raw)
        if not m:
            continue
        failed = _FAILED.search(m.group(3))
        level = "ERROR" if failed and failed.group(1) not in _ROUTINE else "INFO"
        call = m.group(3).split("(", 1)[0].strip("<. ")
        lines.append(LogLine(raw, m.group(2), level, f"pid {m.group(1)} {call}", m.group(3)))
    return log_cases(SOURCE, "python_app", lines, what="strace output", tool_name="bash",
                     text_args={"command": "strace -f -tt -e trace=%file,%process,%network python app.py app.json"},
                     json_tool="http_get", json_args={"url": "http://tracer.internal/api/traces/app-7/calls"},
                     error_levels={"ERROR"}, warning_levels=set())
