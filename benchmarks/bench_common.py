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
from headroom.pipeline import conversation_tokens
from headroom.tokens import counter_for

MODEL = "gpt-4o"  # o200k: one counter for both packages, so the numbers compare


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
