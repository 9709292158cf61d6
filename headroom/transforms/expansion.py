"""ContextTracker: proactively expand compressed content the latest question asks about.

A tool output compressed in turn 1 keeps the same compressed bytes in every later turn
(the memo keeps provider prompt caches hitting), so items the user asks about later may
be hidden behind its retrieval marker. When the question names something concrete (an
id, a hostname, a path, a quoted string: the query anchors) that occurs in such an
original, this transform appends a new text block to the last message, the user's turn,
holding the matching original items. It never rewrites existing text.

Cache stability: an expansion is remembered per question (keyed by the question's text
and the compressed outputs before it), and on every later turn the same block is appended
to that same message again, so the history renders with the bytes the provider cached.
Only the latest question is ever newly expanded, from its own text alone.

Runs after the ContentRouter. Reads originals through ``ctx.store.get`` without recording
a retrieval (the model did not ask; feedback should not count it). Each expansion is
reported to TOIN (``observe_expansion``), which shows it per tool at ``/v1/feedback``.
"""

from __future__ import annotations

import hashlib
import json
import re
import threading
from collections import OrderedDict

from ..ccr.markers import find_hashes, has_marker
from ..ccr.store import split_items
from ..formats.model import (
    RETRIEVE_TOOL_NAME,
    Block,
    BlockKind,
    Conversation,
    Role,
    is_retrieve_tool,
)
from ..query.anchors import extract_anchors
from ..toin import hooks as toin_hooks
from .base import TransformContext

NAME = "context_tracker"
HEADER = "[headroom: original items from compressed tool outputs that match your question]"


class ContextTracker:
    name = NAME

    def __init__(
        self,
        max_items: int = 10,
        max_tokens: int = 1000,
        cache_chars: int = 16_000_000,
    ):
        if max_items < 1 or max_tokens < 1:
            raise ValueError("max_items and max_tokens must be at least 1")
        self.max_items = max_items
        self.max_tokens = max_tokens
        self._originals = _OriginalCache(cache_chars)
        # question key -> the expansion text it got (None: it got none), LRU.
        self._expansions: OrderedDict[str, str | None] = OrderedDict()
        self._expansions_lock = threading.Lock()
        self.max_remembered = 8192

    def apply(self, conv: Conversation, ctx: TransformContext) -> Conversation:
        keys = question_keys(conv)
        last = len(conv.messages) - 1
        for i, key in keys.items():
            if i != last and i >= ctx.config.frozen_prefix_messages:
                text = self._remembered(key)
                if text:
                    _append_text_block(conv, i, text)
                    ctx.decide(NAME, "expanded", "same expansion as when this question was asked (cache-stable)",
                               message_index=i)
        skip = self._precondition_failure(conv, ctx)
        if skip:
            ctx.decide(NAME, "skipped", skip)
            return conv
        key = keys[last]
        with self._expansions_lock:
            known = key in self._expansions
        if known:
            text = self._remembered(key)
            if text:
                _append_text_block(conv, last, text)
            ctx.decide(NAME, "expanded" if text else "kept", "question seen before; same result as then",
                       message_index=last)
            return conv
        text = self._expand(conv, ctx, last)
        self._remember(key, text)
        return conv

    def _remembered(self, key: str) -> str | None:
        with self._expansions_lock:
            if key not in self._expansions:
                return None
            self._expansions.move_to_end(key)
            return self._expansions[key]

    def _remember(self, key: str, text: str | None) -> None:
        with self._expansions_lock:
            self._expansions[key] = text
            while len(self._expansions) > self.max_remembered:
                self._expansions.popitem(last=False)

    def _expand(self, conv: Conversation, ctx: TransformContext, target: int) -> str | None:
        """Expand the latest question from its own text; returns the appended text."""
        # Only the latest question: an earlier one already got (or did not get) its
        # expansion when it was asked.
        terms = expansion_terms(conv.messages[target].text())
        if not terms:
            ctx.decide(NAME, "skipped", "the question names no concrete ids, names or values")
            return None
        patterns = [(t, _term_pattern(t)) for t in terms]
        new_block_index = len(conv.messages[target].blocks)
        sections: list[str] = []
        items_left, tokens_left = self.max_items, self.max_tokens
        for block, h, where in self._compressed_outputs(conv, ctx):
            if items_left <= 0 or tokens_left <= 0:
                ctx.decide(NAME, "skipped", "expansion budget used up", ccr_hash=h, **where)
                continue
            hits = self._matching_items(ctx, h, terms, patterns, block.text or "")
            if not hits:
                continue
            kept, used = _within_budget(hits, ctx, items_left, tokens_left)
            if not kept:
                reason = f"matching items exceed the {self.max_tokens}-token budget"
                ctx.decide(NAME, "skipped", reason, ccr_hash=h, **where)
                continue
            matched = sorted({t for t, rx in patterns for it in kept if rx.search(it.lower())})
            sections.append(_section(h, block.tool_name, matched, kept, len(hits) - len(kept)))
            items_left -= len(kept)
            tokens_left -= used
            toin_hooks.observe(ctx.toin, "observe_expansion", block.tool_name, h, len(kept))
            reason = f"{len(kept)} of {len(hits)} matching items added for {', '.join(matched)}"
            ctx.decide(
                NAME,
                "expanded",
                reason,
                message_index=target,
                block_index=new_block_index,
                tool_name=block.tool_name,
                ccr_hash=h,
                tokens_before=0,
                tokens_after=used,
            )
        if not sections:
            ctx.decide(NAME, "kept", f"no compressed item matches {', '.join(terms)}")
            return None
        text = "\n\n".join([HEADER, *sections])
        _append_text_block(conv, target, text)
        return text

    def _compressed_outputs(self, conv: Conversation, ctx: TransformContext):
        """(block, hash, where) for each marker hash in a tool output that may be expanded,
        first occurrence only; records why the others are left alone."""
        already_retrieved = retrieved_hashes(conv)
        seen: set[str] = set()
        for i, j, block in conv.tool_results():
            if not has_marker(block.text):
                continue
            where = {"message_index": i, "block_index": j, "tool_name": block.tool_name}
            if block.is_retrieve_output or is_retrieve_tool(block.tool_name):
                ctx.decide(NAME, "skipped", "headroom_retrieve output", **where)
                continue
            for h in find_hashes(block.text or ""):
                if h in seen:
                    continue
                seen.add(h)
                if h in already_retrieved:
                    reason = "already retrieved in this conversation"
                    ctx.decide(NAME, "skipped", reason, ccr_hash=h, **where)
                    continue
                yield block, h, where

    def _precondition_failure(self, conv: Conversation, ctx: TransformContext) -> str | None:
        if ctx.store is None or not ctx.config.ccr.enabled:
            return "no CCR store"
        if not conv.messages or conv.messages[-1].role is not Role.USER:
            return "the last message is not a user turn"
        if not conv.messages[-1].text():
            # An agent-loop step (Anthropic tool results only): the question was asked, and
            # answered with an expansion, in an earlier request.
            return "the last user message holds no question text"
        if len(conv.messages) - 1 < ctx.config.frozen_prefix_messages:
            return "the last message is inside the frozen prefix"
        return None

    def _matching_items(
        self, ctx: TransformContext, h: str, terms: list[str], patterns, visible: str
    ) -> list[str]:
        original = self._original(ctx, h)
        if original is None:
            return []
        # Cheap gate: most compressed outputs in a long conversation do not mention the
        # question's anchors at all.
        low = original.lower()
        if not any(t in low for t in terms):
            return []
        # The same items the store's search ranks (JSON elements or lines), filtered by
        # whole-token anchor matches and kept in their original order. BM25 ranking would
        # add nothing here but the cost of tokenising the whole original per request.
        return [
            it
            for it in split_items(original)
            if it not in visible and any(rx.search(it.lower()) for _, rx in patterns)
        ]

    def _original(self, ctx: TransformContext, h: str) -> str | None:
        """The live original for ``h``. Originals never change for a hash (it is their
        content hash), so they are cached here: every request of a long conversation
        would otherwise read every compressed original again, a round trip each on Redis.
        """
        now = ctx.store.clock()
        cached = self._originals.get(h, now)
        if cached is not None:
            return cached
        entry = ctx.store.get(h)
        if entry is None:
            return None
        self._originals.put(h, entry.original, entry.expires_at)
        return entry.original


def question_keys(conv: Conversation) -> dict[int, str]:
    """message index -> key for every user message with text.

    The key is the question's text plus the hashes of the compressed outputs before it:
    the same question in another conversation (or after different tool calls) is a
    different question.
    """
    keys: dict[int, str] = {}
    hashes: list[str] = []
    for i, m in enumerate(conv.messages):
        if m.role is Role.USER:
            text = m.text()
            if text:
                keys[i] = hashlib.sha256("\x00".join([text, *hashes]).encode("utf-8", "surrogatepass")).hexdigest()
        for b in m.blocks:
            if b.kind is BlockKind.TOOL_RESULT and has_marker(b.text):
                hashes.extend(find_hashes(b.text or ""))
    return keys


def expansion_terms(query: str) -> list[str]:
    """The question's anchors that are specific enough to justify an expansion.

    One- and two-digit numbers ("the last 10 lines") match almost any output, so they
    are not used. A term inside a longer one ("0042" in "ord-0042") is dropped: the
    longer one is what the user named.
    """
    terms = {t for t in extract_anchors(query).terms if not (t.isdigit() and len(t) < 3)}
    return sorted(t for t in terms if not any(t != other and t in other for other in terms))


def retrieved_hashes(conv: Conversation) -> set[str]:
    """Hashes the model already asked for with ``headroom_retrieve`` in this conversation."""
    out: set[str] = set()
    for _, _, b in conv.blocks():
        if b.kind is BlockKind.TOOL_CALL and is_retrieve_tool(b.tool_name) and b.text:
            try:
                args = json.loads(b.text)
            except ValueError:
                continue
            if isinstance(args, dict) and isinstance(args.get("hash"), str):
                out.add(args["hash"].strip())
    return out


def _within_budget(
    items: list[str], ctx: TransformContext, max_items: int, max_tokens: int
) -> tuple[list[str], int]:
    """The leading items that fit both budgets, and the tokens they use."""
    kept: list[str] = []
    used = 0
    for item in items:
        cost = ctx.counter.count(item) + 1  # + the newline joining it
        if len(kept) >= max_items or used + cost > max_tokens:
            break
        kept.append(item)
        used += cost
    return kept, used


def _term_pattern(term: str) -> re.Pattern[str]:
    # Whole-token match: "ord-99" must not fire on "ord-991", nor "42" on "user_42".
    return re.compile(r"(?<![\w])" + re.escape(term) + r"(?![\w])")


def _section(h: str, tool: str | None, matched: list[str], items: list[str], more: int) -> str:
    source = f" of {tool}" if tool else ""
    lines = [f"From compressed output{source} hash={h}, matching {', '.join(matched)}:", *items]
    if more:
        lines.append(
            f"({more} more matching items: call {RETRIEVE_TOOL_NAME} with this hash and a query.)"
        )
    return "\n".join(lines)


def _append_text_block(conv: Conversation, index: int, text: str) -> None:
    message = conv.messages[index]
    block = Block(BlockKind.TEXT, text=text)
    block.original_text = None  # a new block: renderers must emit it
    message.blocks.append(block)
    # A string ``content`` cannot hold two parts; render it as a part list instead. The
    # user's own text stays byte-identical as the first part.
    message.content_is_string = False


class _OriginalCache:
    """LRU of originals by hash, bounded by total characters; honours expiry times."""

    def __init__(self, max_chars: int):
        self.max_chars = max_chars
        self._data: OrderedDict[str, tuple[str, float]] = OrderedDict()
        self._chars = 0
        self._lock = threading.Lock()

    def get(self, h: str, now: float) -> str | None:
        with self._lock:
            item = self._data.get(h)
            if item is None:
                return None
            if item[1] <= now:  # expired in the store too: forget it
                self._chars -= len(self._data.pop(h)[0])
                return None
            self._data.move_to_end(h)
            return item[0]

    def put(self, h: str, original: str, expires_at: float) -> None:
        if len(original) > self.max_chars:
            return
        with self._lock:
            old = self._data.pop(h, None)
            if old is not None:
                self._chars -= len(old[0])
            self._data[h] = (original, expires_at)
            self._chars += len(original)
            while self._chars > self.max_chars:
                self._chars -= len(self._data.popitem(last=False)[1][0])
