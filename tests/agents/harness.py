"""Run a real agent CLI through `headroom wrap` against the scripted provider.

The CLIs come from ``.agent-clis`` (scripts/agent-clis.sh, run by `make test`) or PATH.
Under CI=1 a missing CLI fails the test; elsewhere it is skipped.
"""

from __future__ import annotations

import os
import random
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.agents.scripted_provider import Script, build_app
from tests.servers import ServerThread

ROOT = Path(__file__).resolve().parents[2]
CLI_BIN = ROOT / ".agent-clis" / "node_modules" / ".bin"
RARE = "FATAL replica lag exceeded 9000 ms on shard-17; failover to standby refused (quorum 1/3)"


def agent_cli(name: str) -> str:
    found = shutil.which(name, path=str(CLI_BIN)) or shutil.which(name)
    if found:
        return found
    why = f"{name} CLI not installed (scripts/agent-clis.sh installs it into .agent-clis)"
    if os.environ.get("CI"):
        pytest.fail(why)
    pytest.skip(why)


def server_log(size: int, seed: int = 7) -> str:
    """A web server's access and worker log of about ``size`` characters: a few frequent
    templates with varying values, and one rare fatal line about two thirds of the way in."""
    rng = random.Random(seed)
    paths = ["/api/items", "/api/orders", "/api/users", "/static/app.js", "/healthz"]
    lines, n = [], 0
    rare_at = None
    while sum(len(x) + 1 for x in lines) < size:
        n += 1
        ts = f"2026-11-28T10:{(n // 60) % 60:02d}:{n % 60:02d}.{rng.randrange(1000):03d}Z"
        kind = rng.random()
        if kind < 0.7:
            lines.append(f"{ts} INFO  http  {rng.choice(['GET', 'POST'])} {rng.choice(paths)}/{rng.randrange(9999)} "
                         f"status=200 bytes={rng.randrange(200, 90000)} duration_ms={rng.randrange(1, 400)}")
        elif kind < 0.9:
            lines.append(f"{ts} DEBUG pool  checkout conn={rng.randrange(64)} idle={rng.randrange(20)} "
                         f"waiters={rng.randrange(3)}")
        else:
            lines.append(f"{ts} INFO  cache refresh key=catalog:{rng.randrange(500)} hit_ratio=0.{rng.randrange(80, 99)}")
        if rare_at is None and sum(len(x) + 1 for x in lines) > size * 2 // 3:
            rare_at = len(lines)
            lines.append(f"{ts} {RARE}")
    return "\n".join(lines) + "\n"


@dataclass
class Run:
    returncode: int
    stdout: str
    stderr: str
    script: Script


def run_agent(tmp_path: Path, agent: str, agent_args: list[str], script: Script, *, log_size: int = 0,
              files: dict[str, str] | None = None, wrap_flags: list[str] = (), timeout: float = 240) -> Run:
    """`headroom wrap [flags] AGENT -- ARGS` in ``tmp_path``/work (holding big.log of
    ``log_size`` characters and ``files``), the agent's home a scratch directory, the
    proxy new and pointed at the scripted provider."""
    exe = agent_cli(agent)
    work = tmp_path / "work"
    work.mkdir()
    if log_size:
        (work / "big.log").write_text(server_log(log_size))
    for name, text in (files or {}).items():
        (work / name).write_text(text)
    home = tmp_path / "home"
    home.mkdir()
    env = {k: v for k, v in os.environ.items() if not k.startswith(("ANTHROPIC_", "OPENAI_", "CODEX_", "CLAUDE"))}
    env.update({
        "HOME": str(home), "CODEX_HOME": str(home / ".codex"), "ANTHROPIC_API_KEY": "sk-ant-test",
        "OPENAI_API_KEY": "sk-test", "CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC": "1", "DISABLE_TELEMETRY": "1",
        "DISABLE_AUTOUPDATER": "1", "NO_COLOR": "1", "PATH": f"{Path(exe).parent}{os.pathsep}{env.get('PATH', '')}",
        "PYTHONPATH": str(ROOT), "HEADROOM_STATE_DIR": str(tmp_path / "state"),
    })
    (home / ".codex").mkdir()
    with ServerThread(build_app(script)) as provider:
        cmd = [sys.executable, "-m", "headroom", "wrap", "--new-proxy", *wrap_flags,
               f"--proxy-arg=--anthropic-api-url={provider.url}", f"--proxy-arg=--openai-api-url={provider.url}",
               "--proxy-arg=--no-toin", agent, "--", *agent_args]
        proc = subprocess.run(cmd, cwd=work, env=env, capture_output=True, text=True, timeout=timeout,
                              stdin=subprocess.DEVNULL, check=False)
    return Run(proc.returncode, proc.stdout, proc.stderr, script)
