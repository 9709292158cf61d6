"""``ImageTransform``: the pipeline stage for IMAGE blocks (first in the default order).

Images come as message parts and inside tool outputs (a computer-use screenshot in an
Anthropic ``tool_result``, an image in a Responses ``function_call_output``); the latter
follow the tool-output protections too (``headroom_retrieve``, excluded tools).

Per request: route the latest user question once (MiniLM + head), then for every image
block: decode, compute signals (SigLIP or pixel statistics), apply the provider action,
store the original in CCR, and record a decision with the provider token estimates.

The question that decides an image is the text of the message carrying it (the user's
"what animal is this?" next to the picture), or the latest user text when that message
has none. Cache stability (invariant 4): outcomes are memoised by (image hash, that
question, provider, config); an image's own message does not change between turns, so
an image compressed in turn 1 renders with the same bytes in every later turn.
"""

from __future__ import annotations

import logging
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any

from ..ccr.markers import format_marker
from ..config import HeadroomConfig
from ..formats import adapter, provider_of
from ..formats._parts import make_data_url
from ..formats.model import Block, BlockKind, Conversation, ImageData, content_hash
from ..malloc import trim
from ..transforms.base import TransformContext
from ..transforms.protect import tool_output_reason
from .actions import Outcome, compress_image, compress_remote
from .codec import ImageDecodeError, decode

NAME = "image"
log = logging.getLogger("headroom.image")
# OCR and SigLIP run here so a slow image can be abandoned at its deadline (the work
# finishes in the background; the request goes on with the original image).
_POOL = ThreadPoolExecutor(max_workers=2, thread_name_prefix="headroom-image")


def transcoded_text(text: str, width: int, height: int, ccr_hash: str | None, ttl_seconds: int) -> str:
    """What replaces an image transcribed by OCR: the text plus a marker to the original."""
    head = f"[Image {width}x{height} transcribed to text by OCR]\n{text}"
    if ccr_hash is None:
        return head
    return head + "\n" + format_marker(1, 1, ccr_hash, ttl_seconds, "original image stored")


def image_question(conv: Conversation, message_index: int, latest: str) -> str:
    """The question an image answers: its own message's text, else the latest user text."""
    if 0 <= message_index < len(conv.messages):
        own = conv.messages[message_index].text().strip()
        if own:
            return own
    return latest


class ImageTransform:
    name = NAME

    def __init__(self, config: HeadroomConfig | None = None, *, router: Any = None, analyzer: Any = None,
                 ocr: Any = None):
        self.config = config or HeadroomConfig()
        cfg = self.config.image
        self._router = router
        self._analyzer = analyzer
        self._ocr = ocr
        self._lock = threading.Lock()
        self._cfg = cfg

    @property
    def router(self) -> Any:
        with self._lock:
            if self._router is None:
                from .router import ImageRouter

                self._router = ImageRouter(self._cfg.confidence_floor, self._cfg.device, self._cfg.router_path)
            return self._router

    @property
    def analyzer(self) -> Any:
        with self._lock:
            if self._analyzer is None:
                from .siglip import SignalAnalyzer

                self._analyzer = SignalAnalyzer(self._cfg.siglip_path, self._cfg.device)
            return self._analyzer

    def warm_up(self) -> None:
        """Load the router head, MiniLM and (when a checkpoint resolves) SigLIP."""
        self.router.route("warm up: what does this image show?")
        self.analyzer.scorer()

    def apply(self, conv: Conversation, ctx: TransformContext) -> Conversation:
        images = list(conv.images())
        if not images:
            return conv
        try:
            provider = provider_of(conv.format)
        except ValueError as exc:
            for i, j, _, _ in images:
                ctx.decide(NAME, "skipped", str(exc), message_index=i, block_index=j, content_type="image")
            return conv
        routes: dict[str, Any] = {}
        for i, j, block, tool_result in images:
            where: dict[str, Any] = {"message_index": i, "block_index": j, "content_type": "image"}
            if tool_result is not None:  # a screenshot inside a tool output
                where.update(tool_name=tool_result.tool_name, extra={"in_tool_output": True})
            if 0 <= i < self.config.frozen_prefix_messages:
                ctx.decide(NAME, "skipped", "frozen prefix", **where)
                continue
            if tool_result is not None and (why := tool_output_reason(tool_result, self.config)):
                ctx.decide(NAME, "skipped", why, **where)
                continue
            if block.image is None:
                ctx.decide(NAME, "skipped", "image part not understood", **where)
                continue
            t0 = time.perf_counter()
            query = image_question(conv, i, ctx.query)
            if query not in routes:
                routes[query] = self.router.route(query)
            route = routes[query]
            outcome, memo_hit = self._outcome(block.image, query, route.technique, provider, ctx)
            self._apply_outcome(conv, i, j, block, outcome, ctx)
            why = f", {route.override}" if route.override else ""
            reason = f"{route.technique} (router {route.predicted} p={route.confidence:.2f}{why}): {outcome.reason}"
            if memo_hit:
                reason = f"memo hit: {outcome.reason}"
            ctx.decide(NAME, "compressed" if outcome.changed else "kept", reason, strategy=outcome.action,
                       tokens_before=outcome.tokens_before, tokens_after=outcome.tokens_after,
                       ccr_hash=outcome.details.get("ccr_hash"), duration_ms=(time.perf_counter() - t0) * 1000,
                       **where)
        return conv

    def _outcome(self, image: ImageData, query: str, technique: str, provider: str,
                 ctx: TransformContext) -> tuple[Outcome, bool]:
        key = ("image", content_hash(image.data or image.url or ""), image.detail, content_hash(query), provider,
               self.config.fingerprint())
        hit = ctx.memo.get(key) if ctx.memo is not None else None
        if hit is not None:
            if hit.changed and hit.details.get("ccr_hash") and ctx.store is not None:
                self._store_original(image, hit, ctx)  # refresh the TTL / survive eviction
            return hit, True
        outcome = self._compute_with_deadline(image, query, technique, provider, ctx)
        if outcome.changed and ctx.store is not None and image.data:
            outcome.details["ccr_hash"] = self._store_original(image, outcome, ctx)
        if ctx.memo is not None:
            ctx.memo.put(key, outcome)
        return outcome, False

    def _compute_with_deadline(self, image: ImageData, query: str, technique: str, provider: str,
                               ctx: TransformContext) -> Outcome:
        """Never worse: an error or a deadline miss keeps this image (others still go on).

        The kept outcome is memoised like any other, so the image renders the same way in
        later turns (cache stability over a late saving).
        """
        if technique == "preserve" or not image.data:
            return self._compute(image, query, technique, provider, ctx)  # no pixel work
        future = _POOL.submit(self._compute, image, query, technique, provider, ctx)
        # Decode buffers and pixel arrays are freed by now, but glibc keeps the pages:
        # give them back, or every worker stays at its largest image (docs/proxy.md).
        future.add_done_callback(lambda _: trim())
        try:
            return future.result(timeout=self._cfg.timeout_ms / 1000)
        except FutureTimeout:
            return Outcome("kept", f"timed out after {self._cfg.timeout_ms} ms: image kept", 0, 0)
        except Exception as exc:  # one bad image must not fail the request
            log.exception("image compression failed")
            return Outcome("kept", f"error: {type(exc).__name__}: {exc}", 0, 0)

    def _compute(self, image: ImageData, query: str, technique: str, provider: str, ctx: TransformContext) -> Outcome:
        if not image.data:
            return compress_remote(technique, image, provider)
        try:
            img = decode(image.data)
        except ImageDecodeError as exc:
            return Outcome("kept", f"not decodable: {exc}", 0, 0)
        signals = self.analyzer.analyze(img) if technique in ("full_low", "transcode") else _no_signals()
        outcome = compress_image(img, image, technique, provider, signals, query, self._cfg,
                                 ocr=self._ocr, count_text=ctx.counter.count)
        outcome.details["signals"] = signals.summary()
        return outcome

    @staticmethod
    def _store_original(image: ImageData, outcome: Outcome, ctx: TransformContext) -> str:
        original = make_data_url(image.media_type, image.data or "")
        w, h = outcome.size_before or (0, 0)
        return ctx.keep_original(original, compressed=outcome.text, tool_name=None,
                                 original_tokens=outcome.tokens_before, compressed_tokens=outcome.tokens_after,
                                 item_count=1, meta={"kind": "image", "width": w, "height": h,
                                                     "action": outcome.action})

    def _apply_outcome(self, conv: Conversation, i: int, j: int, block: Block, outcome: Outcome,
                       ctx: TransformContext) -> None:
        if outcome.action == "transcode" and outcome.text is not None:
            w, h = outcome.size_before or (0, 0)
            ttl = ctx.store.ttl_seconds if ctx.store is not None else 0
            block.kind = BlockKind.TEXT
            block.text = transcoded_text(outcome.text, w, h, outcome.details.get("ccr_hash"), ttl)
            block.image = None
            kept = {k: v for k, v in (block.raw or {}).items() if k == "cache_control"} if isinstance(block.raw, dict) else {}
            part_type = adapter(conv.format).TEXT_PART_TYPE  # None: untyped parts (Gemini)
            block.raw = {"type": part_type, **kept} if part_type else kept
            return
        if outcome.image is not None:
            block.image = ImageData(**vars(outcome.image))


def _no_signals() -> Any:
    from .siglip import ImageSignals

    return ImageSignals(False, False, False, False, source="not needed")
