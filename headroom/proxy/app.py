"""``create_app()``: the FastAPI app behind ``headroom proxy``.

Routes
  POST /v1/chat/completions, /v1/responses, /v1/messages   compressed, CCR loop, streaming
  POST /v1beta/models/{model}:generateContent, :streamGenerateContent   the same, for Gemini
  POST /v1/messages/count_tokens, any other /v1/*          forwarded untouched
  POST /v1/compress                                        compress a body, return it
  POST /v1/retrieve, GET /v1/retrieve/{hash}, GET /v1/retrieve/stats
  GET  /v1/feedback, /v1/feedback/{tool}, /v1/toin/stats, /v1/toin/patterns[/{signature}],
       /health, /stats, /metrics
"""

from __future__ import annotations

import asyncio
import logging
import os
from contextlib import asynccontextmanager
from typing import Any

import httpx
from fastapi import FastAPI
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response

from ..ccr.store import StoreError
from ..config import CCRConfig, HeadroomConfig
from ..formats import ANTHROPIC, GEMINI, OPENAI_CHAT, OPENAI_RESPONSES
from ..pipeline import UNAVAILABLE, Pipeline
from ..version import __version__
from .admin_scope import RetrieveScope, retrieve_scope
from .config import ProxyConfig
from .forward import error_response, handle_llm, handle_passthrough
from .jsonio import BadJSON, SafeJSONResponse, parse_json
from .not_found import register as register_not_found
from .security import SecurityMiddleware
from .state import ProxyState
from .upstream import make_client

log = logging.getLogger("headroom.proxy")

_ANTHROPIC_HEADERS = ("anthropic-version", "x-api-key", "anthropic-beta")


def _openai_format(path: str) -> str:
    """The OpenAI API a pass-through path under ``/v1/`` belongs to: a stored response's
    routes (``responses/{id}``, streamed again with ``?stream=true``) are the Responses
    API's; the others that stream (legacy completions) send Chat-shaped events."""
    return OPENAI_RESPONSES if path.split("/", 1)[0] == "responses" else OPENAI_CHAT


def default_headroom_config() -> HeadroomConfig:
    """The proxy keeps originals in SQLite by default, so markers survive a restart."""
    return HeadroomConfig(ccr=CCRConfig(backend="sqlite"))


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


def create_app(
    proxy_config: ProxyConfig | None = None,
    headroom_config: HeadroomConfig | None = None,
    *,
    transport: httpx.AsyncBaseTransport | None = None,
    pipeline: Pipeline | None = None,
    metrics_store: Any = None,
) -> FastAPI:
    """Build the proxy app.

    ``transport`` replaces the network under the upstream client (tests aim it at a fake);
    ``pipeline`` and ``metrics_store`` replace the ones built from the configs.
    """
    cfg = proxy_config or ProxyConfig()
    hc = headroom_config or (pipeline.config if pipeline is not None else default_headroom_config())
    owns_store = pipeline is None  # a caller's pipeline (and its store) stays the caller's to close
    if pipeline is None:
        from ..ccr.store import CompressionStore
        from ..toin import toin_from_config

        store = CompressionStore.from_config(hc.ccr) if hc.ccr.enabled else None
        toin = toin_from_config(hc)
        tracker, feedback_error = _feedback_view(hc, store, toin)
        pipeline = Pipeline(hc, store=store, feedback=tracker, toin=toin)
    else:
        tracker, feedback_error = (pipeline.feedback, None) if pipeline.feedback is not None \
            else _feedback_view(hc, pipeline.store, pipeline.toin)
    if metrics_store is None and cfg.metrics_db:
        from ..metrics import MetricsStore

        metrics_store = MetricsStore(cfg.metrics_db)
    state = ProxyState(cfg, hc, pipeline, make_client(cfg, transport), metrics=metrics_store,
                       feedback=tracker, feedback_error=feedback_error)

    @asynccontextmanager
    async def lifespan(_app: FastAPI):
        # Every model the configuration enables loads before uvicorn accepts a request,
        # so /health answers only once no request will pay for a load.
        state.warm_up = await asyncio.to_thread(pipeline.warm_up)
        yield
        await state.client.aclose()
        await asyncio.to_thread(state.close)
        if pipeline.toin is not None:  # learned counts still buffered go to the store
            await asyncio.to_thread(pipeline.toin.close if owns_store else pipeline.toin.flush)
        if owns_store and state.store is not None:
            state.store.close()

    app = FastAPI(title="headroom proxy", version=__version__, lifespan=lifespan,
                  docs_url=None, redoc_url=None, openapi_url=None)
    app.state.headroom = state
    app.add_middleware(SecurityMiddleware, config=cfg)
    register_not_found(app)  # unknown paths: a JSON 404 naming the likely fix (not_found.py)

    @app.post("/v1/chat/completions")
    async def chat_completions(request: Request) -> Response:
        return await handle_llm(request, state, "openai_chat", cfg.openai_api_url)

    @app.post("/v1/responses")
    async def responses(request: Request) -> Response:
        return await handle_llm(request, state, "openai_responses", cfg.openai_api_url)

    @app.post("/v1/messages")
    async def messages(request: Request) -> Response:
        return await handle_llm(request, state, "anthropic", cfg.anthropic_api_url)

    @app.post("/v1beta/models/{target}")
    async def gemini(request: Request, target: str) -> Response:
        # generateContent / streamGenerateContent: the model and the stream flag are in the URL.
        model, _, action = target.partition(":")
        if action not in ("generateContent", "streamGenerateContent"):
            return await handle_passthrough(request, state, cfg.gemini_api_url, GEMINI)
        return await handle_llm(request, state, "gemini", cfg.gemini_api_url, model=model,
                                stream=action == "streamGenerateContent")

    @app.post("/v1/messages/count_tokens")
    async def count_tokens(request: Request) -> Response:
        return await handle_passthrough(request, state, cfg.anthropic_api_url, ANTHROPIC)

    @app.post("/v1/compress")
    async def compress(request: Request) -> Response:
        try:
            body = parse_json(await request.body())
        except BadJSON as exc:
            return error_response(400, str(exc))
        if not isinstance(body, dict):
            return error_response(400, "request body must be a JSON object (a chat, responses or messages body)")
        fmt = request.query_params.get("format")
        try:
            result = await asyncio.wait_for(asyncio.to_thread(state.pipeline.compress_body, body, fmt),
                                            cfg.compression_timeout_s)
        except asyncio.TimeoutError:
            return error_response(504, "compression timed out", "compression_timeout")
        except ValueError as exc:
            return error_response(400, str(exc))
        return SafeJSONResponse({
            "format": result.format, "body": result.body, "tokens_before": result.tokens_before,
            "tokens_after": result.tokens_after, "tokens_saved": result.tokens_saved,
            "transforms_applied": result.transforms_applied, "ccr_hashes": result.ccr_hashes,
            "decisions": [d.to_dict() for d in result.decisions], "duration_ms": round(result.duration_ms, 3),
        })

    def _retrieve(hash: str, query: str | None, scope: RetrieveScope) -> Response:
        if state.store is None:
            return error_response(404, "CCR is disabled: nothing is stored", "not_found")
        try:
            found = state.store.retrieve(hash, query or None) if scope.may_read(state.store, hash) else None
        except StoreError as exc:
            return error_response(503, str(exc), "store_unavailable")
        if found is None:
            return error_response(404, f"unknown or expired hash {hash}", "not_found")
        return SafeJSONResponse(found.to_api(query or None))

    @app.post("/v1/retrieve")
    async def retrieve_post(request: Request) -> Response:
        try:
            body = parse_json(await request.body())
        except BadJSON as exc:
            return error_response(400, str(exc))
        if not isinstance(body, dict) or not isinstance(body.get("hash"), str):
            return error_response(400, "expected a JSON object with a string 'hash' (and an optional 'query')")
        query = body.get("query") if isinstance(body.get("query"), str) else None
        return await asyncio.to_thread(_retrieve, body["hash"], query, retrieve_scope(request, cfg))

    @app.get("/v1/retrieve/stats")
    async def retrieve_stats() -> Response:
        if state.store is None:
            return JSONResponse({"enabled": False})
        stats = await asyncio.to_thread(state.store.stats)
        return JSONResponse({"enabled": True, **stats, "proxy_rounds": state.stats.retrieve_rounds,
                             "proxy_calls_answered": state.stats.retrieve_calls})

    @app.get("/v1/retrieve/{hash}")
    async def retrieve_get(request: Request, hash: str, query: str | None = None) -> Response:
        return await asyncio.to_thread(_retrieve, hash, query, retrieve_scope(request, cfg))

    @app.get("/v1/feedback")
    async def feedback() -> Response:
        if state.feedback is None:
            return error_response(501, state.feedback_error or "feedback unavailable", "not_implemented")
        return JSONResponse(await asyncio.to_thread(state.feedback.summary))

    @app.get("/v1/feedback/{tool}")
    async def feedback_tool(tool: str) -> Response:
        if state.feedback is None:
            return error_response(501, state.feedback_error or "feedback unavailable", "not_implemented")
        data = await asyncio.to_thread(state.feedback.tool, tool)
        if data is None:
            return error_response(404, f"no feedback recorded for tool {tool!r}", "not_found")
        return JSONResponse(data)

    def _toin_off() -> Response:
        return error_response(501, "TOIN is disabled (toin.enabled)", "not_implemented")

    @app.get("/v1/toin/stats")
    async def toin_stats() -> Response:
        if pipeline.toin is None:
            return _toin_off()
        return JSONResponse(await asyncio.to_thread(pipeline.toin.stats))

    @app.get("/v1/toin/patterns")
    async def toin_patterns() -> Response:
        if pipeline.toin is None:
            return _toin_off()

        def all_patterns() -> list[dict[str, Any]]:
            return [pipeline.toin.pattern(s, fresh=True).to_dict() for s in pipeline.toin.signatures()]

        return JSONResponse({"patterns": await asyncio.to_thread(all_patterns)})

    @app.get("/v1/toin/patterns/{signature}")
    async def toin_pattern(signature: str) -> Response:
        if pipeline.toin is None:
            return _toin_off()
        found = await asyncio.to_thread(pipeline.toin.find, signature)
        if found is None:
            return error_response(404, f"no single signature starts with {signature!r}", "not_found")
        return JSONResponse(found.to_dict())

    @app.get("/health")
    async def health() -> Response:
        failed = {k: v for k, v in state.warm_up.items() if v != "ok" and not v.startswith(UNAVAILABLE)}
        unavailable = {k: v for k, v in state.warm_up.items() if v.startswith(UNAVAILABLE)}
        # No system call here (headroom/proxy/health.py): /health must answer at once
        # even while compression holds the GIL and occupies every thread.
        store_problem = state.health.current_store_problem()
        if state.health.ocr is not None:  # the shared OCR process cannot serve
            kind, why = state.health.ocr
            (failed if kind == "degraded" else unavailable)["ocr"] = why
        return JSONResponse({"status": "degraded" if failed or store_problem else "ok", "version": __version__,
                             "mode": cfg.mode, "worker": os.getpid(), **({"warm_up_failed": failed} if failed else {}),
                             **({"unavailable": unavailable} if unavailable else {}),
                             **({"ccr_store": store_problem} if store_problem else {})})

    @app.get("/stats")
    async def stats() -> Response:
        counters, memo, workers = await asyncio.to_thread(state.whole_proxy)  # every worker's, summed
        data = counters.snapshot()
        data["mode"] = cfg.mode
        data["workers"] = workers
        data["ccr_store"] = await asyncio.to_thread(state.store.stats) if state.store is not None else None
        data["memo"] = {"entries": memo["memo_entries"], "hits": memo["memo_hits"], "misses": memo["memo_misses"]}
        if state.metrics is not None:
            data["metrics_db"] = state.metrics.path
        return JSONResponse(data)

    @app.get("/metrics")
    async def metrics() -> Response:
        store_stats = await asyncio.to_thread(state.store.stats) if state.store is not None else None
        counters, _, _ = await asyncio.to_thread(state.whole_proxy)
        return PlainTextResponse(counters.prometheus(store_stats), media_type="text/plain; version=0.0.4")

    @app.api_route("/v1/{path:path}", methods=["GET", "POST", "PUT", "PATCH", "DELETE"])
    async def other_v1(request: Request, path: str) -> Response:
        if any(h in request.headers for h in _ANTHROPIC_HEADERS):
            return await handle_passthrough(request, state, cfg.anthropic_api_url, ANTHROPIC)
        return await handle_passthrough(request, state, cfg.openai_api_url, _openai_format(path))

    return app
