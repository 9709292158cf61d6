"""Shrink long string arguments of old assistant tool calls (seed 003).

Agents that edit files send the whole patch as a tool-call argument, again and again.
Old calls can lose most of those strings without hurting the model, but the result must
stay a valid call: ``arguments`` still parses with ``json.loads``, with the same keys,
the same types and the same array lengths. Only long string values are shortened, and
shortening works on the decoded string, so an escape sequence is never cut in half. The
exact original arguments go to CCR; each shortened string names the hash.
"""

from __future__ import annotations

import json
from typing import Any

from ..formats import BlockKind, Conversation, Role, content_hash, is_retrieve_tool
from .base import TransformContext
from .protect import is_excluded_tool

NAME = "tool_args"


def shrink_strings(value: Any, limit: int, note: str) -> tuple[Any, int]:
    """Shorten every string longer than ``limit``; return (new value, strings shortened)."""
    if isinstance(value, str):
        if len(value) <= limit:
            return value, 0
        head = value[: limit * 2 // 3]
        tail = value[-(limit // 6):] if limit >= 12 else ""
        elided = len(value) - len(head) - len(tail)
        return f"{head}…[{elided} chars elided; {note}]…{tail}", 1
    if isinstance(value, list):
        out, n = [], 0
        for v in value:
            nv, k = shrink_strings(v, limit, note)
            out.append(nv)
            n += k
        return out, n
    if isinstance(value, dict):
        outd, n = {}, 0
        for key, v in value.items():
            nv, k = shrink_strings(v, limit, note)
            outd[key] = nv
            n += k
        return outd, n
    return value, 0


def _dumps(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False)
    except UnicodeEncodeError:  # pragma: no cover - lone surrogates
        return json.dumps(value)


class ToolArgsShrinker:
    name = NAME

    def apply(self, conv: Conversation, ctx: TransformContext) -> Conversation:
        cfg = ctx.config.tool_args
        # The cutoff moves in steps of ``keep_recent_messages``: a call's bytes change
        # once when it ages out, and the prefix before the cutoff stays byte-identical
        # for a whole step of turns instead of shifting every turn (prompt caching).
        step = max(1, cfg.keep_recent_messages)
        cutoff = max(0, (len(conv.messages) - cfg.keep_recent_messages) // step * step)
        for i, m in enumerate(conv.messages):
            if m.role is not Role.ASSISTANT:
                continue
            for j, b in enumerate(m.blocks):
                if b.kind is not BlockKind.TOOL_CALL:
                    continue
                where = dict(message_index=i, block_index=j, tool_name=b.tool_name)
                if b.text is None or len(b.text) < cfg.min_arguments_chars:
                    continue  # small or non-string arguments: nothing to consider
                if i >= cutoff:
                    ctx.decide(NAME, "skipped", "recent call (within the keep window)", **where)
                    continue
                if i < ctx.config.frozen_prefix_messages:
                    ctx.decide(NAME, "skipped", "inside frozen prefix", **where)
                    continue
                if is_retrieve_tool(b.tool_name) or is_excluded_tool(b.tool_name, ctx.config.router.exclude_tools):
                    ctx.decide(NAME, "skipped", f"protected tool {b.tool_name}", **where)
                    continue
                self._shrink(b, ctx, where)
        return conv

    def _shrink(self, b, ctx: TransformContext, where: dict) -> None:
        cfg = ctx.config.tool_args
        original = b.text
        try:
            parsed = json.loads(original)
        except ValueError:
            ctx.decide(NAME, "skipped", "arguments are not valid JSON", **where)
            return
        h = content_hash(original)
        if not ctx.keeps_originals:
            ctx.decide(NAME, "skipped", "no CCR store to keep the original", **where)
            return
        new_value, n = shrink_strings(parsed, cfg.max_string_chars, f"headroom_retrieve hash={h}")
        if n == 0:
            ctx.decide(NAME, "kept", f"no string longer than {cfg.max_string_chars} chars", **where)
            return
        new_text = _dumps(new_value)
        before, after = ctx.counter.count(original), ctx.counter.count(new_text)
        if after >= before:
            ctx.decide(NAME, "kept", "shrinking saved nothing", tokens_before=before, tokens_after=before, **where)
            return
        ctx.keep_original(original, compressed=new_text, tool_name=b.tool_name, original_tokens=before,
                          compressed_tokens=after, meta={"kind": "tool_arguments"})
        b.text = new_text
        ctx.decide(NAME, "shrunk", f"shortened {n} long string values", strategy="string_values",
                   tokens_before=before, tokens_after=after, ccr_hash=h, **where)
