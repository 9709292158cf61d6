"""The deploy/ set (redis + proxies + nginx) run as plain loopback processes, no containers.

deploy/ stays the single source: each replica runs the Dockerfile's CMD and nginx runs
deploy/nginx.conf, with only what a loopback run must change substituted (addresses,
ports, file locations). Each substitution asserts that it matched, so a change to the
deploy files that this rendering no longer understands fails here instead of silently
testing something else.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any, Self

import httpx

ROOT = Path(__file__).resolve().parents[2]
DEPLOY = ROOT / "deploy"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


# ----------------------------------------------------------------------------- replicas


def dockerfile_command() -> list[str]:
    """The replica command line of deploy/Dockerfile (its exec-form CMD)."""
    text = (DEPLOY / "Dockerfile").read_text()
    found = re.search(r"^CMD (\[.*?\])", text, re.DOTALL | re.MULTILINE)
    assert found, "deploy/Dockerfile has no exec-form CMD"
    return json.loads(found.group(1).replace("\\\n", ""))


def _set_flag(argv: list[str], flag: str, value: str) -> list[str]:
    assert flag in argv, f"deploy/Dockerfile's CMD lost {flag}; update tests/deploy/cluster.py"
    i = argv.index(flag)
    return [*argv[: i + 1], value, *argv[i + 2 :]]


def replica_argv(*, port: int, redis_url: str, metrics_db: str, upstream: str, workers: int) -> list[str]:
    """The Dockerfile's CMD for one loopback replica: loopback address and a free port, the
    test's redis, a metrics file of its own, the fake provider; every other flag as deployed."""
    argv = dockerfile_command()
    assert argv[:2] == ["headroom", "proxy"]
    for flag, value in (("--host", "127.0.0.1"), ("--port", str(port)), ("--redis-url", redis_url),
                        ("--metrics-db", metrics_db), ("--workers", str(workers))):
        argv = _set_flag(argv, flag, value)
    return [sys.executable, "-m", "headroom", *argv[1:], "--openai-api-url", upstream,
            "--anthropic-api-url", upstream, "--log-level", "warning"]


class Replica:
    """One `headroom proxy` process started from the Dockerfile's command line."""

    def __init__(self, argv: list[str], env: dict[str, str], log: Path):
        self.argv, self.env, self.log_path = argv, env, log
        self.port = int(argv[argv.index("--port") + 1])
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        self._log = self.log_path.open("wb")
        self.proc = subprocess.Popen(self.argv, cwd=ROOT, env=self.env, stdout=self._log, stderr=subprocess.STDOUT)

    def wait_ready(self, deadline: float) -> None:
        assert self.proc is not None
        while True:
            if self.proc.poll() is not None:
                raise RuntimeError(f"replica on {self.port} exited: {self.log_path.read_text()[-3000:]}")
            try:
                if httpx.get(f"{self.url}/health", timeout=2).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            if time.monotonic() > deadline:
                raise RuntimeError(f"replica on {self.port} did not answer /health: {self.log_path.read_text()[-3000:]}")
            time.sleep(0.2)

    def kill(self) -> None:
        """A crash, not a shutdown: SIGKILL, nothing drained or flushed."""
        assert self.proc is not None
        self.proc.kill()
        self.proc.wait(timeout=10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(timeout=30)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)
        if self.proc is not None:
            self._log.close()

    def requests_served(self) -> int:
        return httpx.get(f"{self.url}/stats", timeout=10).json()["requests"]["total"]


# ----------------------------------------------------------------------------- nginx


def nginx_binary() -> str | None:
    """Debian installs nginx in /usr/sbin, which is not on a non-root PATH."""
    return shutil.which("nginx") or next((p for p in ("/usr/sbin/nginx",) if os.access(p, os.X_OK)), None)


# Lines a loopback run adds inside `http {`: nginx's temporary files and logs under the
# test's prefix instead of /var/lib/nginx and /var/log/nginx (not writable by everyone),
# and an access log naming the replica(s) each request went to.
_TEMP_KINDS = ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")
ACCESS_FORMAT = '$msec $request_method $uri $status "$upstream_addr" "$upstream_status"'


def _temp_paths(binary: str, prefix: Path) -> list[str]:
    built = subprocess.run([binary, "-V"], check=False, capture_output=True, text=True, timeout=10).stderr
    lines = []
    for kind in _TEMP_KINDS:
        flag = "client-body" if kind == "client_body" else kind
        if kind != "client_body" and (f"--without-http_{kind}_module" in built or f"--http-{flag}-temp-path" not in built):
            continue  # module not built in: its directive would be unknown
        (prefix / "temp" / kind).mkdir(parents=True, exist_ok=True)
        lines.append(f"  {kind}_temp_path {prefix / 'temp' / kind};")
    return lines


def render_nginx_conf(text: str, upstreams: list[int], listen: int, prefix: Path, binary: str) -> str:
    """deploy/nginx.conf with its upstream servers on the given loopback ports, its listener
    on 127.0.0.1:``listen``, and files under ``prefix``; everything else as deployed."""
    servers = re.findall(r"^(\s*server\s+)(\w+):8787(\s)", text, re.MULTILINE)
    assert len(servers) == len(upstreams), f"deploy/nginx.conf has {len(servers)} upstream servers, not {len(upstreams)}"
    ports = iter(upstreams)
    text = re.sub(r"^(\s*server\s+)\w+:8787(\s)", lambda m: f"{m.group(1)}127.0.0.1:{next(ports)}{m.group(2)}",
                  text, flags=re.MULTILINE)
    text, n = re.subn(r"^(\s*)listen\s+8787;", rf"\g<1>listen 127.0.0.1:{listen};", text, flags=re.MULTILINE)
    assert n == 1, "deploy/nginx.conf's `listen 8787;` changed; update tests/deploy/cluster.py"
    local = [*_temp_paths(binary, prefix), f"  log_format replicas '{ACCESS_FORMAT}';",
             f"  access_log {prefix / 'access.log'} replicas;"]
    text, n = re.subn(r"^http\s*\{\n", lambda m: m.group(0) + "\n".join(local) + "\n", text, flags=re.MULTILINE)
    assert n == 1, "deploy/nginx.conf has no `http {` line"
    return text


class Nginx:
    """nginx in the foreground (`daemon off`) on a rendered copy of deploy/nginx.conf."""

    def __init__(self, binary: str, prefix: Path, upstreams: list[int]):
        self.binary, self.prefix = binary, prefix
        self.port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        prefix.mkdir(parents=True, exist_ok=True)
        self.conf = prefix / "nginx.conf"
        self.conf.write_text(render_nginx_conf((DEPLOY / "nginx.conf").read_text(), upstreams, self.port, prefix, binary))
        self.error_log = prefix / "error.log"
        self.access_log = prefix / "access.log"
        # Main-context settings for a foreground run under a test: one worker process (the
        # deployed image's default is nginx's own), pid and error log in the prefix, and,
        # as root, workers that keep root's rights to the prefix (0700 under pytest).
        main = [f"pid {prefix / 'nginx.pid'};", f"error_log {self.error_log} warn;", "daemon off;", "worker_processes 1;"]
        if os.geteuid() == 0:
            main.append("user root;")
        self.argv = [binary, "-p", str(prefix), "-e", str(self.error_log), "-c", str(self.conf), "-g", " ".join(main)]
        self.proc: subprocess.Popen[bytes] | None = None

    def __enter__(self) -> Self:
        check = subprocess.run([*self.argv, "-t"], check=False, capture_output=True, text=True, timeout=30)
        assert check.returncode == 0, f"nginx -t refused the rendered deploy/nginx.conf:\n{check.stderr}\n{self.conf.read_text()}"
        self.proc = subprocess.Popen(self.argv, stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + 20
        while True:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1):
                    return self
            except OSError:
                if self.proc.poll() is not None or time.monotonic() > deadline:
                    raise RuntimeError(f"nginx did not start: {self.error_log.read_text() if self.error_log.exists() else ''}")
                time.sleep(0.05)

    def __exit__(self, *exc: object) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGQUIT)  # graceful stop
            try:
                self.proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(timeout=10)

    def access(self) -> list[dict[str, Any]]:
        """Access-log rows: time, method, path, status, the replica(s) tried and their statuses."""
        rows = []
        for line in self.access_log.read_text().splitlines():
            m = re.match(r'(\S+) (\S+) (\S+) (\d+) "([^"]*)" "([^"]*)"', line)
            if m:
                rows.append({"t": float(m.group(1)), "method": m.group(2), "path": m.group(3), "status": int(m.group(4)),
                             "upstreams": [u.strip() for u in m.group(5).split(",")],
                             "upstream_status": [s.strip() for s in m.group(6).split(",")]})
        return rows
