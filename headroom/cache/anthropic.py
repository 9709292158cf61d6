"""Anthropic prompt caching: ``cache_control`` breakpoints on the stable prefix.

Anthropic caches the request prefix (tools, then system, then messages) up to each block
marked ``cache_control``; a request may carry at most 4 such breakpoints. Two rules make
the cache hit turn after turn:

1. **Placed once, never moved.** A breakpoint becomes part of the bytes we send; moving
   it would change the prefix of every later turn. Positions are remembered per session
   (a hash of model, tools, system and the first message) and re-applied on every turn
   whose prefix up to that position is unchanged.
2. **Respect the client.** Breakpoints the client set count against the limit, and we
   never add one to a block that already has ``cache_control``.

Where: one breakpoint at the end of the static prefix (last system block, else last
tool) on the first turn; then at most one history breakpoint per turn, on the last
message of that turn, when the prefix has at least doubled since the previous breakpoint
and holds at least ``min_tokens`` tokens. Only messages that are new in this turn are
candidates: marking an older one would rewrite bytes the provider has already cached.
Doubling keeps at least about half of a long history cached with three history
breakpoints.
"""

from __future__ import annotations

import copy
import hashlib
import json
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from ..formats import anthropic as wire
from ..token_accounting import model_counter

# The provider's limits, from its adapter.
MAX_BREAKPOINTS = wire.CACHE_MAX_BREAKPOINTS
DEFAULT_MIN_TOKENS = wire.CACHE_MIN_TOKENS
EPHEMERAL = {"type": "ephemeral"}


def _dumps(x: Any) -> str:
    return json.dumps(x, ensure_ascii=False, separators=(",", ":"))


def _h(*parts: Any) -> str:
    return hashlib.sha256(_dumps(parts).encode("utf-8", "surrogatepass")).hexdigest()[:16]


def _strip_cc(x: Any) -> Any:
    """``x`` without ``cache_control`` keys, so our own markers do not change prefix hashes."""
    if isinstance(x, dict):
        return {k: _strip_cc(v) for k, v in x.items() if k != "cache_control"}
    if isinstance(x, list):
        return [_strip_cc(v) for v in x]
    return x


def count_breakpoints(body: dict[str, Any]) -> int:
    """``cache_control`` markers already in tools, system and message content."""
    n = 0
    for t in body.get("tools") or []:
        n += isinstance(t, dict) and "cache_control" in t
    system = body.get("system")
    if isinstance(system, list):
        n += sum(isinstance(b, dict) and "cache_control" in b for b in system)
    for m in body.get("messages") or []:
        content = m.get("content") if isinstance(m, dict) else None
        if isinstance(content, list):
            n += sum(isinstance(b, dict) and "cache_control" in b for b in content)
    if "cache_control" in body:  # top-level automatic caching counts as one
        n += 1
    return n


@dataclass
class _Session:
    # ("system", -1) / ("tools", -1) / ("messages", i): where each of our breakpoints sits,
    # with the hash of the prefix up to and including that position when it was placed.
    breakpoints: list[tuple[str, int, str]] = field(default_factory=list)
    # Messages already sent in this session; only later ones may get a new breakpoint.
    seen_messages: int = 0


class AnthropicCacheOptimizer:
    def __init__(self, *, min_tokens: int = DEFAULT_MIN_TOKENS, max_sessions: int = 1024):
        self.min_tokens = min_tokens
        self._sessions: OrderedDict[str, _Session] = OrderedDict()
        self._max_sessions = max_sessions
        self._lock = threading.Lock()

    @staticmethod
    def session_key(body: dict[str, Any]) -> str:
        msgs = body.get("messages") or []
        first = _strip_cc(msgs[0]) if msgs else None
        return _h(body.get("model"), _strip_cc(body.get("tools")), _strip_cc(body.get("system")), first)

    def _prefix_hash(self, body: dict[str, Any], where: str, index: int) -> str:
        tools = _strip_cc(body.get("tools"))
        if where == "tools":
            return _h(tools)
        system = _as_blocks(_strip_cc(body.get("system")))
        if where == "system":
            return _h(tools, system)
        msgs = [{**m, "content": _as_blocks(m.get("content"))} if isinstance(m, dict) else m
                for m in _strip_cc((body.get("messages") or [])[: index + 1])]
        return _h(tools, system, msgs)

    def apply(self, body: dict[str, Any], session_id: str | None = None) -> dict[str, Any]:
        """A copy of ``body`` with breakpoints re-applied and, if slots remain, new ones added."""
        if not isinstance(body.get("messages"), list):
            return body
        key = session_id or self.session_key(body)
        out = copy.deepcopy(body)
        budget = MAX_BREAKPOINTS - count_breakpoints(out)
        with self._lock:
            sess = self._sessions.setdefault(key, _Session())
            self._sessions.move_to_end(key)
            while len(self._sessions) > self._max_sessions:
                self._sessions.popitem(last=False)
            kept = []
            for where, idx, ph in sess.breakpoints:
                if budget <= 0:
                    break
                if self._valid(out, where, idx) and self._prefix_hash(out, where, idx) == ph:
                    if _mark(out, where, idx):
                        budget -= 1
                    kept.append((where, idx, ph))
            # A breakpoint whose prefix changed (history edited) is forgotten, freeing its slot.
            sess.breakpoints = kept
            for where, idx in self._candidates(out, sess, budget):
                if _mark(out, where, idx):
                    sess.breakpoints.append((where, idx, self._prefix_hash(out, where, idx)))
            sess.seen_messages = max(sess.seen_messages, len(out["messages"]))
        return out

    @staticmethod
    def _valid(body: dict[str, Any], where: str, idx: int) -> bool:
        if where == "messages":
            return 0 <= idx < len(body.get("messages") or [])
        return bool(body.get(where))

    def _candidates(self, body: dict[str, Any], sess: _Session, budget: int) -> list[tuple[str, int]]:
        if budget <= 0:
            return []
        placed = {(w, i) for w, i, _ in sess.breakpoints}
        out: list[tuple[str, int]] = []
        counter = model_counter(body.get("model"))
        static_where = "system" if body.get("system") else ("tools" if body.get("tools") else None)
        static_tokens = counter.count(_dumps(_strip_cc([body.get("tools"), body.get("system")])))
        has_static = any(w in ("system", "tools") for w, _ in placed)
        if static_where and not has_static and static_tokens >= self.min_tokens:
            out.append((static_where, -1))
            budget -= 1
        # History: the last breakpoint so far (in tokens of prefix) decides the next one.
        last = max((self._tokens_to(body, w, i, counter) for w, i, _ in sess.breakpoints), default=0)
        if out:
            last = max(last, static_tokens)
        msgs = body["messages"]
        i = len(msgs) - 1
        if budget > 0 and i >= sess.seen_messages and ("messages", i) not in placed and _markable(msgs[i]):
            total = static_tokens + counter.count(_dumps(_strip_cc(msgs)))
            if total >= max(self.min_tokens, 2 * last):
                out.append(("messages", i))
        return out

    @staticmethod
    def _tokens_to(body: dict[str, Any], where: str, idx: int, counter: Any) -> int:
        parts: list[Any] = [body.get("tools")] if where == "tools" else [body.get("tools"), body.get("system")]
        if where == "messages":
            parts.append((body.get("messages") or [])[: idx + 1])
        return counter.count(_dumps(_strip_cc(parts)))


def _as_blocks(content: Any) -> Any:
    """A string system/content as the one text block ``_mark`` turns it into, so a prefix
    hashes the same before and after we mark it."""
    return [{"type": "text", "text": content}] if isinstance(content, str) else content


def _markable(message: Any) -> bool:
    if not isinstance(message, dict):
        return False
    c = message.get("content")
    if isinstance(c, str):
        return bool(c)
    # thinking blocks cannot carry cache_control; the last block must be a cacheable kind.
    return isinstance(c, list) and bool(c) and isinstance(c[-1], dict) and c[-1].get("type") not in ("thinking", "redacted_thinking")


def _mark(body: dict[str, Any], where: str, idx: int) -> bool:
    """Put ``cache_control`` on the last block at ``where``; False when it already had one."""
    if where == "tools":
        target = body["tools"][-1]
    elif where == "system":
        if isinstance(body["system"], str):
            body["system"] = [{"type": "text", "text": body["system"]}]
        target = body["system"][-1]
    else:
        m = body["messages"][idx]
        if isinstance(m.get("content"), str):
            m["content"] = [{"type": "text", "text": m["content"]}]
        if not _markable(m):
            return False
        target = m["content"][-1]
    if not isinstance(target, dict) or "cache_control" in target:
        return False
    target["cache_control"] = dict(EPHEMERAL)
    return True
