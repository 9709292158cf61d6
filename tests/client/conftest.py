from __future__ import annotations

import hashlib
import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).parent))
from tests.client.fake_upstream import FakeUpstream


@pytest.fixture(scope="session")
def upstream():
    fake = FakeUpstream().start()
    yield fake
    fake.stop()


@pytest.fixture
def fake(upstream):
    upstream.state.reset()
    return upstream


def big_tool_output(n: int = 120, seed: str = "") -> str:
    """A JSON search result the router compresses lossily (so it leaves a CCR marker)."""
    items = [{"id": i, "path": f"/srv/app/module_{i}/file_{hashlib.md5(f'{seed}{i}'.encode()).hexdigest()}.py",
              "message": f"error {hashlib.sha1(f'{seed}{i}'.encode()).hexdigest()} in handler", "line": i * 7}
             for i in range(n)]
    return json.dumps(items)


@pytest.fixture
def openai_messages():
    return [
        {"role": "system", "content": "You are a careful debugging assistant."},
        {"role": "user", "content": "find the errors"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "call_a", "type": "function", "function": {"name": "search", "arguments": "{\"q\": \"error\"}"}}]},
        {"role": "tool", "tool_call_id": "call_a", "content": big_tool_output()},
    ]


@pytest.fixture
def anthropic_messages():
    return [
        {"role": "user", "content": "find the errors"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "toolu_a", "name": "search", "input": {"q": "error"}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_a", "content": big_tool_output()}]},
    ]
