"""Coding agents through headroom: ``run_wrapped("claude", args)`` finds or starts a local
proxy, launches the agent pointed at it through its own environment and flags, and hands
back the agent's exit code (`headroom wrap` is a thin layer over this)."""

from .agents import KNOWN_AGENTS, Launch, configure
from .local_proxy import StartedProxy, find_running, start, state_dir
from .session import WrapOptions, exit_code, run_wrapped
from .summary import SessionStats, summary_line

__all__ = [
    "KNOWN_AGENTS", "Launch", "SessionStats", "StartedProxy", "WrapOptions", "configure", "exit_code",
    "find_running", "run_wrapped", "start", "state_dir", "summary_line",
]
