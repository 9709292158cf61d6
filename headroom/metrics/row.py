"""One row of request metrics: what a request cost and what headroom saved on it.

The columns follow the seed project's metrics table so existing dashboards keep working;
list- and dict-valued columns are stored as JSON text in SQLite.
"""

from __future__ import annotations

import time
import uuid
from dataclasses import asdict, dataclass, field, fields
from typing import Any

from ..modes import ALL_MODES, OPTIMIZE

MODES = ALL_MODES


@dataclass
class RequestMetrics:
    timestamp: float = field(default_factory=time.time)  # epoch seconds (UTC)
    request_id: str = field(default_factory=lambda: uuid.uuid4().hex[:16])
    provider: str = ""  # openai | anthropic | google | …
    model: str = ""
    mode: str = OPTIMIZE  # optimize | audit | simulate | passthrough
    tokens_before: int = 0  # input tokens the client sent
    # In audit and simulate modes nothing is forwarded compressed: tokens_after and
    # tokens_saved are what optimize *would* have sent and saved ("potential" savings).
    tokens_after: int = 0
    tokens_saved: int = 0
    transforms_applied: list[str] = field(default_factory=list)
    # Tokens saved per transform ("router:smart_crusher" -> 1234) and per tool name:
    # the report's "by transform" and "top tools" tables read these.
    transform_savings: dict[str, int] = field(default_factory=dict)
    tool_savings: dict[str, int] = field(default_factory=dict)
    tool_names: list[str] = field(default_factory=list)
    cached_tokens: int = 0  # provider prompt-cache hits reported in the response usage
    output_tokens: int = 0
    latency_ms: float = 0.0  # whole request, upstream included
    compression_ms: float = 0.0  # headroom's own time
    stream: bool = False
    status_code: int | None = None
    ccr_hashes: list[str] = field(default_factory=list)
    retrievals: int = 0  # headroom_retrieve calls answered for this request
    cost_saved_usd: float | None = None  # input price × tokens_saved when the price is known
    error: str | None = None
    # What `headroom inspect` and `headroom savings` read (columns added later: a row of
    # an older database reads them as their defaults, see store.py).
    tenant: str | None = None  # headroom.ccr.scope tag of the caller's credential; None = untagged
    agent: str = ""  # product of the client's user agent (claude-cli, codex_exec, openai-python)
    cache_write_tokens: int = 0  # provider prompt-cache writes reported in the response usage
    # Tokens saved in blocks already sent compressed in an earlier request (memo hits):
    # they sit in the prompt-cache prefix, so direct they would have been cache reads.
    # None on rows written before this column existed.
    repeat_saved: int | None = None
    # The blocks this request changed, one dict each (see blocks_of_result), and the
    # headroom_retrieve calls answered for it: [{"hash", "found"}].
    blocks: list[dict[str, Any]] = field(default_factory=list)
    retrieved: list[dict[str, Any]] = field(default_factory=list)

    @property
    def savings_ratio(self) -> float:
        return self.tokens_saved / self.tokens_before if self.tokens_before else 0.0

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> RequestMetrics:
        """Build a row from a dict, ignoring keys this version does not know."""
        known = {f.name for f in fields(cls)}
        # A NULL in a column that is never None (a row written by an older version, before
        # the column existed) means the column's default: empty, zero, "".
        return cls(**{k: v for k, v in data.items() if k in known and not (v is None and k in NOT_NULL)})

    @classmethod
    def from_pipeline(cls, result: Any, *, mode: str = OPTIMIZE, **columns: Any) -> RequestMetrics:
        """A row from a :class:`~headroom.pipeline.PipelineResult` plus request columns.

        Savings per transform and per tool are the pipeline's own (``result.savings``,
        summed once from the decisions the transforms recorded).
        """
        s = result.savings
        row = cls(
            mode=mode,
            tokens_before=result.tokens_before,
            tokens_after=result.tokens_after,
            tokens_saved=result.tokens_saved,
            transforms_applied=list(result.transforms_applied),
            transform_savings=dict(s.by_transform),
            tool_savings=dict(s.by_tool),
            tool_names=list(s.tools),
            compression_ms=round(result.duration_ms, 3),
            ccr_hashes=list(result.ccr_hashes),
            blocks=blocks_of_result(result),
            repeat_saved=sum(d.tokens_saved for d in result.decisions if _is_repeat(d)),
        )
        for k, v in columns.items():
            if not hasattr(row, k):
                raise TypeError(f"RequestMetrics has no column {k!r}")
            setattr(row, k, v)
        return row


COLUMNS: tuple[str, ...] = tuple(f.name for f in fields(RequestMetrics))
NOT_NULL = frozenset(f.name for f in fields(RequestMetrics) if f.default is not None)
JSON_COLUMNS = frozenset({"transforms_applied", "transform_savings", "tool_savings", "tool_names", "ccr_hashes",
                          "blocks", "retrieved"})


# Actions that change what is sent (as PipelineResult.transforms_applied counts them).
_CHANGING = frozenset({"compressed", "moved", "shrunk", "dropped", "expanded"})
# A request of a long session lists every compressed block of its history again; the
# row keeps the first ones and says how many it left out.
MAX_BLOCKS = 200


def _is_repeat(decision: Any) -> bool:
    """A block rendered from the memo: the same compressed bytes went out in an earlier request."""
    return decision.action == "compressed" and str(decision.reason).startswith("memo hit")


def blocks_of_result(result: Any) -> list[dict[str, Any]]:
    """One small dict per block the pipeline changed: where it is, whose it is, what did
    it, tokens before and after, the CCR hash of its original, whether it repeats an
    earlier request's compressed form. Texts stay in the CCR store (by hash), never here."""
    messages = getattr(result.conversation, "messages", [])
    out: list[dict[str, Any]] = []
    changed = [d for d in result.decisions if d.action in _CHANGING]
    for d in changed[:MAX_BLOCKS]:
        i = d.message_index
        role = messages[i].role.value if isinstance(i, int) and 0 <= i < len(messages) else ("system" if i == -1 else None)
        out.append({"message": i, "block": d.block_index, "role": role, "tool": d.tool_name,
                    "transform": d.transform, "action": d.action, "strategy": d.strategy,
                    "content_type": d.content_type, "before": d.tokens_before, "after": d.tokens_after,
                    "hash": d.ccr_hash, "repeat": _is_repeat(d)})
    if len(changed) > MAX_BLOCKS:
        out.append({"omitted": len(changed) - MAX_BLOCKS})
    return out
