"""What the benchmarks that compare with the upstream package share: one token counter
for both sides, and running a script inside the upstream venv.

The upstream package (``headroom-ai``) has the same import name as ours, so it runs in a
child process of its own venv, with ``-P``, an empty ``PYTHONPATH`` and a neutral cwd so
that it imports the upstream package and never this checkout.
"""

from __future__ import annotations

import json
import os
import subprocess
from typing import Any

from headroom.formats import parse
from headroom.token_accounting import conversation_tokens
from headroom.tokens import counter_for

MODEL = "gpt-4o"  # o200k: one counter for both packages, so the numbers compare


def stop_process(proc: subprocess.Popen, timeout: float) -> None:
    """Terminate a server the benchmark started; kill it if it does not exit in ``timeout`` s."""
    proc.terminate()
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()


def tokens_of(messages: list[dict[str, Any]]) -> int:
    conv = parse({"model": MODEL, "messages": messages}, "openai_chat")
    return conversation_tokens(conv, counter_for(MODEL))


def run_in_upstream(python: str, script: str, payload: Any) -> Any:
    """Run ``script`` with the upstream venv's ``python``; ``payload`` goes in as JSON on
    stdin and the last line the script prints comes back parsed."""
    counter_for(MODEL)  # sets TIKTOKEN_CACHE_DIR to the offline BPE files, which the child inherits
    proc = subprocess.run([python, "-P", "-c", script], input=json.dumps(payload), capture_output=True, text=True,
                          cwd="/", env={**os.environ, "PYTHONPATH": ""}, check=False)
    if proc.returncode != 0:
        raise RuntimeError(f"upstream run failed ({proc.returncode}):\n{proc.stderr[-2000:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


# Opening of every script run in the upstream venv: read the payload, a one-call
# conversation around a tool output, and a warm-up on unrelated JSON and text so lazy
# set-up is paid before any timed call.
UPSTREAM_PRELUDE = r"""
import json, sys, time
import headroom
payload = json.load(sys.stdin)
def conv(output, question="warm-up"):
    return [{"role": "user", "content": question}, {"role": "assistant", "content": None, "tool_calls": [
        {"id": "w", "type": "function", "function": {"name": "ls", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "w", "content": output}]
headroom.compress(conv(json.dumps([{"i": i, "v": "x" * (i % 7)} for i in range(300)])), model=payload["model"])
headroom.compress(conv("\n".join(f"2020-01-01 00:00:{i % 60:02d} INFO worker {i} step {i * 7}" for i in range(400))),
                  model=payload["model"])
"""
