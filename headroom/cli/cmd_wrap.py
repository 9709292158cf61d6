"""`headroom wrap AGENT [-- ARGS]` / `headroom wrap -- CMD ...`: run a coding agent through a
headroom proxy (a thin layer over headroom.wrap.run_wrapped)."""

from __future__ import annotations

import argparse
import os
import shlex
import sys
from pathlib import Path

from ..wrap import KNOWN_AGENTS, WrapOptions, configure, run_wrapped
from ..wrap.local_proxy import DEFAULT_HOST, DEFAULT_PORT


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser(
        "wrap", help="run a coding agent (claude, codex, aider, opencode, or any command) through headroom",
        usage="headroom wrap [OPTIONS] {claude,codex,aider,opencode} [-- AGENT ARGS]\n"
              "       headroom wrap [OPTIONS] -- CMD [ARGS]",
        description="Use the headroom proxy on --port when one runs there, else start one on a free loopback port "
                    "for the session; launch the agent pointed at it through its own environment and flags (no file "
                    "of yours is edited); stop the proxy it started when the agent exits; pass the agent's exit code "
                    "through and print what the session saved. `-- CMD` runs any command with OPENAI_BASE_URL and "
                    "ANTHROPIC_BASE_URL set. See docs/agents.md.")
    p.add_argument("--host", default=DEFAULT_HOST, help=f"the proxy's address (default: {DEFAULT_HOST})")
    p.add_argument("--port", type=int, default=DEFAULT_PORT,
                   help=f"use a headroom proxy already on this port (default: {DEFAULT_PORT}); else one is started "
                        "on a free port")
    p.add_argument("--new-proxy", action="store_true", help="always start a proxy for this session")
    p.add_argument("--no-agent-truncation", action="store_true",
                   help="raise the agent's own output limits where it has settings for them, so headroom does the "
                        "reduction (Claude Code, Codex, OpenCode; see docs/agents.md)")
    p.add_argument("--proxy-arg", action="append", default=[], metavar="ARG",
                   help="an argument for a proxy this command starts, e.g. --proxy-arg=--anthropic-api-url=URL "
                        "(repeatable)")
    p.add_argument("--state-dir", type=Path, default=None,
                   help="where a started proxy keeps its log, metrics and CCR store "
                        "(default: $HEADROOM_STATE_DIR or ~/.local/state/headroom)")
    p.add_argument("--dry-run", action="store_true", help="print what would be set and run, start nothing")
    p.add_argument("--no-summary", action="store_true", help="do not print the session's summary line")
    # (not "command": the top-level parser keeps the command's name there for error lines)
    p.add_argument("agent_command", nargs=argparse.REMAINDER, metavar="AGENT|-- CMD",
                   help="claude, codex, aider or opencode, then (after --) the agent's own arguments; or -- CMD ...")
    p.set_defaults(func=run)


def split_command(words: list[str]) -> tuple[str | None, list[str]]:
    """(agent, its arguments) or (None, a command) from what follows the options."""
    if not words:
        raise ValueError(f"name an agent ({', '.join(KNOWN_AGENTS)}) or a command after --")
    if words[0] == "--":
        if len(words) == 1:
            raise ValueError("nothing to run after --")
        return None, words[1:]
    agent, rest = words[0], words[1:]
    if agent not in KNOWN_AGENTS:
        raise ValueError(f"unknown agent {agent!r}: wrap one of {', '.join(KNOWN_AGENTS)}, "
                         "or any command with `headroom wrap -- CMD ...`")
    return agent, rest[1:] if rest[:1] == ["--"] else rest


def run(args: argparse.Namespace) -> int:
    agent, rest = split_command(args.agent_command)
    if args.dry_run:
        url = f"http://{args.host}:{args.port}"
        launch = configure(agent, rest, url, no_agent_truncation=args.no_agent_truncation,
                           environ=os.environ)
        print(f"proxy: {url} if a headroom proxy answers there, else a new one on a free port")
        for note in launch.notes:
            print(f"  {note}")
        print("run: " + shlex.join(launch.argv))
        return 0
    options = WrapOptions(host=args.host, port=args.port, no_agent_truncation=args.no_agent_truncation,
                          proxy_args=list(args.proxy_arg), reuse=not args.new_proxy, state_dir=args.state_dir,
                          summary=not args.no_summary, out=sys.stderr)
    return run_wrapped(agent, rest, options)
