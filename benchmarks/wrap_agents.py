"""The real Claude Code and Codex CLIs through `headroom wrap` against the scripted provider
of tests/agents, one line per case: wrap's own summary, what the provider saw of the tool
output (characters, rare line in view) and how long the session took.

    PYTHONPATH=. .venv/bin/python benchmarks/wrap_agents.py [--sizes 25000,120000,270000]

Needs the CLIs (scripts/agent-clis.sh). Each case starts its own proxy (~10 s here).
"""

from __future__ import annotations

import argparse
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.agents.harness import RARE, run_agent
from tests.agents.scripted_provider import Script

CLAUDE = ["-p", "What went wrong in big.log?", "--allowedTools", "Bash(cat:*)", "--output-format", "text"]
CODEX = ["exec", "--skip-git-repo-check", "--sandbox", "danger-full-access", "What went wrong in big.log?"]


def case(agent: str, size: int, no_trunc: bool) -> str:
    if agent == "claude":
        script, args = Script("cat big.log", "done"), CLAUDE
    else:  # the model asks for the whole output; Codex's own cap decides what it gets
        script, args = Script("cat big.log", "done", call_tool="exec_command",
                              call_extra={"max_output_tokens": 200_000}), CODEX
    flags = ["--no-agent-truncation"] if no_trunc else []
    t0 = time.monotonic()
    with tempfile.TemporaryDirectory() as tmp:
        run = run_agent(Path(tmp), agent, args, script, log_size=size, wrap_flags=flags)
    took = time.monotonic() - t0
    summary = next((ln for ln in run.stderr.splitlines() if ln.startswith("headroom: ") and "request" in ln), "?")
    seen = run.script.seen_tool_results[0] if run.script.seen_tool_results else ""
    return (f"{agent:6s} {size:>7,} chars {'raised' if no_trunc else 'agent  '} rc={run.returncode} "
            f"provider saw {len(seen):>6,} chars, rare line {'in view' if RARE in seen else 'NOT in view'}; "
            f"{summary.removeprefix('headroom: ')} ({took:.0f} s)")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--sizes", default="25000,120000,270000")
    ap.add_argument("--agents", default="claude,codex")
    a = ap.parse_args()
    for agent in a.agents.split(","):
        for size in (int(s) for s in a.sizes.split(",")):
            for no_trunc in (False, True):
                print(case(agent, size, no_trunc), flush=True)


if __name__ == "__main__":
    main()
