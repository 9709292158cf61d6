"""ContentRouter: detect what each tool output is and send it to the right compressor.

The router owns everything compressors share: protections, the minimum size, the
deadline, "never worse" (a result that does not save enough is discarded), CCR storage
and the retrieval marker, the memo that keeps a compressed form byte-stable across turns,
and the decision record.
"""

from __future__ import annotations

import dataclasses
import functools
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass
from typing import Any

from ..ccr.markers import format_marker
from ..compressors import agent_frames, long_lines
from ..compressors.base import CompressInput, Compressor, PendingTokens, hint_of
from ..compressors.detect import ContentType, Detected, detect, first_visible_char, is_source_file
from ..compressors.log_records import LogRecordsCompressor
from ..compressors.log_records import layout_of as log_records_layout
from ..compressors.sections import HOSTS as SECTION_HOSTS
from ..compressors.sections import SectionsCompressor
from ..compressors.sections import plan as plan_sections
from ..compressors.structured import claim as claim_structured
from ..compressors.structured import refine as refine_structured
from ..formats.model import Conversation, content_hash
from ..providers import context_window
from ..query.anchors import extract_anchors
from ..query.bounded import bound_question
from ..query.code_words import with_code_words
from ..toin import hooks as toin_hooks
from ..token_accounting import remember_hash
from ..tokens import QUICK_EXACT_CHARS, LazyTokens, exact
from .base import (
    COUNT_ALONGSIDE_CHARS,
    TransformContext,
    known_tokens,
    remember_tokens,
    set_block_text,
)
from .deadline import Inline, run_with_deadline, start_with_deadline
from .observations import DETECTED_META, observation_blocks, routed
from .protect import protection_reason

NAME = "content_router"
# Outputs up to this size are compressed on the caller's thread (deadline.Inline): a
# hand-over to a compression thread costs more than their compression on a busy machine.
INLINE_CHARS = 6_000


@dataclass(frozen=True)
class MemoEntry:
    text: str | None  # None: the original was kept
    original_tokens: int | LazyTokens
    tokens: int | LazyTokens
    strategy: str | None
    content_type: str
    ccr_hash: str | None
    items_before: int
    items_after: int
    reason: str


class CompressionMemo:
    """LRU map (content hash, tool, config) -> what we rendered for it the first time.

    Invariant 4: a tool result compressed in turn 1 renders with the same bytes in every
    later turn, whatever the latest question is, so provider prompt caches keep hitting.
    """

    def __init__(self, capacity: int = 4096, *, read_store: bool = True):
        self.capacity = capacity
        # Also reuse compressed forms recorded in CCR entries by earlier processes (see
        # ``stored_memo``). Measurements that judge each question on its own compressed
        # form (evals, benchmarks) turn this off along with starting a fresh memo.
        self.read_store = read_store
        self._data: OrderedDict[tuple, MemoEntry] = OrderedDict()
        self._lock = threading.Lock()
        self.hits = 0
        self.misses = 0

    def get(self, key: tuple) -> MemoEntry | None:
        with self._lock:
            e = self._data.get(key)
            if e is None:
                self.misses += 1
                return None
            self.hits += 1
            self._data.move_to_end(key)
            return e

    def put(self, key: tuple, entry: MemoEntry) -> None:
        with self._lock:
            self._data[key] = entry
            self._data.move_to_end(key)
            while len(self._data) > self.capacity:
                self._data.popitem(last=False)

    def __len__(self) -> int:
        return len(self._data)


def default_compressors() -> dict[ContentType, Compressor]:
    from ..compressors.code import CodeCompressor
    from ..compressors.diagnostics import DiagnosticsCompressor
    from ..compressors.diff import DiffCompressor
    from ..compressors.gitlog import GitLogCompressor
    from ..compressors.html import HTMLCompressor
    from ..compressors.listing import ListingCompressor
    from ..compressors.logs import LogCompressor
    from ..compressors.search import SearchCompressor
    from ..compressors.smart_crusher import SmartCrusher
    from ..compressors.structured import StructuredCompressor
    from ..compressors.tables.csv_compressor import TableCompressor
    from ..compressors.text import TextCrusher

    crusher = SmartCrusher()
    logs = LogCompressor()
    return {
        ContentType.JSON_ARRAY: crusher,
        ContentType.JSON_OBJECT: crusher,
        ContentType.LOG: logs,
        # A report that is mostly something else (a build log with a few warnings) falls
        # back to the log compressor.
        ContentType.DIAGNOSTICS: DiagnosticsCompressor(fallback=logs),
        ContentType.SEARCH: SearchCompressor(),
        ContentType.DIFF: DiffCompressor(),
        ContentType.TABLE: TableCompressor(),
        ContentType.GIT_LOG: GitLogCompressor(),
        ContentType.LISTING: ListingCompressor(),
        ContentType.HTML: HTMLCompressor(),
        ContentType.CODE: CodeCompressor(),
        ContentType.STRUCTURED: StructuredCompressor(),
        ContentType.TEXT: TextCrusher(),
    }


SECOND_TRY_TYPES = (ContentType.LOG, ContentType.DIAGNOSTICS, ContentType.CODE, ContentType.JSON_ARRAY, ContentType.JSON_OBJECT)


class ContentRouter:
    name = NAME

    def __init__(
        self,
        compressors: dict[ContentType, Compressor] | None = None,
        *,
        text_compressor_override: Compressor | None = None,
    ):
        self.compressors = compressors if compressors is not None else default_compressors()
        # A JSON array of log records is selected like a text log, not by SmartCrusher
        # (compressors/log_records.py); only with the default compressors, so a caller's
        # own JSON compressor sees every array.
        self.log_records: Compressor | None = None
        if compressors is None:
            self.log_records = LogRecordsCompressor()
        # Small outputs run inline only through the shipped compressors, whose cost the
        # input's size bounds; a caller's own (or a model) keeps its thread and deadline.
        self.inline_chars = INLINE_CHARS if compressors is None and text_compressor_override is None else 0
        # LLMLingua-2 (when enabled) replaces the prose compressor, and is the second try
        # for logs, code and JSON that their deterministic compressor left as they were:
        # that is where its per-type rates (log_rate, code_rate, json_rate) apply.
        self.second_try: dict[ContentType, Compressor] = {}
        if text_compressor_override is not None:
            self.compressors = {**self.compressors, ContentType.TEXT: text_compressor_override}
            self.second_try = {t: text_compressor_override for t in SECOND_TRY_TYPES}
        # Outputs made of parts of different kinds (a command's table, then a report):
        # each part goes to its own type's compressor (compressors/sections.py).
        self.sections = SectionsCompressor(self.compressors, refine=refine_structured)

    def apply(self, conv: Conversation, ctx: TransformContext) -> Conversation:
        cfg = ctx.config
        if not cfg.router.enabled:
            return conv
        anchors = extract_anchors(ctx.query)
        # Tool outputs, and earlier user turns whose body is one (transforms/observations.py).
        for i, j, found in [*conv.tool_results(), *observation_blocks(conv, ctx)]:
            block, frame = routed(found)  # an observation's output without the agent's framing
            where = {"message_index": i, "block_index": j, "tool_name": block.tool_name}
            reason = protection_reason(conv, i, block, cfg)
            if reason:
                ctx.decide(NAME, "skipped", reason, **where)
                continue
            text = block.text
            assert text is not None  # protection_reason rejects non-string content
            # A long output is counted while its compressor runs (see _compress); a memo
            # hit knows the count already and never counts at all.
            tokens = known_tokens(block, ctx.counter)
            if tokens is None and len(text) < COUNT_ALONGSIDE_CHARS:
                tokens = ctx.tokens(block)
            if tokens is not None and tokens < cfg.router.min_tokens:
                self._below_minimum(ctx, tokens, where)
                continue
            block_anchors = extract_anchors(block_query(ctx, block)) if block.tool_intent else anchors
            text_hash = content_hash(text)  # memo key, marker hash and CCR key: hashed once
            # The tokenizer is part of the key: compressors decide on token counts, and the
            # entry's count is the block's count from here on.
            # So is what the output was read for: an agent that reads the same file again
            # for another function gets it compressed for that function, while each earlier
            # read keeps its own bytes (its calling turn, and so its key, never changes).
            key = (text_hash, block.tool_name or "", cfg.fingerprint(), self._override_name(),
                   f"{ctx.counter.encoding_name}x{ctx.counter.factor}", intent_key(block))
            t0 = time.perf_counter()
            in_memo = ctx.memo.get(key) if ctx.memo is not None else None
            stored = None
            # A memo passed in by a caller may be any object with get/put: reading the
            # store is then the default.
            if in_memo is None and ctx.memo is not None and getattr(ctx.memo, "read_store", True) \
                    and ctx.store is not None and cfg.ccr.enabled:
                stored = stored_memo(ctx.store, key)
            memo_hit = in_memo or stored
            if memo_hit is not None:
                entry = memo_hit
                if tokens is None:  # the same bytes and tokenizer: the count the entry was made with
                    tokens = entry.original_tokens
                    if len(text) <= QUICK_EXACT_CHARS:  # longer: an estimate (see _compress)
                        remember_tokens(block, ctx.counter, tokens)
            else:
                entry, tokens = self._compress(text, key, tokens, block, block_anchors, ctx)
                if entry is None:
                    self._below_minimum(ctx, tokens, where)
                    continue
            if ctx.memo is not None and in_memo is None:
                ctx.memo.put(key, entry)
            elapsed = (time.perf_counter() - t0) * 1000
            if entry.text is None:
                ctx.decide(NAME, "kept", entry.reason, content_type=entry.content_type, tokens_before=tokens,
                           tokens_after=tokens, duration_ms=elapsed, **where)
                continue
            if memo_hit is not None and entry.ccr_hash:
                toin_hooks.observe(ctx.toin, "observe_question", entry.ccr_hash, ctx.query)
            if memo_hit is not None and entry.ccr_hash and ctx.store is not None:
                # Refresh the TTL (and re-create the entry after a restart or eviction).
                ctx.keep_original(text, refresh=True, known_hash=text_hash, compressed=entry.text, tool_name=block.tool_name,
                                original_tokens=tokens, compressed_tokens=entry.tokens, item_count=entry.items_before,
                                meta=memo_meta(key, entry))
            set_block_text(block, entry.text, entry.tokens, ctx.counter)
            if frame is not None:
                frame.write_back(ctx.counter)
            how = "memo hit" if in_memo else "memo hit (from the CCR store)" if stored else entry.reason
            ctx.decide(NAME, "compressed", how, content_type=entry.content_type,
                       strategy=entry.strategy, tokens_before=tokens, tokens_after=entry.tokens,
                       ccr_hash=entry.ccr_hash, duration_ms=elapsed, **where)
        return conv

    @staticmethod
    def _below_minimum(ctx: TransformContext, tokens: int, where: dict) -> None:
        minimum = ctx.config.router.min_tokens
        ctx.decide(NAME, "skipped", f"below {minimum} tokens", tokens_before=tokens, tokens_after=tokens, **where)

    def _override_name(self) -> str:
        c = self.compressors.get(ContentType.TEXT)
        return getattr(c, "name", "")

    def _compress(self, text, key, tokens, block, anchors, ctx: TransformContext) -> tuple[MemoEntry | None, int]:
        """The block's memo entry and its token count; (None, count) when the count, taken
        here, turns out below ``router.min_tokens``. With ``tokens`` None the count is
        taken on this thread while the compressor's thread detects and compresses:
        tiktoken releases the GIL while it encodes, so the two overlap."""
        cfg = ctx.config
        counter = ctx.counter
        if ctx.budget_spent():  # before asking for a thread: no thread, no straggler refusal
            tokens = tokens if tokens is not None else ctx.tokens(block)
            if tokens < cfg.router.min_tokens:
                return None, tokens
            reason = "the request's compression budget is spent" + over_window(tokens, ctx)
            return MemoEntry(None, tokens, tokens, None, "unknown", None, 0, 0, reason), tokens
        count_key = counter.cache_key(text) if tokens is None else ""
        if tokens is None:
            tokens = counter.cached(count_key)
            if tokens is not None:
                remember_tokens(block, counter, tokens)
        inline = len(text) <= self.inline_chars
        if tokens is None and inline:
            if len(text) >= SURELY_ABOVE_MINIMUM * cfg.router.min_tokens:
                # Nothing in the call needs the exact count (issue 34): whoever reports it
                # counts it, after the call. Only the minimum needed a figure, and a text
                # this long is above it.
                tokens = LazyTokens(counter, text, count_key)
            else:
                tokens = counter.count_uncached(text, count_key)  # counted first: nothing to overlap with
                if tokens < cfg.router.min_tokens:
                    remember_tokens(block, counter, tokens)
                    return None, tokens
            remember_tokens(block, counter, tokens)
        first = _FirstTry(self, text, block, anchors, ctx, key[0], tokens if tokens is not None else PendingTokens())
        pending = Inline(first, None) if inline \
            else start_with_deadline(first, None, ctx.block_timeout_ms(cfg.router.timeout_ms))
        if tokens is None:
            # Nothing between the hand-over and the BPE may release the GIL (hashing,
            # I/O): the compressor's thread would take it, and this one would wait for it
            # instead of counting alongside.
            # A long text is estimated here (issue 34): the keep-or-not decisions need
            # no exact count, and the exact one, as costly as compressing, is taken only
            # where a total is read (PipelineResult, after the request is forwarded).
            exactly = len(text) <= QUICK_EXACT_CHARS or counter.exact
            try:
                tokens = counter.count_uncached(text, count_key) if exactly else counter.quick_count(text)
            finally:
                first.tokens.resolve(tokens)  # type: ignore[union-attr]
            if exactly:
                remember_tokens(block, counter, tokens)
            else:
                remember_hash(block, counter, text, count_key)
        result = pending.wait()
        if type(tokens) is int and tokens < cfg.router.min_tokens:
            return None, tokens
        ctype, compressor, inp, hints, prof = first.ctype, first.compressor, first.inp, first.hints, first.prof

        def kept(reason: str) -> MemoEntry:
            return MemoEntry(None, tokens, tokens, None, ctype.value if ctype else "unknown", None, 0, 0,
                             reason + over_window(tokens, ctx))

        if inp is not None:
            inp.tokens = tokens
        second = self.second_try.get(ctype) if ctype is not None else None
        if second is not None and inp is not None and second is not compressor \
                and (result is None or isinstance(result, str)) and not ctx.budget_spent():
            retry = run_with_deadline(second.compress, inp, ctx.block_timeout_ms(cfg.router.timeout_ms))
            if retry is not None and not isinstance(retry, str):
                compressor, result = second, retry
        if isinstance(result, str):
            return kept(result), tokens
        if result is None:
            return kept(f"{compressor.name}: nothing to compress"), tokens
        if kept_nearly_all(result.text, text, cfg.router.min_savings):
            return kept(f"{compressor.name}: saved too little ({len(text)} -> {len(result.text)} characters, "
                        f"not counted)"), tokens
        if result.lossy and (ctx.store is None or not cfg.ccr.enabled):
            return kept(f"{compressor.name}: lossy result discarded (no CCR store to keep the original)"), tokens
        # The first try rendered and counted its own result on its thread (see _FirstTry).
        out, out_tokens = first.rendered[1:] if first.rendered and first.rendered[0] is result \
            else rendered(result, key[0], ctx)
        h = key[0] if result.lossy else None
        if not saved_surely(out, text, cfg.router.min_savings) \
                and exact(out_tokens) > exact(tokens) * (1 - cfg.router.min_savings):
            return kept(f"{compressor.name}: saved too little ({exact(tokens)} -> {exact(out_tokens)} tokens)"), tokens
        why = "; ".join(w for w in (first.why, hints.reason() if hints else "", over_window(out_tokens, ctx, True)[2:])
                        if w)
        entry = MemoEntry(out, tokens, out_tokens, f"{compressor.name}:{result.strategy}", ctype.value, h,
                          result.items_before, result.items_after, f"compressed; {why}" if why else "compressed")
        if h is not None:
            meta = memo_meta(key, entry)
            if prof is not None:
                meta["toin"] = prof.signature  # how a later retrieval finds its pattern
            ctx.keep_original(text, known_hash=h, compressed=out, tool_name=block.tool_name, original_tokens=tokens,
                            compressed_tokens=out_tokens, item_count=result.items_before, meta=meta)
        if prof is not None:
            toin_hooks.observe(ctx.toin, "observe_compression", prof, strategy=entry.strategy,
                               items_before=result.items_before, items_after=result.items_after,
                               lossy=h is not None, ccr_hash=h, query=ctx.query, steered=bool(hints))
        return entry, tokens


class _FirstTry:
    """What runs on the compressor's thread: detection, TOIN steering and the compressor
    chosen for the detected type. What it learned on the way (type, compressor, input,
    hints) stays readable by the router, also when the call timed out or failed."""

    def __init__(self, router: ContentRouter, text: str, block, anchors, ctx: TransformContext, text_hash: str,
                 tokens: int | PendingTokens):
        self.router, self.text, self.block, self.anchors, self.ctx = router, text, block, anchors, ctx
        self.text_hash, self.tokens = text_hash, tokens
        self.ctype: ContentType | None = None
        self.compressor: Compressor | None = None
        self.inp: CompressInput | None = None
        self.hints = None
        self.prof = None
        self.why = ""  # why the output went to its compressor, when detection says (a log's shape)
        # (the compressor's result, its text as sent, that text's tokens), once rendered below
        self.rendered: tuple[Any, str, int] | None = None

    def __call__(self, _arg=None):
        ctx, cfg, block = self.ctx, self.ctx.config, self.block
        # An agent's frame around the output (an exec header, a saved-output notice) is
        # taken off here and put back verbatim on the result: detection sees the body.
        frame = agent_frames.split(self.text)
        text = frame.body if frame is not None else self.text
        split = long_lines.split(text) if long_lines.needs_split(text) and first_visible_char(text) not in "[{" \
            else None
        if split is not None:  # one enormous line: compressors select lines, so give them some
            text = split[0]
        # Config, build and query files, templates and Markdown, by their lines' grammar
        # (compressors/structured/): whole lines kept or elided, never rewritten. An
        # observation in a user turn was read by the detector already (observations.py).
        detected = claim_structured(text) or (block.meta.get(DETECTED_META) if split is None else None) \
            or detect(text)
        # Planning parts detects every large block: refine asks first (plain lines or
        # parts?), the router after it; planned once per call (issue 34: 13 ms twice).
        plan_once = functools.cache(plan_sections)
        if is_source_file(block.tool_arguments, detected.type):  # read_file {"path": "app.py"}: code
            detected = Detected(ContentType.CODE, why="the tool call's path names a source file")
        else:  # plain text that is not prose: whole lines too
            detected = refine_structured(text, detected, plan_once)
        self.ctype = ctype = detected.type
        self.why = "; ".join(w for w in (split[1] if split else "", detected.why) if w)
        parts = plan_once(text) if ctype in SECTION_HOSTS else None
        self.compressor = compressor = self.router.sections if parts else self.router.compressors.get(ctype)
        records = self.router.log_records
        if records is not None and ctype is ContentType.JSON_ARRAY and not parts \
                and (layout := log_records_layout(detected.parsed)) is not None:
            self.compressor, compressor, self.why = records, records, layout.reason
        if compressor is None:
            return f"no compressor for {ctype.value}"
        self.prof, hints = toin_hooks.steer(ctx.toin, detected.parsed, ctype.value, block.tool_name)
        self.hints = hints
        if hints is not None and hints.skip and not toin_hooks.probe(self.text_hash, cfg.toin.probe_every):
            return hints.reason()
        if ctx.budget_spent():
            return "the request's compression budget is spent"
        self.inp = inp = CompressInput(
            deadline=ctx.deadline,
            text=text,
            config=cfg,
            counter=ctx.counter,
            query=block_query(ctx, block),
            anchors=self.anchors,
            tool_name=block.tool_name,
            tool_arguments=block.tool_arguments,
            aggressiveness=ctx.hints.get(block.tool_name or "", 0.5),
            relevance=ctx.relevance,
            parsed=detected.parsed,
            hint=hint_of(detected),
            tokens=self.tokens,
            toin=hints,
        )
        result = compressor.compress(inp, parts) if parts else compressor.compress(inp)  # type: ignore[call-arg]
        if result is None and compressor is self.router.log_records and ctype in self.router.compressors:
            # Every record worth keeping: the JSON compressor's lossless forms may still save.
            self.compressor = compressor = self.router.compressors[ctype]
            self.why = ""
            result = compressor.compress(inp)
        if frame is not None and result is not None and not isinstance(result, str):
            result = dataclasses.replace(result, text=frame.wrap(result.text))
        if result is not None and not isinstance(result, str) \
                and not kept_nearly_all(result.text, self.text, cfg.router.min_savings):
            # Rendered and counted here, while the router's thread may still be counting
            # the input: both counts release the GIL, so on a table that compresses faster
            # than it counts, the output's count no longer follows the wait.
            self.rendered = (result, *rendered(result, self.text_hash, ctx))
        return result


def intent_key(block) -> str:
    """The memo key's part for a tool output's own calling turn ("" without one)."""
    return content_hash(block.tool_intent)[:16] if block.tool_intent else ""


def block_query(ctx: TransformContext, block) -> str:
    """What a tool output is read for: the conversation's question plus what the assistant
    said when it made the call (an agent's tool results usually follow a task stated many
    turns earlier; "let me see how defaults are parsed" names what this output is for)."""
    if not block.tool_intent:
        return with_code_words(ctx.query)
    return with_code_words(bound_question(f"{ctx.query}\n{block.tool_intent}"))


def kept_nearly_all(out: str, text: str, min_savings: float) -> bool:
    """Whether a compressor's output keeps so much of the input's characters that it
    cannot save ``min_savings`` of its tokens: it is then discarded uncounted (issue 34:
    counting an output as large as its input cost more than the rest of the call).

    Not a strict bound (tokens are not characters), hence a third of the margin: at 10 %
    required savings, an output with at least 96.7 % of the characters would need the
    removed 3.3 % to hold 10 % of the tokens, three times the text's own token density.
    """
    return len(out) >= len(text) * (1 - min_savings / 3)


def saved_surely(out: str, text: str, min_savings: float) -> bool:
    """Whether ``out`` (with its marker) saves ``min_savings`` of ``text``'s tokens by a
    margin that characters alone show, so that neither needs counting (issue 34). A cut of
    a quarter more characters than the tokens asked for holds unless the lines kept are far
    denser in tokens than those elided; nearer the line both are counted."""
    return len(out) <= len(text) * (1 - min_savings) * SURE_MARGIN


# A text at least this many characters per token of ``router.min_tokens`` is above the
# minimum without counting: tool output runs 2.5-5 characters a token, and only long runs
# of one repeated character (tiktoken merges up to ~80 spaces) come near 8.
SURELY_ABOVE_MINIMUM = 8
# saved_surely(): the characters' cut must pass the tokens' asked cut by this factor.
SURE_MARGIN = 0.75


def over_window(tokens: int | LazyTokens, ctx: TransformContext, compressed: bool = False) -> str:
    """What a decision adds when the block, as sent, is alone larger than the model's
    context window ("" otherwise): nobody should find that out from the provider's error.
    A count not taken yet is taken only when its text could exceed the window."""
    if not ctx.model:
        return ""
    window = context_window(ctx.model)
    if type(tokens) is not int:
        if tokens.at_most() <= window:
            return ""
        tokens = int(tokens)
    if tokens <= window:
        return ""
    state = "still" if compressed else "left unchanged at"
    return f"; {state} {tokens} tokens, more than {ctx.model}'s context window ({window})"


def rendered(result, text_hash: str, ctx: TransformContext) -> tuple[str, int | LazyTokens]:
    """A compressor's result as the block's new text (with its retrieval marker when lossy
    and markers are on) and that text's tokens."""
    out = result.text
    marker = ""
    if result.lossy and ctx.config.ccr.inject_retrieval_marker and ctx.store is not None:
        marker = format_marker(result.items_before, result.items_after, text_hash, ctx.store.ttl_seconds,
                               result.summary)
        tail = f" {result.comment_end}" if getattr(result, "comment_end", "") else ""
        marker = f"\n{result.comment} {marker}{tail}" if result.comment else "\n" + marker
    if len(out) + len(marker) <= QUICK_EXACT_CHARS:
        # Counted exactly by whoever reads the figure, after the call (issue 34).
        return out + marker, LazyTokens(ctx.counter, out + marker)
    # Above 16 000 characters estimated now, in parts (the joint count differs by at most
    # a token at the seam): exact BPE of a 20 kB output costs more than compressing it did.
    out_tokens = ctx.counter.quick_count(out) + (ctx.counter.count(marker) if marker else 0)
    return out + marker, out_tokens


def memo_meta(key: tuple, entry: MemoEntry) -> dict:
    """What a CCR entry records so another process can reuse its compressed form."""
    return {"memo": {"key": list(key[1:]), "strategy": entry.strategy, "content_type": entry.content_type,
                     "items_after": entry.items_after}}


def stored_memo(store, key: tuple) -> MemoEntry | None:
    """The compressed form an earlier process (or another replica sharing the store)
    rendered for this content, tool, config and tokenizer, read back from its CCR entry.

    Only lossy results are stored, and only those depend on the question of the turn;
    lossless and kept results come out the same on any turn. So after a restart the same
    history still renders with the same bytes, and provider prompt caches keep hitting.
    """
    e = store.get(key[0])
    memo = e.meta.get("memo") if e is not None and isinstance(e.meta, dict) else None
    if not isinstance(memo, dict) or memo.get("key") != list(key[1:]) or e.compressed is None:
        return None
    return MemoEntry(e.compressed, e.original_tokens, e.compressed_tokens, memo.get("strategy"),
                     memo.get("content_type") or "", e.hash, e.item_count, int(memo.get("items_after") or 0),
                     "compressed")


