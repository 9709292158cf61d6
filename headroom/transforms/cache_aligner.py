"""CacheAligner: keep the system prompt's prefix byte-stable across requests.

Provider prompt caches match on an exact prefix. A system prompt that embeds today's
date, a request id or a session UUID changes every request and invalidates the cache for
everything after it. The aligner replaces such values with placeholders where they occur
and lists the actual values in a trailing "[Dynamic context]" block at the end of the
system prompt, so everything before that block stays identical from request to request.
User and assistant text are never touched.
"""

from __future__ import annotations

import hashlib
import re

from ..formats import BlockKind, Conversation, Role
from ..token_accounting import tokens_at_least
from .base import TransformContext

NAME = "cache_aligner"

# Order matters: longer/more specific patterns first so a datetime is not split into a
# date and a time.
PATTERNS: dict[str, re.Pattern[str]] = {
    "jwt": re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}"),
    "uuid": re.compile(r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b"),
    "request_id": re.compile(r"\b(?:req|request|trace|span|session|correlation|run)[_-][A-Za-z0-9]{6,}\b"),
    "datetime": re.compile(
        r"\b\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?\b"
    ),
    "date": re.compile(
        r"\b\d{4}-\d{2}-\d{2}\b|\b\d{1,2}/\d{1,2}/\d{4}\b|"
        r"\b(?:Mon|Tue|Wed|Thu|Fri|Sat|Sun)[a-z]*,? \w+ \d{1,2},? \d{4}\b|"
        r"\b(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]* \d{1,2},? \d{4}\b|"
        r"\b\d{1,2} (?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]* \d{4}\b"
    ),
    "time": re.compile(r"\b\d{1,2}:\d{2}(?::\d{2})?(?:\s?[AaPp][Mm])?(?:\s?(?:UTC|GMT|[A-Z]{3}))?\b"),
    "hex_id": re.compile(r"\b[0-9a-f]{16,64}\b"),
}


def align_text(text: str, kinds: tuple[str, ...], header: str) -> tuple[str, list[tuple[str, str]]]:
    """Return (text with placeholders + trailing block, [(placeholder, value), ...])."""
    if header in text:  # already aligned (e.g. a client that runs headroom twice)
        return text, []
    found: list[tuple[str, str]] = []
    counts: dict[str, int] = {}
    out = text
    for kind, rx in PATTERNS.items():
        if kind not in kinds:
            continue

        def repl(m: re.Match[str], kind: str = kind) -> str:
            counts[kind] = counts.get(kind, 0) + 1
            label = f"[{kind}]" if counts[kind] == 1 else f"[{kind} {counts[kind]}]"
            found.append((label, m.group(0)))
            return label

        out = rx.sub(repl, out)
    if not found:
        return text, []
    lines = "\n".join(f"{label}: {value}" for label, value in found)
    return f"{out.rstrip()}\n\n{header}\n{lines}", found


def stable_prefix(text: str, header: str) -> str:
    i = text.find(header)
    return text if i < 0 else text[:i]


class CacheAligner:
    name = NAME

    def apply(self, conv: Conversation, ctx: TransformContext) -> Conversation:
        cfg = ctx.config.cache_aligner
        blocks = [b for b in conv.system if b.kind is BlockKind.TEXT and b.text]
        # Chat Completions keeps system/developer messages inline; only the leading ones
        # form the cacheable prefix.
        for m in conv.messages:
            if m.role is not Role.SYSTEM:
                break
            blocks.extend(b for b in m.blocks if b.kind is BlockKind.TEXT and b.text)
        if not blocks:
            ctx.decide(NAME, "skipped", "no system prompt")
            return conv
        aligned = [(b, *align_text(b.text or "", cfg.patterns, cfg.context_header)) for b in blocks]
        # The request's size matters only when something would move, and then only
        # whether it reaches the threshold: long tool outputs are not counted for it
        # when the rest already does (the router counts them alongside compression).
        if any(found for _, _, found in aligned) and not tokens_at_least(conv, ctx.counter, cfg.min_request_tokens):
            ctx.decide(NAME, "skipped", f"request below {cfg.min_request_tokens} tokens: provider caches do not apply")
            return conv
        tokens_before = sum(ctx.tokens(b) for b in blocks)
        # The trailing block goes at the end of the last system block: one place, and
        # everything before it is the stable prefix.
        moved: list[tuple[str, str]] = []
        for b, new, found in aligned:
            if found:
                # Values from earlier blocks are listed in their own block's trailer.
                b.text = new
                moved.extend(found)
        prefix = "".join(stable_prefix(b.text or "", cfg.context_header) for b in blocks)
        prefix_hash = hashlib.sha256(prefix.encode("utf-8", "surrogatepass")).hexdigest()[:16]
        tokens = sum(ctx.tokens(b) for b in blocks)
        if moved:
            ctx.decide(NAME, "moved", f"moved {len(moved)} dynamic values out of the system prompt prefix",
                       message_index=-1, tokens_before=tokens_before, tokens_after=tokens,
                       extra={"stable_prefix_hash": prefix_hash, "moved": [k for k, _ in moved]})
        else:
            ctx.decide(NAME, "kept", "no dynamic values in the system prompt", message_index=-1,
                       tokens_before=tokens, tokens_after=tokens, extra={"stable_prefix_hash": prefix_hash})
        return conv
