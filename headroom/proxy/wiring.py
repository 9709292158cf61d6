"""The state factory of the proxy app: the configs (or a caller's pipeline) become one
``ProxyState``, and ``lifespan`` warms it up before the first request and closes it after
the last. The routes (``proxy/routes/``) only read what this builds."""

from __future__ import annotations

import asyncio
from contextlib import asynccontextmanager
from typing import Any

import httpx

from ..config import CCRConfig, HeadroomConfig
from ..pipeline import Pipeline
from .config import ProxyConfig
from .state import ProxyState
from .upstream import make_client


def default_headroom_config() -> HeadroomConfig:
    """The proxy keeps originals in SQLite by default, so markers survive a restart."""
    return HeadroomConfig(ccr=CCRConfig(backend="sqlite"))


def register_adapters(modules: tuple[str, ...]) -> None:
    """Register the adapter modules the config names (``--adapter``): their routes are
    then served like the shipped ones'."""
    if not modules:
        return
    import importlib

    from ..formats import register

    for name in modules:
        register(importlib.import_module(name))


def _feedback_view(config: HeadroomConfig, store: Any, toin: Any) -> tuple[Any, str | None]:
    """Per-tool retrieval feedback, a view over TOIN's counts, or None and why not."""
    if not config.ccr.feedback_enabled:
        return None, "retrieval feedback is off (ccr.feedback_enabled)"
    if store is None:
        return None, "feedback needs the CCR store, and CCR is disabled"
    if toin is None:
        return None, "retrieval feedback is learned by TOIN, and TOIN is disabled (toin.enabled, --no-toin)"
    from ..toin.feedback import ToolFeedback

    return ToolFeedback(toin), None


def _pipeline(hc: HeadroomConfig) -> tuple[Pipeline, Any, str | None]:
    """A pipeline with its own store and TOIN, and the feedback view over them."""
    from ..ccr.store import CompressionStore
    from ..toin import toin_from_config

    store = CompressionStore.from_config(hc.ccr) if hc.ccr.enabled else None
    toin = toin_from_config(hc)
    tracker, feedback_error = _feedback_view(hc, store, toin)
    return Pipeline(hc, store=store, feedback=tracker, toin=toin), tracker, feedback_error


def build_state(proxy_config: ProxyConfig | None, headroom_config: HeadroomConfig | None, *,
                transport: httpx.AsyncBaseTransport | None = None, pipeline: Pipeline | None = None,
                metrics_store: Any = None) -> ProxyState:
    """One app's state. A caller's ``pipeline`` (and its store) stays the caller's to close:
    ``state.owns_store`` says which."""
    cfg = proxy_config or ProxyConfig()
    register_adapters(cfg.adapter_modules)
    hc = headroom_config or (pipeline.config if pipeline is not None else default_headroom_config())
    owns_store = pipeline is None
    if pipeline is None:
        pipeline, tracker, feedback_error = _pipeline(hc)
    else:
        tracker, feedback_error = (pipeline.feedback, None) if pipeline.feedback is not None \
            else _feedback_view(hc, pipeline.store, pipeline.toin)
    if metrics_store is None and cfg.metrics_db:
        from ..metrics import MetricsStore

        metrics_store = MetricsStore(cfg.metrics_db)
    return ProxyState(cfg, hc, pipeline, make_client(cfg, transport), metrics=metrics_store,
                      feedback=tracker, feedback_error=feedback_error, owns_store=owns_store)


def lifespan(state: ProxyState):
    """Start-up and shut-down of an app serving ``state``."""

    @asynccontextmanager
    async def run(_app: Any):
        pipeline = state.pipeline
        # Every model the configuration enables loads before uvicorn accepts a request,
        # so /health answers only once no request will pay for a load.
        state.warm_up = await asyncio.to_thread(pipeline.warm_up)
        state.drain.install()  # after the server's own signal handlers, which it wraps
        yield
        await state.client.aclose()
        await asyncio.to_thread(state.close)
        if pipeline.toin is not None:  # learned counts still buffered go to the store
            await asyncio.to_thread(pipeline.toin.close if state.owns_store else pipeline.toin.flush)
        if state.owns_store and state.store is not None:
            state.store.close()

    return run
