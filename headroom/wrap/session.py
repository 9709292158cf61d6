"""One wrapped agent session: a proxy (reused or started), the agent launched through it,
its exit code handed back, the proxy it started stopped, a one-line summary printed."""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import sys
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import TextIO
from urllib.parse import urlsplit

from . import local_proxy
from .agents import Launch, configure
from .summary import SessionStats, summary_line

_INSTALL_HINTS = {
    "claude": "npm install -g @anthropic-ai/claude-code",
    "codex": "npm install -g @openai/codex",
    "aider": "pip install aider-chat",
    "opencode": "npm install -g opencode-ai",
}


@dataclass
class WrapOptions:
    host: str = local_proxy.DEFAULT_HOST
    port: int = local_proxy.DEFAULT_PORT
    no_agent_truncation: bool = False
    proxy_args: list[str] = field(default_factory=list)  # for a proxy this session starts
    reuse: bool = True  # use a headroom proxy already on host:port
    state_dir: Path | None = None
    summary: bool = True
    out: TextIO | None = None  # where the summary and notes go (default: stderr)


def exit_code(returncode: int) -> int:
    """A shell's view of a child's end: killed by signal N is 128 + N."""
    return 128 - returncode if returncode < 0 else returncode


def upstream_args(environ: Mapping[str, str], proxy_args: list[str], port: int) -> list[str]:
    """Flags that keep the user's own provider URLs behind a proxy wrap starts.

    Someone whose agent already talks to a gateway (``ANTHROPIC_BASE_URL`` or
    ``OPENAI_BASE_URL`` set) gets agent -> headroom -> that gateway, not the public APIs.
    A URL that points at a local headroom port (a README ``export`` with no proxy running)
    is not an upstream: the proxy would call itself.
    """
    out = []
    for var, flag, suffix in (("ANTHROPIC_BASE_URL", "--anthropic-api-url", ""),
                              ("OPENAI_BASE_URL", "--openai-api-url", "/v1")):
        value = (environ.get(var) or "").strip().rstrip("/")
        if not value or any(a == flag or a.startswith(flag + "=") for a in proxy_args):
            continue
        parsed = urlsplit(value)
        if parsed.hostname in ("127.0.0.1", "localhost", "::1") and parsed.port in (port, local_proxy.DEFAULT_PORT):
            continue
        if suffix and value.endswith(suffix):
            value = value[: -len(suffix)]
        out.append(f"{flag}={value}")
    return out


def run_wrapped(agent: str | None, args: list[str], options: WrapOptions | None = None) -> int:
    """Run ``agent`` (or the command ``args``) through a headroom proxy, on this terminal;
    the agent's exit code."""
    opts = options or WrapOptions()
    out = opts.out or sys.stderr
    # Resolve the agent first: a missing agent must not cost a proxy start.
    probe = configure(agent, args, "http://127.0.0.1:0", no_agent_truncation=opts.no_agent_truncation,
                      environ=os.environ)
    executable = shutil.which(probe.argv[0])
    if executable is None:
        hint = _INSTALL_HINTS.get(agent or "")
        raise FileNotFoundError(f"{probe.argv[0]} was not found on PATH" + (f"; install it ({hint})" if hint else ""))

    url = local_proxy.find_running(opts.host, opts.port) if opts.reuse else None
    started = None
    if url is None:
        proxy_args = [*upstream_args(os.environ, opts.proxy_args, opts.port), *opts.proxy_args]
        started = local_proxy.start(proxy_args, host=opts.host, directory=opts.state_dir)
        url = started.url
        print(f"headroom: started a proxy on {url} (log: {started.log_path})", file=out, flush=True)
    else:
        print(f"headroom: using the proxy already running on {url}", file=out, flush=True)
    try:
        before = SessionStats.from_stats(local_proxy.get_json(url + "/stats"))
        launch = configure(agent, args, url, no_agent_truncation=opts.no_agent_truncation, environ=os.environ)
        launch = Launch([executable, *launch.argv[1:]], launch.env, launch.notes)
        returncode = _run_agent(launch)
        if opts.summary:
            after = local_proxy.get_json(url + "/stats")
            stats = SessionStats.from_stats(after) - before if after is not None else None
            print(summary_line(stats, shared=started is None), file=out, flush=True)
        return exit_code(returncode)
    finally:
        if started is not None:
            started.stop()


def _run_agent(launch: Launch) -> int:
    proc = subprocess.Popen(launch.argv, env={**os.environ, **launch.env})
    # The terminal sends Ctrl-C to the agent too, which decides what it means (Claude Code
    # and Codex interrupt a turn); wrap only waits. SIGTERM and SIGHUP are for wrap itself:
    # pass them on and let the agent end, then the proxy is stopped.
    def forward(signum: int, _frame: object) -> None:
        if proc.poll() is None:
            proc.send_signal(signum)

    passed_on = [s for s in (signal.SIGTERM, getattr(signal, "SIGHUP", None)) if s is not None]  # no SIGHUP on Windows
    handlers = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, *passed_on)}
    try:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        for sig in passed_on:
            signal.signal(sig, forward)
    except ValueError:  # not the main thread: signals stay as they are
        handlers = {}
    try:
        return proc.wait()
    finally:
        for sig, handler in handlers.items():
            signal.signal(sig, handler)
