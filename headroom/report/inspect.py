"""What headroom did to recent proxy requests: ``headroom inspect``.

It reads only what the proxy already keeps, and writes nothing: the metrics rows (which
blocks each request changed, their tokens and CCR hashes, the retrieve calls answered;
``RequestMetrics.blocks`` and ``retrieved``) and the CCR store (each block's original and
the compressed form sent). Both are opened read-only, so it runs in another terminal
while the proxy serves (SQLite readers and the proxy's writer share the file through
SQLite's own locks).

Scoped like retrieval (headroom.ccr.scope): a caller sees the rows of the tenant tags it
holds, and untagged ones; ``tenants=None`` is the admin view of all. A visible row's
originals are readable whoever stored them first: the caller's own request carried each
of them (as ``may_read`` lets a conversation read the markers it carries).
"""

from __future__ import annotations

import difflib
import time
from collections.abc import Collection
from dataclasses import asdict, dataclass, field
from typing import Any

from ..ccr.markers import MARKER_RE
from ..metrics.row import RequestMetrics
from ..metrics.store import MetricsStore

# Why a block's texts are not shown.
STORED = "stored"
EXPIRED = "expired or evicted from the CCR store"
LOSSLESS = "no original kept (the change was lossless or not stored)"
FOLD_RUNS = 8  # the terminal view folds longer runs of removed or added lines (--full: whole texts)


@dataclass
class BlockView:
    message: int | None
    block: int | None
    role: str | None
    tool: str | None
    transform: str
    strategy: str | None
    content_type: str | None
    tokens_before: int
    tokens_after: int
    hash: str | None
    repeat: bool  # the same compressed bytes went out in an earlier request (memo)
    status: str  # STORED, or why the texts are missing
    original: str | None = None
    compressed: str | None = None
    markers: list[str] = field(default_factory=list)  # the retrieval markers in the compressed text
    times_retrieved: int = 0  # reads of this original so far, by any request or MCP client

    def diff(self, context: int = 2, max_run: int | None = None) -> str:
        """The change as a unified diff of lines (original → compressed). With ``max_run``,
        a run of more removed or added lines than that shows its first and last few and
        a count (a 2,000-line log cut to 40 lines is a screen, not 2,000 lines)."""
        if self.original is None or self.compressed is None:
            return ""
        name = f"messages[{self.message}]" if self.message is not None and self.message >= 0 else "system"
        lines = list(difflib.unified_diff(self.original.splitlines(), self.compressed.splitlines(),
                                          f"{name} original", f"{name} sent", n=context, lineterm=""))
        return "\n".join(lines if max_run is None else _fold_runs(lines, max_run))


def _fold_runs(lines: list[str], max_run: int) -> list[str]:
    """Runs of more than ``max_run`` removed (or added) lines folded to their first and
    last lines and a count; the two file header lines stay."""
    out, k = lines[:2], 2
    while k < len(lines):
        sign = lines[k][:1]
        if sign not in ("+", "-"):
            out.append(lines[k])
            k += 1
            continue
        end = k
        while end < len(lines) and lines[end][:1] == sign:
            end += 1
        run = lines[k:end]
        if len(run) > max_run:
            keep = max(1, max_run // 2)
            what = "removed" if sign == "-" else "added"
            run = [*run[:keep], f"⋮ {len(run) - 2 * keep} more lines {what}", *run[-keep:]]
        out += run
        k = end
    return out


@dataclass
class RequestView:
    request_id: str
    timestamp: float
    model: str
    agent: str
    mode: str
    status_code: int | None
    tokens_before: int
    tokens_after: int
    tokens_saved: int
    cached_tokens: int
    retrievals_asked: int
    retrievals_answered: int
    retrieved: list[dict[str, Any]]
    blocks: list[BlockView]
    blocks_omitted: int = 0  # changed blocks the row did not list (see metrics.row.MAX_BLOCKS)
    error: str | None = None

    def to_dict(self, full: bool = False) -> dict[str, Any]:
        """The ``--json`` shape: texts only with ``full``, a diff per block always."""
        d = asdict(self)
        for b, view in zip(d["blocks"], self.blocks):
            b["diff"] = view.diff()
            if not full:
                b.pop("original")
                b.pop("compressed")
        return d


def block_view(item: dict[str, Any], backend: Any, now: float) -> BlockView:
    view = BlockView(item.get("message"), item.get("block"), item.get("role"), item.get("tool"),
                     str(item.get("transform") or ""), item.get("strategy"), item.get("content_type"),
                     int(item.get("before") or 0), int(item.get("after") or 0), item.get("hash"),
                     bool(item.get("repeat")), LOSSLESS)
    if not view.hash or backend is None:
        return view
    entry = backend.get(view.hash)
    if entry is None or entry.expires_at <= now:
        view.status = EXPIRED
    else:
        view.status, view.original, view.compressed = STORED, entry.original, entry.compressed
        view.times_retrieved = entry.retrieval_count
        view.markers = [m.group(0) for m in MARKER_RE.finditer(entry.compressed or "")]
    return view


def request_view(row: RequestMetrics, backend: Any, now: float) -> RequestView:
    items = [b for b in row.blocks if isinstance(b, dict) and "omitted" not in b]
    omitted = sum(int(b.get("omitted") or 0) for b in row.blocks if isinstance(b, dict))
    if not row.blocks and row.ccr_hashes:
        # A row written before blocks were recorded: its CCR hashes are all it knows.
        items = [{"hash": h, "transform": "content_router"} for h in row.ccr_hashes]
    retrieved = [r for r in row.retrieved if isinstance(r, dict)]
    asked = len(retrieved) if retrieved else row.retrievals
    answered = sum(1 for r in retrieved if r.get("found")) if retrieved else row.retrievals
    return RequestView(row.request_id, row.timestamp, row.model, row.agent, row.mode, row.status_code,
                       row.tokens_before, row.tokens_after, row.tokens_saved, row.cached_tokens, asked, answered,
                       retrieved, [block_view(b, backend, now) for b in items], omitted, row.error)


def inspect_requests(metrics: MetricsStore, backend: Any = None, *, last: int = 5,
                     tenants: Collection[str] | None = None, now: float | None = None) -> list[RequestView]:
    """The latest ``last`` requests the caller may see, oldest first, each with the blocks
    it changed (texts from ``backend``, a CCR store backend, when it still holds them)."""
    if last < 1:
        raise ValueError("--last must be at least 1")
    now = time.time() if now is None else now
    rows = metrics.query(limit=last, tenants=tenants)
    return [request_view(r, backend, now) for r in rows]


def _when(ts: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.gmtime(ts)) + " UTC"


def render_text(views: list[RequestView], *, full: bool = False) -> str:
    """The terminal form: a header per request, then each changed block as a diff (or,
    with ``full``, its whole original and the whole text sent)."""
    if not views:
        return "no requests recorded yet for this caller (is the proxy writing to this --metrics-db?)\n"
    out: list[str] = []
    for v in views:
        pct = f" ({100.0 * v.tokens_saved / v.tokens_before:.1f}%)" if v.tokens_before else ""
        out.append(f"== {_when(v.timestamp)}  {v.request_id}  {v.model or '?'}  agent={v.agent or '?'}  "
                   f"mode={v.mode}  status={v.status_code if v.status_code is not None else '-'}")
        out.append(f"   tokens {v.tokens_before:,} -> {v.tokens_after:,}, saved {v.tokens_saved:,}{pct}; "
                   f"cache reads {v.cached_tokens:,}; retrievals asked {v.retrievals_asked}, "
                   f"answered {v.retrievals_answered}")
        for r in v.retrieved:
            out.append(f"   retrieve hash={r.get('hash')}: {'answered' if r.get('found') else 'not found'}")
        if v.error:
            out.append(f"   error: {v.error}")
        if not v.blocks:
            out.append("   no block changed")
        for b in v.blocks:
            where = f"messages[{b.message}]" if b.message is not None and b.message >= 0 else "system"
            what = " ".join(x for x in (where, b.role, f"tool={b.tool}" if b.tool else "", b.strategy or b.transform,
                                         b.content_type) if x)
            out.append(f"-- {what}: {b.tokens_before:,} -> {b.tokens_after:,} tokens"
                       f"{' (repeat of an earlier request)' if b.repeat else ''}"
                       f"{f', hash={b.hash}' if b.hash else ''}{f', retrieved {b.times_retrieved}x' if b.times_retrieved else ''}")
            if b.status != STORED:
                out.append(f"   ({b.status})")
                continue
            for m in b.markers:
                out.append(f"   marker: {m}")
            if full:
                out += ["   --- original ---", b.original or "", "   --- sent ---", b.compressed or ""]
            else:
                out.append(b.diff(max_run=FOLD_RUNS))
        if v.blocks_omitted:
            out.append(f"   … and {v.blocks_omitted} more changed blocks not listed in the metrics row")
        out.append("")
    return "\n".join(out) + "\n"


__all__ = ["BlockView", "RequestView", "inspect_requests", "render_text", "request_view"]
