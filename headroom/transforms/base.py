"""The transform contract.

A transform has a ``name`` and ``apply(conversation, context) -> conversation``. It edits
blocks (``block.text = ...``), drops or inserts whole messages, and records a
:class:`Decision` for every block it looked at through ``context.decide(...)``: what it
did and why. A skip always has a reason; there are no silent no-ops.
"""

from __future__ import annotations

import time
from dataclasses import asdict, dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from ..formats.model import Block, Conversation

if TYPE_CHECKING:
    from ..ccr.store import CompressionStore
    from ..config import HeadroomConfig
    from ..tokens import TokenCounter


@dataclass
class Decision:
    transform: str
    action: str  # compressed | kept | skipped | dropped | moved | shrunk | expanded
    reason: str
    message_index: int | None = None
    block_index: int | None = None
    tool_name: str | None = None
    content_type: str | None = None
    strategy: str | None = None
    tokens_before: int = 0
    tokens_after: int = 0
    ccr_hash: str | None = None
    duration_ms: float = 0.0
    # Transform-specific facts worth reporting (e.g. the stable-prefix hash).
    extra: dict[str, Any] | None = None

    @property
    def tokens_saved(self) -> int:
        return self.tokens_before - self.tokens_after

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["tokens_saved"] = self.tokens_saved
        return d


@dataclass
class TransformContext:
    """What a transform may read besides the conversation, and where it reports."""

    config: HeadroomConfig
    counter: TokenCounter
    store: CompressionStore | None
    model: str | None = None
    query: str = ""
    # Compression memo shared across requests (cache stability, invariant 4).
    memo: Any = None
    # Per-tool compression hints from retrieval feedback: tool name -> aggressiveness
    # in [0, 1] (0 = compress gently, 1 = as hard as allowed). Missing = 0.5.
    hints: dict[str, float] = field(default_factory=dict)
    # Optional relevance scorer (query, items) -> scores; BM25 is used when None.
    relevance: Any = None
    # Learned tool-output patterns (headroom.toin.Toin), or None when TOIN is off.
    toin: Any = None
    decisions: list[Decision] = field(default_factory=list)
    started_at: float = field(default_factory=time.perf_counter)
    # time.monotonic() past which this request compresses nothing more (its budget);
    # None = no budget. Blocks not reached go through unchanged, with a decision saying so.
    deadline: float | None = None

    def budget_spent(self) -> bool:
        return self.deadline is not None and time.monotonic() >= self.deadline

    def block_timeout_ms(self, timeout_ms: float) -> float:
        """One block's deadline: its own limit, cut to what is left of the request's budget."""
        if self.deadline is None:
            return timeout_ms
        return max(0.0, min(timeout_ms, (self.deadline - time.monotonic()) * 1000))

    def decide(self, transform: str, action: str, reason: str, **kw: Any) -> Decision:
        d = Decision(transform, action, reason, **kw)
        self.decisions.append(d)
        return d

    def tokens(self, block: Block) -> int:
        return block_tokens(block, self.counter)


# Texts at least this long (a few hundred tokens and up) are counted while their
# compressor runs (transforms/router.py) rather than before the transforms: BPE releases
# the GIL, so the count overlaps detection and compression; shorter texts cost less to
# count than to hand over. The pipeline's input total and the cache aligner's size check
# leave them for last for the same reason.
COUNT_ALONGSIDE_CHARS = 1024

# Key in ``Block.meta`` of the block's last token count: (counter, text object, tokens).
_TOKENS_KEY = "_tokens"
# The same for the text the block arrived with, once a stage has replaced it: the
# pipeline's "tokens before" total reads it instead of counting the original again.
_ORIGINAL_KEY = "_tokens_original"


def block_tokens(block: Block, counter: TokenCounter) -> int:
    """Tokens of one block. The count is remembered on the block for as long as its text
    is the very same string object, so the stages that each need it (input total,
    router, context budget, output total) count a large tool output once instead of
    re-hashing megabytes for the counter's cache every time."""
    if block.text is not None:
        n = known_tokens(block, counter)
        if n is None:
            n = counter.count(block.text)
            remember_tokens(block, counter, n)
        return n
    tok = block.meta.get("token_text")
    if tok:
        return counter.count(tok)
    est = block.meta.get("tokens")
    return int(est) if est else 0


def known_tokens(block: Block, counter: TokenCounter) -> int | None:
    """The block's token count if some stage already took it for its current text."""
    cached = block.meta.get(_TOKENS_KEY)
    if cached is not None and cached[0] is counter and cached[1] is block.text:
        return cached[2]
    return None


def counted_later(block: Block, counter: TokenCounter) -> bool:
    """A long text not counted yet: left for the router to take alongside compression
    (COUNT_ALONGSIDE_CHARS) rather than counted up front. Its count is one BPE call, exact
    or the sampled estimate's, so it overlaps the compressor's Python work."""
    text = block.text
    return text is not None and len(text) >= COUNT_ALONGSIDE_CHARS and known_tokens(block, counter) is None


def remember_tokens(block: Block, counter: TokenCounter, tokens: int) -> None:
    """Record a count of the block's current text taken (or known) elsewhere."""
    block.meta[_TOKENS_KEY] = (counter, block.text, tokens)


def original_tokens(block: Block, text: str, counter: TokenCounter) -> int:
    """Tokens of ``text``, the block's text before any stage replaced it: the count a
    stage took of it on the way, else counted now."""
    for key in (_ORIGINAL_KEY, _TOKENS_KEY):
        cached = block.meta.get(key)
        if cached is not None and cached[0] is counter and cached[1] is text:
            return cached[2]
    return counter.count(text)


def set_block_text(block: Block, text: str, tokens: int, counter: TokenCounter) -> None:
    """Replace a block's text with one whose token count the caller already knows."""
    old = block.meta.get(_TOKENS_KEY)
    if old is not None and old[1] is block.text and _ORIGINAL_KEY not in block.meta:
        block.meta[_ORIGINAL_KEY] = old
    block.text = text
    block.meta[_TOKENS_KEY] = (counter, text, tokens)


class Transform(Protocol):
    name: str

    def apply(self, conversation: Conversation, context: TransformContext) -> Conversation: ...
