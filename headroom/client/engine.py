"""What every HeadroomClient call does, independent of SDK and of sync/async.

A call is: split the SDK keyword arguments into the request body and request options,
run the pipeline (the same one ``compress()`` uses), decide what to send for the mode,
and afterwards record one metrics row. The retrieval loop is the proxy's own
(:mod:`headroom.exchange.driver`, with the SDK as its transport: :mod:`.transport`).
"""

from __future__ import annotations

import copy
import logging
from dataclasses import dataclass
from typing import Any

from ..cache import CacheOptimizer
from ..ccr.tool import inject_retrieve_tool
from ..exchange import Exchange, ExchangeCore, open_exchange, start
from ..formats import adapter
from ..metrics import MetricsStore, RequestMetrics
from ..modes import CLIENT_MODES, PASSTHROUGH, SIMULATE
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
    """One SDK call: the caller's arguments around the format-neutral :class:`Exchange`."""

    fmt: str
    mode: str
    model: str
    kwargs: dict[str, Any]  # what the caller passed, minus headroom_* arguments
    options: dict[str, Any]  # SDK request options, passed through as given
    ex: Exchange
    stream: bool = False

    @property
    def result(self) -> PipelineResult | None:
        return self.ex.result

    @property
    def injected_tool(self) -> bool:
        return self.ex.injected

    @property
    def send(self) -> dict[str, Any]:
        return self.ex.send

    @property
    def retrievals(self) -> int:
        return self.ex.retrievals

    @property
    def rounds(self) -> int:
        return self.ex.rounds

    @property
    def compress_error(self) -> str | None:
        return self.ex.compression_error

    def send_kwargs(self) -> dict[str, Any]:
        return {**self.ex.send, **self.options}


class Engine:
    """HeadroomClient's IO-free half: SDK arguments in, :class:`ExchangeCore` steps out."""

    def __init__(self, *, pipeline: Pipeline, provider: Provider, default_mode: str,
                 metrics: MetricsStore, cache: CacheOptimizer | None):
        if default_mode not in MODES:
            raise ValueError(f"default_mode must be one of {MODES}, got {default_mode!r}")
        self.core = ExchangeCore(pipeline, cache=cache)
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
        if mode == SIMULATE:
            # Simulation has nothing to fall back to: an unparseable request is the caller's error.
            result = self.pipeline.compress_body(copy.deepcopy(body), fmt, model=model or None)
            ex = open_exchange(self.core, body, fmt, mode, result=result, session_id=session)
        else:
            # Every mode is measured; the pipeline works on a copy (audit mode must send the
            # caller's exact request), and a failure sends the original, as pass-through.
            ex = start(self.core, body, fmt, mode, copy_body=True, session_id=session, fallback_mode=PASSTHROUGH)
        if ex.send is body:
            ex.send = original  # nothing of ours to send: the caller's own objects go out
        return Call(fmt, ex.mode, model, kwargs, options, ex, stream=bool(body.get("stream")))

    def simulate(self, call: Call) -> SimulationResult:
        r = call.result
        assert r is not None
        before = self.provider.estimate_cost(call.model, r.tokens_before).input_usd
        after = self.provider.estimate_cost(call.model, r.tokens_after).input_usd
        body = r.body
        if self.core.loop_enabled:
            body = inject_retrieve_tool(body, call.fmt, markers=r.carries_markers or r.agent_loop)
        self.record(call, None, simulated=True)
        return SimulationResult(SIMULATE, call.model, r.tokens_before, r.tokens_after, r.tokens_saved,
                                r.transforms_applied, body, [d.to_dict() for d in r.decisions], before, after)

    # -- after the call ---------------------------------------------------------------------

    def record(self, call: Call, resp: Any, *, error: BaseException | None = None,
               simulated: bool = False, status_code: int | None = None) -> RequestMetrics | None:
        if resp is not None:
            call.ex.usage = adapter(call.fmt).usage(resp)
        if status_code is None and not (error or simulated):
            status_code = 200
        row = self.core.finish(call.ex, status_code=status_code, stream=call.stream, mode=call.mode,
                               error=f"{type(error).__name__}: {error}" if error else None,
                               provider=self.provider.name, prices=self.provider)
        if self.metrics is not None:
            self.metrics.record(row)
        return row
