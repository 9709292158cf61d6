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

from ..ccr.scope import tagged
from ..formats.model import Block, Conversation

# The counts and their memo live in headroom/token_accounting.py; all but block_tokens
# (TransformContext.tokens) are re-exported for transforms/router.py, which still
# imports them from here.
from ..token_accounting import (  # noqa: F401
    COUNT_ALONGSIDE_CHARS,
    block_tokens,
    known_tokens,
    remember_tokens,
    set_block_text,
)
from ..tokens import TokenField

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
    # Counts, or LazyTokens that count the first time they are read (issue 34: the exact
    # count of an output is taken by whoever reports it, not inside the call).
    tokens_before: int = TokenField()  # type: ignore[assignment]
    tokens_after: int = TokenField()  # type: ignore[assignment]
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
    # The tenant tag (headroom.ccr.scope) of whoever sent this request: every original kept
    # through keep_original() records it, so only that tenant (or its conversation) reads it back.
    tenant: str | None = None

    @property
    def keeps_originals(self) -> bool:
        """Whether a lossy change may be made: there is a CCR store to keep the original."""
        return self.store is not None and self.config.ccr.enabled

    def keep_original(self, original: str, *, refresh: bool = False, meta: dict[str, Any] | None = None,
                      **entry: Any) -> str:
        """Keep ``original`` in the CCR store and return its hash: the one way a transform
        makes a change reversible. The entry records this request's tenant, and lives for
        the store's TTL (``store.ttl_seconds``, what the marker's "Expires in" says) from
        now; ``refresh`` re-keeps an entry a memo hit reuses (its TTL starts again, and an
        entry lost to a restart or eviction comes back). ``entry``: ``compressed``,
        ``tool_name``, ``original_tokens``, ``compressed_tokens``, ``item_count``,
        ``known_hash`` (see ``CompressionStore.store``)."""
        if self.store is None:
            raise RuntimeError("no CCR store to keep the original (check keeps_originals first)")
        keep = self.store.refresh if refresh else self.store.store
        return keep(original, meta=tagged(meta, self.tenant), **entry)

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


class Transform(Protocol):
    name: str

    def apply(self, conversation: Conversation, context: TransformContext) -> Conversation: ...
