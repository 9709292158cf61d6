"""The contract suite's conversation in the made-up Acme format (adapter: acme.py)."""

from __future__ import annotations

from headroom.formats.wire import Usage

from .fixtures import ARGS, LOG, QUESTION, SYSTEM

ACME = {
    "request": {"model": "acme-large", "preamble": SYSTEM, "turns": [
        {"speaker": "human", "say": QUESTION},
        {"speaker": "bot", "invoke": {"ref": "c1", "tool": "read_log", "args": ARGS}},
        {"speaker": "human", "answer": {"ref": "c1", "output": LOG}}]},
    "response": {"out": [{"speaker": "bot", "invoke": {"ref": "c2", "tool": "grep", "args": {"q": "9999"}}}],
                 "meter": {"in": 900, "out": 12}},
    "usage": Usage(900, 12),
}
