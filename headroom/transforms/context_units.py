"""Shared pieces of the context-budget transforms (RollingWindow, IntelligentContext).

- the token budget for a request (context windows come from headroom.providers' one table);
- grouping messages into atomic units: an assistant tool-call message together with every
  message carrying its results is one unit (dropping half of it would break provider
  validity), other messages group into turns (a user message and what follows it);
- dropping units: originals go to CCR as JSON and a marker takes their place, placed so
  the conversation stays valid for its provider.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from ..ccr.markers import format_marker
from ..formats import (
    Block,
    BlockKind,
    Conversation,
    Message,
    Role,
    adapter,
    content_hash,
)
from ..providers import context_window
from ..query.anchors import extract_anchors
from ..token_accounting import conversation_tokens, conversation_tokens_at_most, message_tokens
from ..tokens import MESSAGE_OVERHEAD
from .base import TransformContext
from .dropped_excerpts import dropped_excerpts


def token_budget(conv: Conversation, ctx: TransformContext) -> int:
    """Tokens the prompt may use: the configured budget, else the window minus output room."""
    cfg = ctx.config.context
    if cfg.max_tokens:
        return cfg.max_tokens
    body = conv.body
    requested = body.get("max_tokens") or body.get("max_completion_tokens") or body.get("max_output_tokens")
    reserve = max(cfg.rolling_window.output_buffer_tokens, requested if isinstance(requested, int) else 0)
    return max(1, context_window(ctx.model or conv.model, conv.format) - reserve)


def over_budget(conv: Conversation, ctx: TransformContext, transform: str) -> tuple[int, int] | None:
    """(budget, total) when the conversation is over budget; else records "kept", None."""
    budget = token_budget(conv, ctx)
    # A bound first: what the router left to count when read stays uncounted (issue 34).
    bound, exactly = conversation_tokens_at_most(conv, ctx.counter)
    if bound <= budget:
        total_text = f"{bound}" if exactly else f"at most {bound}"
        ctx.decide(transform, "kept", f"within budget ({total_text} <= {budget} tokens)")
        return None
    total = conversation_tokens(conv, ctx.counter)
    if total <= budget:
        ctx.decide(transform, "kept", f"within budget ({total} <= {budget} tokens)")
        return None
    return budget, total


def report_if_still_over(conv: Conversation, ctx: TransformContext, units: list[Unit], budget: int,
                         transform: str) -> None:
    """After dropping: say why the conversation could not be brought under budget.

    Counts again rather than trusting the caller's running total: ``drop_units`` may
    refuse a drop whose marker would cost more than it frees.
    """
    if conversation_tokens(conv, ctx.counter) > budget:
        protected = sum(u.tokens for u in units if u.protected)
        ctx.decide(transform, "skipped", f"still over budget: {protected} tokens are protected "
                   f"(system, last turns, frozen prefix) and cannot be dropped")


@dataclass
class Unit:
    """Messages that must be kept or dropped together."""

    indices: list[int]
    kind: str  # "tool" | "turn" | "system"
    turn: int  # index of the user turn this unit belongs to (0 = before the first)
    tokens: int = 0
    protected: str | None = None  # reason, when it must not be dropped
    tool_names: list[str] = field(default_factory=list)


def _is_user_turn(m: Message) -> bool:
    """A user message the human wrote (not one that only carries tool results)."""
    return m.role is Role.USER and m.has_text()


def group_units(conv: Conversation, ctx: TransformContext) -> list[Unit]:
    """Split the conversation into atomic units, oldest first, with protections set.

    A tool unit is the message that made the calls plus every message carrying their
    results (Responses: consecutive call items join one unit). A turn unit is every other
    message of one user turn (the question and the assistant's text replies), so dropping
    it never leaves an assistant reply without its question.
    """
    msgs = conv.messages
    owner: dict[str, Unit] = {}  # tool call id -> the unit that made the call
    turn_units: dict[int, Unit] = {}
    units: list[Unit] = []
    turn = 0
    for i, m in enumerate(msgs):
        if _is_user_turn(m):
            turn += 1
        calls, results = m.tool_call_ids(), m.tool_result_ids()
        u = next((owner[r] for r in results if r in owner), None)
        if u is None and calls and units and units[-1].kind == "tool" and units[-1].indices[-1] == i - 1 \
                and adapter(conv.format).CALLS_SPAN_ITEMS and not msgs[i - 1].tool_result_ids():
            u = units[-1]
        if u is None:
            if calls:
                u = Unit([], "tool", turn)
                units.append(u)
            elif m.role is Role.SYSTEM:
                u = Unit([], "system", turn, protected="system prompt")
                units.append(u)
            elif turn in turn_units:
                u = turn_units[turn]
            else:
                u = turn_units[turn] = Unit([], "turn", turn)
                units.append(u)
        u.indices.append(i)
        for c in calls:
            owner[c] = u
        u.tool_names.extend(b.tool_name for b in m.blocks if b.kind is BlockKind.TOOL_CALL and b.tool_name)

    keep_turns = ctx.config.context.rolling_window.keep_last_turns
    first_kept_turn = max(1, turn - keep_turns + 1) if keep_turns else turn + 1
    frozen = ctx.config.frozen_prefix_messages
    for u in units:
        u.tokens = sum(message_tokens(msgs[i], ctx.counter) for i in u.indices)
        if u.protected:
            continue
        if u.turn >= first_kept_turn:
            u.protected = f"within the last {keep_turns} turns"
        elif min(u.indices) < frozen:
            u.protected = "inside frozen prefix"
        elif any(msgs[i].role is Role.USER and msgs[i].has_text() for i in u.indices) and u.turn == turn:
            u.protected = "current user turn"
    # The last message is what the model answers; never drop it.
    last = len(msgs) - 1
    for u in units:
        if last in u.indices and not u.protected:
            u.protected = "last message"
    return units


def drop_units(conv: Conversation, ctx: TransformContext, drop: list[Unit], transform: str, reason: str) -> int:
    """Remove ``drop`` from the conversation, store them in CCR, leave one marker.

    Returns the tokens removed (before the marker is added).
    """
    if not drop:
        return 0
    indices = sorted(i for u in drop for i in u.indices)
    removed = [conv.messages[i] for i in indices]
    render = adapter(conv.format)
    payload = [getattr(render, "render_message", getattr(render, "render_item", None))(m) for m in removed]
    original = json.dumps(payload, ensure_ascii=False)
    tokens = sum(u.tokens for u in drop)
    tools = sorted({n for u in drop for n in u.tool_names})
    summary = f"{len(drop)} older units ({tokens} tokens) dropped to fit the context window"
    if tools:
        summary += f"; tool calls: {', '.join(tools[:8])}"
    use_ccr = ctx.keeps_originals
    h = content_hash(original) if use_ccr else None
    marker = format_marker(len(removed), 0, h, ctx.store.ttl_seconds, summary + ".") if h else ""
    # What the question names among the dropped lines stays in view under the marker.
    excerpt = dropped_excerpts(removed, extract_anchors(ctx.query), ctx.counter, tokens)
    marker = "\n".join(t for t in (marker, excerpt) if t)
    # The marker usually becomes a message of its own, with that message's overhead.
    if marker and ctx.counter.count(marker) + MESSAGE_OVERHEAD >= tokens:
        # Never worse: a marker that costs more than what it replaces is no saving.
        ctx.decide(transform, "skipped", f"dropping {tokens} tokens would cost a larger marker")
        return 0
    if use_ccr:
        ctx.keep_original(original, known_hash=h, tool_name=None, original_tokens=tokens, item_count=len(removed),
                          meta={"kind": "dropped_messages", "transform": transform})
    keep = set(range(len(conv.messages))) - set(indices)
    new_msgs = [m for i, m in enumerate(conv.messages) if i in keep]
    insert_at = sum(1 for i in keep if i < indices[0])
    if marker:
        _insert_marker(conv, new_msgs, insert_at, marker)
    for u in drop:
        ctx.decide(transform, "dropped", reason, message_index=u.indices[0], tokens_before=u.tokens,
                   tokens_after=0, ccr_hash=h, strategy=u.kind)
    conv.messages = new_msgs
    return tokens


def _insert_marker(conv: Conversation, msgs: list[Message], at: int, text: str) -> None:
    """Put the marker where the provider accepts it without rewriting anyone's text.

    Where roles must alternate (the adapter's ALTERNATING_ROLES: Anthropic), the marker
    joins a neighbouring user message as an extra text block when there is one; other
    formats get a user message.
    """
    block = Block(BlockKind.TEXT, text=text, added=True)
    if adapter(conv.format).ALTERNATING_ROLES:
        nxt = msgs[at] if at < len(msgs) else None
        prev = msgs[at - 1] if at > 0 else None
        if nxt is not None and nxt.role is Role.USER:
            nxt.blocks.insert(_after_tool_results(nxt), block)
            nxt.content_is_string = False
            return
        if prev is not None and prev.role is Role.USER:
            prev.blocks.append(block)
            prev.content_is_string = False
            return
    msgs.insert(at, Message(Role.USER, [block], raw=None, content_is_string=True))


def _after_tool_results(m: Message) -> int:
    """Anthropic wants tool_result blocks first in a user message; insert after them."""
    n = 0
    for b in m.blocks:
        if b.kind is BlockKind.TOOL_RESULT:
            n += 1
        else:
            break
    return n
