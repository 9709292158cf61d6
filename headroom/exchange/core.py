"""One call to an LLM, IO-free: prepare → next round → finish.

Everything headroom decides around a provider call lives here once. The loop that sends
what :meth:`ExchangeCore.prepare` says and feeds each answer to
:meth:`ExchangeCore.next_round` is :mod:`headroom.exchange.driver`, over each shell's
transport (the proxy, :class:`~headroom.client.HeadroomClient` sync and async, the eval's
LLM mode, the integrations); the shell books the call with :meth:`ExchangeCore.finish`.

- **prepare**: the mode decides what is sent (optimize: the compressed body, with the
  ``headroom_retrieve`` tool when it carries markers and the prompt-cache optimiser's
  breakpoints; audit: the original, measured; passthrough: the original). Compression
  that fails or times out never makes a request worse: the original goes out.
- **next round**: when the model's turn calls only ``headroom_retrieve``, answer from the
  CCR store and return the next request; otherwise the turn is the client's. After
  ``ccr.max_retrieve_rounds`` rounds the next request forbids tool calls, so the client
  never receives a call to a tool it did not declare (:class:`Unanswerable` when the
  model calls it anyway, or without an id).
- **finish**: one metrics row, savings by transform and by tool read from the pipeline's
  decisions once (:attr:`PipelineResult.savings`), cost saved at the model's price.
"""

from __future__ import annotations

import copy
import json
import logging
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from ..ccr.responses import (
    RetrieveCall,
    answer,
    continue_body,
    retrieve_calls,
    unknown_hash_message,
)
from ..ccr.scope import may_read
from ..ccr.store import CompressionStore, StoreError
from ..ccr.tool import inject_retrieve_tool
from ..formats import adapter, provider_of
from ..formats.wire import Usage
from ..metrics.agent import agent_name
from ..metrics.row import RequestMetrics
from ..modes import AUDIT, OPTIMIZE, PASSTHROUGH
from ..pipeline import Pipeline, PipelineResult
from ..providers import provider_of_model

log = logging.getLogger("headroom.exchange")


@dataclass
class Exchange:
    """One client request, however many upstream rounds it takes."""

    fmt: str
    mode: str  # what was done: optimize | audit | simulate | passthrough (or a shell's own, e.g. bypass)
    original: dict[str, Any]  # the body as the client sent it
    send: dict[str, Any]  # the body to send this round
    result: PipelineResult | None = None
    injected: bool = False  # headroom_retrieve was added (so its calls are ours to answer)
    compression_error: str | None = None
    rounds: int = 0  # extra requests sent by the retrieval loop
    retrievals: int = 0  # retrieve calls answered
    usage: Usage | None = None
    final: bool = False  # the round limit was reached: the last request forbade tool calls
    tenant: str | None = None  # headroom.ccr.scope tag of the caller's credential (proxy)
    model_name: str | None = None  # when the body does not name it (Gemini: it is in the URL)
    status: int = 0  # HTTP status of the answer the client got
    error: str | None = None  # what went wrong on the way, for logs and the metrics row
    user_agent: str | None = None  # the client's User-Agent header (proxy): the row's agent
    retrieved: list[dict[str, Any]] = field(default_factory=list)  # [{"hash", "found"}] per call answered
    started: float = field(default_factory=time.perf_counter)

    @property
    def compressed(self) -> bool:
        """Whether the compressed body is what went upstream."""
        return self.mode == OPTIMIZE and self.result is not None

    @property
    def latency_ms(self) -> float:
        return (time.perf_counter() - self.started) * 1000

    @property
    def model(self) -> str:
        m = self.model_name or self.original.get("model")
        return m if isinstance(m, str) else ""


class Unanswerable(RuntimeError):
    """A retrieve-only turn headroom cannot answer; the client must not receive it either
    (it never declared the tool), so the shell reports an upstream error instead."""


def retrieve_round(store: CompressionStore | None, fmt: str, body: dict[str, Any], turn: Any,
                   read: Callable[[RetrieveCall], str] | None = None,
                   ) -> tuple[dict[str, Any], list[RetrieveCall]] | None:
    """(next body, calls answered) when ``turn`` calls only ``headroom_retrieve``; None
    when the turn is the client's (or unreadable: then it is relayed as it came)."""
    if not isinstance(turn, dict):
        return None
    try:
        calls = retrieve_calls(turn, fmt)
    except (TypeError, AttributeError, KeyError, IndexError, ValueError):
        log.warning("could not read the upstream's %s turn; handing it to the client unchanged", fmt)
        return None
    if not calls:
        return None
    answers = {c.id: read(c) if read is not None else answer(store, c) for c in calls}
    return continue_body(body, turn, fmt, answers), calls


class ExchangeCore:
    """The per-process half of an exchange: the pipeline (with its store and memo) and
    the optional prompt-cache optimiser."""

    def __init__(self, pipeline: Pipeline, *, cache: Any = None):
        self.pipeline = pipeline
        self.cache = cache  # a headroom.cache.CacheOptimizer, or None

    @property
    def store(self) -> CompressionStore | None:
        return self.pipeline.store

    @property
    def loop_enabled(self) -> bool:
        """Whether headroom adds ``headroom_retrieve`` and answers its calls."""
        ccr = self.pipeline.config.ccr
        return ccr.enabled and ccr.inject_tool and self.store is not None

    # -- prepare ----------------------------------------------------------------------------

    def compress(self, body: dict[str, Any], fmt: str, *, model: str | None = None,
                 copy_body: bool = False, tenant: str | None = None,
                 budget_s: float | None = None) -> tuple[PipelineResult | None, str | None]:
        """(result, None), or (None, why) when the pipeline cannot run on this body.

        ``copy_body`` keeps the caller's objects untouched (the client sends them as
        given in audit mode); the proxy parsed its own copy and skips that cost.
        """
        try:
            return self.pipeline.compress_body(copy.deepcopy(body) if copy_body else body, fmt,
                                               model=model or None, tenant=tenant, budget_s=budget_s), None
        except Exception as exc:  # noqa: BLE001 - never worse: any failure sends the original
            return None, f"{type(exc).__name__}: {exc}"

    def prepare(self, body: dict[str, Any], fmt: str, mode: str, *, result: PipelineResult | None = None,
                error: str | None = None, session_id: str | None = None, model: str | None = None) -> Exchange:
        """What to send for ``body`` in ``mode``, given the pipeline's ``result`` (or why it
        failed). ``model`` names the model when the body does not (Gemini)."""
        if error is not None:
            log.warning("compression skipped for %s request: %s; forwarding the original body", fmt, error)
        ex = Exchange(fmt, mode, body, body, result=result, compression_error=error, model_name=model)
        if mode == PASSTHROUGH or result is None or mode == AUDIT:
            return ex
        send = result.body
        if self.loop_enabled:
            with_tool = inject_retrieve_tool(send, fmt, markers=result.carries_markers or result.agent_loop)
            ex.injected, send = with_tool is not send, with_tool
        if self.cache is not None and mode == OPTIMIZE:
            send = self.cache.apply(send, fmt, session_id=session_id)
        ex.send = send
        return ex

    # -- next round -------------------------------------------------------------------------

    def next_round(self, ex: Exchange, turn: Any) -> dict[str, Any] | None:
        """The next request when ``turn`` is a retrieve-only turn headroom must answer (it
        injected the tool); None when the turn is the client's.

        Raises :class:`Unanswerable` for a retrieve call without an id, or one made after
        the last round forbade tool calls.
        """
        if not ex.injected:
            return None
        step = retrieve_round(self.store, ex.fmt, ex.send, turn, read=lambda c: self._answer(ex, c))
        if step is None:
            return None
        body, calls = step
        if any(not c.id for c in calls):
            raise Unanswerable("the model called headroom_retrieve without an id, so headroom cannot answer the call")
        if ex.final:
            raise Unanswerable("the model kept calling headroom_retrieve after the retrieve-round limit, "
                               "even when no tool call was allowed")
        ex.rounds += 1
        ex.retrievals += len(calls)
        if ex.rounds > self.pipeline.config.ccr.max_retrieve_rounds:
            # One last round with its answers and no tool calls allowed.
            body, ex.final = adapter(ex.fmt).forbid_tool_calls(body), True
        ex.send = body
        return body

    def _answer(self, ex: Exchange, call: RetrieveCall) -> str:
        """The store's answer, for a hash this caller may read (headroom.ccr.scope)."""
        store = self.store
        if store is not None and call.hash:
            try:
                allowed = may_read(store, call.hash, ex.tenant, lambda: json.dumps(ex.send, ensure_ascii=False))
            except StoreError:
                allowed = True  # answer() tells the model the store failed
            if not allowed:
                ex.retrieved.append({"hash": call.hash, "found": False})
                return unknown_hash_message(call.hash)
        text = answer(store, call)
        ex.retrieved.append({"hash": call.hash, "found": text != unknown_hash_message(call.hash)
                             and not text.startswith("headroom_retrieve error:")})
        return text

    # -- finish -----------------------------------------------------------------------------

    def finish(self, ex: Exchange, *, status_code: int | None, stream: bool, error: str | None = None,
               provider: str | None = None, mode: str | None = None, prices: Any = None,
               **columns: Any) -> RequestMetrics:
        """The metrics row of the exchange (its shell writes it where it keeps rows).

        ``prices`` is the :class:`~headroom.providers.Provider` whose table prices the
        model (default: the one the model name implies)."""
        model = ex.model
        usage = ex.usage or Usage()
        cols: dict[str, Any] = dict(
            provider=provider or provider_of(ex.fmt), model=model,
            latency_ms=round(ex.latency_ms, 3), stream=stream,
            status_code=status_code, retrievals=ex.retrievals,
            output_tokens=usage.output_tokens, cached_tokens=usage.cache_read_tokens,
            cache_write_tokens=usage.cache_write_tokens, tenant=ex.tenant, agent=agent_name(ex.user_agent),
            retrieved=list(ex.retrieved),
            error=error or (f"compression: {ex.compression_error}" if ex.compression_error else None),
        )
        cols.update(columns)  # a shell's own measurements win (e.g. LiteLLM's timings)
        mode = mode or ex.mode
        if ex.result is None:
            return RequestMetrics(mode=mode, **cols)
        if ex.compressed and model:
            # What the tokens not sent would have cost (the report's "Est. cost saved").
            cols["cost_saved_usd"] = (prices or provider_of_model(model, ex.fmt)).savings_usd(model, ex.result.tokens_saved)
        return RequestMetrics.from_pipeline(ex.result, mode=mode, **cols)


__all__ = ["Exchange", "ExchangeCore", "Unanswerable", "retrieve_round"]
