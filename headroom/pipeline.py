"""The pipeline: parse once, run the transforms in order, render once.

Default order (DESIGN §2): images, CacheAligner, ContentRouter, tool-argument shrink,
context budget (RollingWindow or IntelligentContext). CCR tool injection happens where a
request is sent (proxy, client), because it edits ``tools``, not messages.

A :class:`Pipeline` owns the state that must outlive one request: the CCR store and the
compression memo (cache stability). Build one per process and reuse it.
"""

from __future__ import annotations

import functools
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .ccr.markers import has_marker
from .ccr.store import CompressionStore
from .config import HeadroomConfig
from .formats import BlockKind, Conversation, adapter, detect_format, parse, render
from .query.bounded import bound_question
from .relevance import scorer_for
from .toin import toin_from_config
from .token_accounting import RequestTokens, model_counter
from .transforms.base import Decision, Transform, TransformContext
from .transforms.observations import question_text
from .transforms.router import CompressionMemo, ContentRouter

log = logging.getLogger("headroom.pipeline")
# Warm-up outcome of a stage whose optional extra is not installed (not a failure).
UNAVAILABLE = "unavailable"


# Decision actions that change what is sent (and so count as savings).
SAVING_ACTIONS = ("compressed", "moved", "shrunk", "dropped")


@dataclass(frozen=True)
class Savings:
    """Tokens saved per transform ("content_router:smart_crusher:…" -> n) and per tool,
    summed once from the decisions; /stats, the metrics rows and reports all read this."""

    by_transform: dict[str, int]
    by_tool: dict[str, int]
    tools: list[str]  # every tool whose output a transform looked at, in order


def savings_of(decisions: list[Decision]) -> Savings:
    by_transform: dict[str, int] = {}
    by_tool: dict[str, int] = {}
    tools: dict[str, None] = {}
    for d in decisions:
        if d.tool_name:
            tools.setdefault(d.tool_name)
        saved = d.tokens_before - d.tokens_after
        if saved <= 0 or d.action not in SAVING_ACTIONS:
            continue
        key = f"{d.transform}:{d.strategy}" if d.strategy else d.transform
        by_transform[key] = by_transform.get(key, 0) + saved
        if d.tool_name:
            by_tool[d.tool_name] = by_tool.get(d.tool_name, 0) + saved
    return Savings(by_transform, by_tool, list(tools))


@dataclass(init=False)
class PipelineResult:
    """What a run produced. ``tokens_before`` / ``tokens_after`` are exact totals; the
    pipeline passes them as one callable that counts on first access (issue 34): exact
    BPE of a long tool output is as costly as compressing it, and a caller that never
    reads the totals (a client sending the body on) should not wait for it."""

    conversation: Conversation
    body: dict[str, Any]
    format: str
    decisions: list[Decision]
    duration_ms: float

    def __init__(self, conversation: Conversation, body: dict[str, Any], format: str,
                 tokens_before: int | Callable[[], tuple[int, int]], tokens_after: int | None = None,
                 decisions: list[Decision] | None = None, duration_ms: float = 0.0):
        self.conversation, self.body, self.format = conversation, body, format
        self.decisions = decisions if decisions is not None else []
        self.duration_ms = duration_ms
        if callable(tokens_before):
            self._totals: Callable[[], tuple[int, int]] | None = tokens_before
        else:
            self._totals = None
            self.__dict__["tokens_before"], self.__dict__["tokens_after"] = tokens_before, int(tokens_after or 0)

    def count_totals(self) -> None:
        """Take the exact totals now (the proxy does, on a worker thread, while the
        upstream answers). Two threads at once may both count (the same numbers)."""
        if "tokens_before" in self.__dict__:
            return
        before, after = self._totals()  # type: ignore[misc]
        self.__dict__["tokens_after"] = after
        self.__dict__["tokens_before"] = before

    @property
    def tokens_before(self) -> int:
        if "tokens_before" not in self.__dict__:
            self.count_totals()
        return self.__dict__["tokens_before"]

    @property
    def tokens_after(self) -> int:
        if "tokens_after" not in self.__dict__:
            self.count_totals()
        return self.__dict__["tokens_after"]

    @property
    def tokens_saved(self) -> int:
        return self.tokens_before - self.tokens_after

    @property
    def compression_ratio(self) -> float:
        """Fraction of tokens removed: 0.8 means the output has 80 % fewer tokens."""
        return self.tokens_saved / self.tokens_before if self.tokens_before else 0.0

    @functools.cached_property
    def savings(self) -> Savings:
        return savings_of(self.decisions)

    @property
    def transforms_applied(self) -> list[str]:
        seen: dict[str, None] = {}
        for d in self.decisions:
            if d.action in ("compressed", "moved", "shrunk", "dropped", "expanded"):
                seen.setdefault(f"{d.transform}:{d.strategy}" if d.strategy else d.transform)
        return list(seen)

    @property
    def ccr_hashes(self) -> list[str]:
        seen: dict[str, None] = {}
        for d in self.decisions:
            if d.ccr_hash:
                seen.setdefault(d.ccr_hash)
        return list(seen)

    @functools.cached_property
    def carries_markers(self) -> bool:
        """Whether the rendered request holds a CCR marker (ours, or one already in the
        history), read from the conversation: the body need not be parsed again."""
        return bool(self.ccr_hashes) or any(has_marker(b.text) for _, _, b in self.conversation.blocks())

    @property
    def agent_loop(self) -> bool:
        """Whether the request is an agent loop that sends tool output in user turns (some
        user block was classified as one, or answers an action inside the agent's framing,
        "Observation:", however short): such an agent is offered ``headroom_retrieve``
        from its first observation on, so its tool list never changes mid-session."""
        return any(d.transform == "user_observations" and (d.action == "classified" or (d.extra or {}).get("agent_frame"))
                   for d in self.decisions)

    @property
    def messages(self) -> list[Any]:
        return self.body.get(adapter(self.format).MESSAGES_KEY)  # type: ignore[return-value]


class Pipeline:
    def __init__(
        self,
        config: HeadroomConfig | None = None,
        *,
        store: CompressionStore | None = None,
        memo: CompressionMemo | None = None,
        transforms: list[Transform] | None = None,
        hints: Callable[[], dict[str, float]] | None = None,
        feedback: Any = None,
        toin: Any = None,
    ):
        self.config = config or HeadroomConfig()
        self.store = store if store is not None else (
            CompressionStore.from_config(self.config.ccr) if self.config.ccr.enabled else None
        )
        self.memo = memo if memo is not None else CompressionMemo()
        # A ToolFeedback (headroom.toin.feedback, a view over TOIN's per-tool counts)
        # supplies per-tool aggressiveness hints; ``hints`` alone may be given instead.
        self.feedback = feedback
        self._hints = hints if hints is not None else (feedback.hints if feedback is not None else None)
        self._relevance: Any = None
        # (name, load) for every model the configuration enables; see warm_up().
        self._warmers: list[tuple[str, Callable[[], Any]]] = []
        # Learned tool-output patterns (headroom.toin): a caller's, or the config's.
        self.toin = toin if toin is not None else toin_from_config(self.config)
        if self.toin is not None and self.store is not None and not any(
                getattr(getattr(fn, "__self__", None), "store_id", None) == self.toin.store_id
                for fn in self.store.retrieval_listeners):
            # One listener per TOIN store: pipelines of several configs sharing a CCR
            # store and a TOIN file must not count each retrieval twice.
            self.store.retrieval_listeners.append(self.toin.on_retrieval)
        # Built now, not on the first request: a missing optional model (LLMLingua-2)
        # must fail when the pipeline (or the proxy) starts, with its clear message.
        self.transforms: list[Transform] = transforms if transforms is not None else self._default_transforms()

    def _default_transforms(self) -> list[Transform]:
        # Each stage's module is imported here, when the configuration enables it, so
        # `import headroom` does not pay for stages a caller never builds (docs/decisions.md,
        # "Stages imported by name, not by string").
        cfg = self.config
        out: list[Transform] = []
        if cfg.image.enabled:
            out.append(_LazyTransform("image", _image_stage, cfg, needs=BlockKind.IMAGE))
        if cfg.cache_aligner.enabled:
            from .transforms.cache_aligner import CacheAligner

            out.append(CacheAligner())
        text_override = None
        if cfg.llmlingua.enabled:
            from .compressors.llmlingua import LLMLinguaCompressor  # its model loads on warm_up

            text_override = LLMLinguaCompressor(cfg.llmlingua)
            self._warmers.append(("llmlingua", text_override.warm_up))
        out.append(ContentRouter(text_compressor_override=text_override))
        if cfg.ccr.enabled and cfg.ccr.proactive_expansion:
            from .transforms.expansion import ContextTracker

            out.append(ContextTracker(max_items=cfg.ccr.expand_max_items, max_tokens=cfg.ccr.expand_max_tokens))
        if cfg.tool_args.enabled:
            from .transforms.tool_args import ToolArgsShrinker

            out.append(ToolArgsShrinker())
        if cfg.context.strategy == "rolling_window":
            from .transforms.rolling_window import RollingWindow

            out.append(RollingWindow())
        elif cfg.context.strategy == "intelligent":
            from .transforms.intelligent_context import IntelligentContext

            out.append(IntelligentContext())
        return out

    def relevance(self) -> Any:
        if self.config.relevance.mode == "bm25":
            return None
        if self._relevance is None:
            self._relevance = scorer_for(self.config.relevance)
        return self._relevance

    def warm_up(self) -> dict[str, str]:
        """Load every model the configuration enables, so no request pays for a load.

        A first image request once took 10 s and went out uncompressed while MiniLM
        loaded (issue 12, F8). Returns ``{stage: "ok" | "unavailable: …" (its extra is not
        installed) | why it failed}``; a failure is
        logged and reported, never raised: that stage degrades per request as before.
        """
        report: dict[str, str] = {}
        steps: list[tuple[str, Callable[[], Any]]] = [("text", lambda: self.compress_body(
            {"model": "gpt-4o", "messages": [{"role": "user", "content": "warm up"}]}, "openai_chat"))]
        steps += [(t.name, t.warm_up) for t in self.transforms if callable(getattr(t, "warm_up", None))]
        steps += self._warmers
        if self.config.relevance.mode != "bm25":
            steps.append(("relevance", lambda: self.relevance()("warm up", ["warm up"])))
        if self.config.context.strategy == "intelligent":
            steps.append(("intelligent_context", lambda: _embed(["warm up"], self.config.context.device)))
        for name, load in steps:
            try:
                load()
            except ImportError as exc:
                # An optional extra that is not installed (e.g. the image stage on a
                # `pip install headroom[proxy]`) is how that install is meant to run, not
                # a fault: the stage skips per request with this reason, as before.
                report[name] = f"{UNAVAILABLE}: {exc}"
            except Exception as exc:  # reported per stage; the others still load
                log.warning("warm-up of %s failed", name, exc_info=True)
                report[name] = f"{type(exc).__name__}: {exc}"
            else:
                report[name] = "ok"
        return report

    def run(self, conv: Conversation, *, model: str | None = None, query: str | None = None,
            tenant: str | None = None, budget_s: float | None = None) -> PipelineResult:
        """Compress ``conv``. ``tenant`` (a tag from headroom.ccr.scope) marks what this run
        stores as that tenant's, so only it (or its conversation) can read it back;
        ``budget_s`` bounds the whole run's compression time (blocks past it go unchanged)."""
        t0 = time.perf_counter()
        model = model or conv.model
        counter = model_counter(model)
        ctx = TransformContext(
            config=self.config,
            counter=counter,
            store=self.store,
            tenant=tenant or None,
            deadline=time.monotonic() + budget_s if budget_s is not None else None,
            model=model,
            query=bound_question(query if query is not None else question_text(conv, turns=2)),
            memo=self.memo,
            hints=self._hints() if self._hints else {},
            relevance=self.relevance(),
            toin=self.toin,
        )
        tokens = RequestTokens(conv, counter)
        for t in self.transforms:
            try:
                conv = t.apply(conv, ctx)
            except Exception as exc:  # never worse: a broken stage leaves the request as it was
                log.exception("transform %s failed", t.name)
                ctx.decide(t.name, "skipped", f"error: {type(exc).__name__}: {exc}")
        body = render(conv)
        out = conv
        return PipelineResult(conv, body, conv.format, lambda: tokens.totals(out), None, ctx.decisions,
                              (time.perf_counter() - t0) * 1000)

    def compress_body(self, body: dict[str, Any], fmt: str | None = None, *, model: str | None = None,
                      query: str | None = None, tenant: str | None = None,
                      budget_s: float | None = None) -> PipelineResult:
        fmt = fmt or detect_format(body, model)
        return self.run(parse(body, fmt), model=model, query=query, tenant=tenant, budget_s=budget_s)


class _LazyTransform:
    """A transform imported only when a conversation needs it (e.g. has images).

    Optional extras (pillow, torch) therefore cost nothing for text-only traffic, and a
    missing extra is reported in the decisions instead of failing the import.
    """

    def __init__(self, name: str, build: Callable[[HeadroomConfig], Transform], config: HeadroomConfig,
                 needs: BlockKind):
        self.name, self._build, self._config, self._needs = name, build, config, needs
        self._impl: Any = None
        self._error: str | None = None

    def warm_up(self) -> None:
        """Import the stage and load its models now (the proxy calls this before serving)."""
        if self._impl is None and self._error is None:
            self._impl = self._build(self._config)
        warm = getattr(self._impl, "warm_up", None)
        if warm is not None:
            warm()

    def apply(self, conv: Conversation, ctx: TransformContext) -> Conversation:
        if not conv.has_kind(self._needs):
            return conv
        if self._impl is None and self._error is None:
            try:
                self._impl = self._build(self._config)
            except ImportError as exc:
                self._error = f"unavailable: {exc}"
        if self._impl is None:
            ctx.decide(self.name, "skipped", self._error or "unavailable")
            return conv
        return self._impl.apply(conv, ctx)


def _image_stage(config: HeadroomConfig) -> Transform:
    # Imported when a conversation first carries an image: the stage's own imports are
    # light, but its models and pillow load with it.
    from .image.transform import ImageTransform

    return ImageTransform(config)


def _embed(texts: list[str], device: str) -> Any:
    from .ml.embeddings import embed  # sentence_transformers and torch load on the first call

    return embed(texts, device)
