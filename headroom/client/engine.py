"""What every HeadroomClient call does, independent of SDK and of sync/async.

A call is: split the SDK keyword arguments into the request body and request options,
run the pipeline (the same one ``compress()`` uses), decide what to send for the mode,
and afterwards record one metrics row. The CCR retrieval loop reuses
:mod:`headroom.ccr.responses` exactly as the proxy does.
"""

from __future__ import annotations

import copy
import logging
import time
from dataclasses import dataclass, field
from typing import Any

from ..cache import CacheOptimizer
from ..ccr.responses import RetrieveCall, answer, continue_body, retrieve_calls
from ..ccr.tool import defines_retrieve_tool, inject_retrieve_tool
from ..metrics import MetricsStore, RequestMetrics
from ..modes import CLIENT_MODES, OPTIMIZE, PASSTHROUGH, SIMULATE
from ..pipeline import Pipeline, PipelineResult
from ..providers import Provider

log = logging.getLogger("headroom.client")

MODES = CLIENT_MODES
# Keyword arguments the SDKs treat as request options rather than body fields.
REQUEST_OPTIONS = ("extra_headers", "extra_query", "extra_body", "timeout")


def _given(v: Any) -> bool:
    # openai.NOT_GIVEN / anthropic.NOT_GIVEN / `omit` sentinels mean "not passed".
    return type(v).__name__ not in ("NotGiven", "Omit")


def to_jsonable(v: Any) -> Any:
    """SDK objects in a request (e.g. a previous response's message) as plain JSON data."""
    if hasattr(v, "model_dump") and callable(v.model_dump):
        return v.model_dump(mode="json", exclude_unset=True, by_alias=True)
    if isinstance(v, dict):
        return {k: to_jsonable(x) for k, x in v.items() if _given(x)}
    if isinstance(v, (list, tuple)):
        return [to_jsonable(x) for x in v]
    return v


def response_dict(resp: Any) -> dict[str, Any]:
    """A response (SDK object or dict) as the dict the CCR helpers read."""
    if isinstance(resp, dict):
        return resp
    return resp.model_dump(mode="json", exclude_none=True)


@dataclass
class SimulationResult:
    """What ``simulate`` mode returns instead of calling the provider."""

    mode: str
    model: str
    tokens_before: int
    tokens_after: int
    tokens_saved: int
    transforms_applied: list[str]
    body: dict[str, Any]  # the request optimize mode would have sent
    decisions: list[dict[str, Any]]
    cost_before_usd: float | None
    cost_after_usd: float | None


@dataclass
class Call:
    fmt: str
    mode: str
    model: str
    kwargs: dict[str, Any]  # what the caller passed, minus headroom_* arguments
    options: dict[str, Any]  # SDK request options, passed through as given
    send: dict[str, Any]  # the body to send this round
    result: PipelineResult | None
    injected_tool: bool = False
    stream: bool = False
    compress_error: str | None = None  # why the pipeline could not run (mode is then passthrough)
    retrievals: int = 0  # retrieve calls answered
    rounds: int = 0  # extra requests sent by the retrieval loop
    started: float = field(default_factory=time.perf_counter)

    def send_kwargs(self) -> dict[str, Any]:
        return {**self.send, **self.options}


class Engine:
    def __init__(self, *, pipeline: Pipeline, provider: Provider, default_mode: str,
                 metrics: MetricsStore, cache: CacheOptimizer | None):
        if default_mode not in MODES:
            raise ValueError(f"default_mode must be one of {MODES}, got {default_mode!r}")
        self.pipeline = pipeline
        self.provider = provider
        self.default_mode = default_mode
        self.metrics = metrics
        self.cache = cache

    # -- before the call ------------------------------------------------------------------

    def prepare(self, kwargs: dict[str, Any], fmt: str) -> Call:
        kwargs = dict(kwargs)
        mode = kwargs.pop("headroom_mode", None) or self.default_mode
        session = kwargs.pop("headroom_session_id", None)
        if mode not in MODES:
            raise ValueError(f"headroom_mode must be one of {MODES}, got {mode!r}")
        options = {k: kwargs[k] for k in REQUEST_OPTIONS if k in kwargs}
        body = to_jsonable({k: v for k, v in kwargs.items() if k not in REQUEST_OPTIONS and _given(v)})
        model = str(body.get("model") or "")
        original = {k: v for k, v in kwargs.items() if k not in REQUEST_OPTIONS}
        try:
            # The pipeline works on a copy: audit mode must send the caller's exact request.
            result: PipelineResult | None = self.pipeline.compress_body(copy.deepcopy(body), fmt, model=model or None)
        except Exception as exc:
            if mode == SIMULATE:
                raise
            # Never worse: a request headroom cannot parse goes out exactly as given.
            log.warning("headroom could not compress this %s request, sending it unchanged: %s", fmt, exc)
            result = None
            compress_error = f"{type(exc).__name__}: {exc}"
        call = Call(fmt, mode, model, kwargs, options, original, result, stream=bool(body.get("stream")))
        if result is None:
            call.mode = PASSTHROUGH
            call.compress_error = compress_error
        elif mode == OPTIMIZE:
            send = result.body
            if self.pipeline.config.ccr.inject_tool and not defines_retrieve_tool(send):
                send = inject_retrieve_tool(send, fmt)
                call.injected_tool = defines_retrieve_tool(send)
            if self.cache is not None:
                send = self.cache.apply(send, fmt, session_id=session)
            call.send = send
        return call

    def simulate(self, call: Call) -> SimulationResult:
        r = call.result
        assert r is not None
        before = self.provider.estimate_cost(call.model, r.tokens_before).input_usd
        after = self.provider.estimate_cost(call.model, r.tokens_after).input_usd
        body = r.body
        if self.pipeline.config.ccr.inject_tool:
            body = inject_retrieve_tool(body, call.fmt)
        self.record(call, None, simulated=True)
        return SimulationResult(SIMULATE, call.model, r.tokens_before, r.tokens_after, r.tokens_saved,
                                r.transforms_applied, body, [d.to_dict() for d in r.decisions], before, after)

    # -- the retrieval loop -----------------------------------------------------------------

    def retrieve_round(self, call: Call, resp: Any) -> bool:
        """If ``resp`` is a turn that only calls headroom_retrieve, answer it and set up the
        next request in ``call.send``; True when another round must be sent."""
        if not call.injected_tool or call.mode != OPTIMIZE:
            return False
        if call.rounds >= self.pipeline.config.ccr.max_retrieve_rounds:
            return False
        data = response_dict(resp)
        calls: list[RetrieveCall] | None = retrieve_calls(data, call.fmt)
        if not calls:
            return False
        answers = {c.id: answer(self.pipeline.store, c) for c in calls}
        call.send = continue_body(call.send, data, call.fmt, answers)
        call.retrievals += len(calls)
        call.rounds += 1
        return True

    # -- after the call ---------------------------------------------------------------------

    def record(self, call: Call, resp: Any, *, error: BaseException | None = None,
               simulated: bool = False, status_code: int | None = None) -> RequestMetrics | None:
        r = call.result
        usage = _usage(resp) if resp is not None else {}
        if r is None:
            row = RequestMetrics(
                mode=call.mode, provider=self.provider.name, model=call.model, stream=call.stream,
                latency_ms=round((time.perf_counter() - call.started) * 1000, 3),
                status_code=status_code if status_code is not None else (None if error else 200),
                cached_tokens=usage.get("cached", 0), output_tokens=usage.get("output", 0),
                error=f"{type(error).__name__}: {error}" if error else call.compress_error,
            )
            if self.metrics is not None:
                self.metrics.record(row)
            return row
        row = RequestMetrics.from_pipeline(
            r,
            mode=call.mode,
            provider=self.provider.name,
            model=call.model,
            latency_ms=round((time.perf_counter() - call.started) * 1000, 3),
            stream=call.stream,
            status_code=status_code if status_code is not None else (None if simulated or error else 200),
            retrievals=call.retrievals,
            cached_tokens=usage.get("cached", 0),
            output_tokens=usage.get("output", 0),
            cost_saved_usd=self.provider.savings_usd(call.model, r.tokens_saved) if call.mode == OPTIMIZE else None,
            error=f"{type(error).__name__}: {error}" if error else None,
        )
        if self.metrics is not None:
            self.metrics.record(row)
        return row


def _usage(resp: Any) -> dict[str, int]:
    """Cached input tokens and output tokens from any of the three response shapes."""
    u = getattr(resp, "usage", None)
    if u is None and isinstance(resp, dict):
        u = resp.get("usage")
    if u is None:
        return {}
    if hasattr(u, "model_dump"):
        u = u.model_dump()
    if not isinstance(u, dict):
        return {}
    details = u.get("prompt_tokens_details") or u.get("input_tokens_details") or {}
    cached = (details.get("cached_tokens") if isinstance(details, dict) else None) or u.get("cache_read_input_tokens") or 0
    output = u.get("completion_tokens") or u.get("output_tokens") or 0
    return {"cached": int(cached), "output": int(output)}
