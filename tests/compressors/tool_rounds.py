"""One tool call and its output, compressed as the model would receive it, for a question."""

from __future__ import annotations

import json

import headroom
from headroom import Pipeline
from headroom.ccr.store import CompressionStore
from headroom.config import HeadroomConfig


def tool_round(command: str, output: str, question: str) -> str:
    """The tool output as compressed for ``question`` (asked by the user, answered by a bash
    call running ``command``)."""
    msgs = [{"role": "user", "content": question},
            {"role": "assistant", "content": None, "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "bash", "arguments": json.dumps({"command": command})}}]},
            {"role": "tool", "tool_call_id": "c1", "content": output}]
    # A pipeline of its own: the default one remembers an output's compression across calls
    # (a conversation's earlier outputs stay as they were sent), whatever the new question.
    pipeline = Pipeline(HeadroomConfig(), store=CompressionStore())
    return headroom.compress(msgs, model="gpt-4o", pipeline=pipeline).messages[-1]["content"]
