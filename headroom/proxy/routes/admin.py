"""headroom's own API: compress a body, read originals back (CCR), retrieval feedback,
TOIN's learned patterns, and the proxy's counters (``/stats``, ``/metrics``)."""

from __future__ import annotations

import asyncio
from typing import Any

from fastapi import APIRouter
from starlette.requests import Request
from starlette.responses import JSONResponse, PlainTextResponse, Response

from ...ccr.store import StoreError
from ..admin_scope import RetrieveScope, retrieve_scope
from ..forward import error_response
from ..jsonio import BadJSON, SafeJSONResponse, parse_json
from ..state import CurrentState, ProxyState

router = APIRouter()


async def _json_object(request: Request, not_an_object: str) -> dict | Response:
    """The request's JSON object body, or the 400 answer to send instead."""
    try:
        body = parse_json(await request.body())
    except BadJSON as exc:
        return error_response(400, str(exc))
    return body if isinstance(body, dict) else error_response(400, not_an_object)


@router.post("/v1/compress")
async def compress(request: Request, state: CurrentState) -> Response:
    body = await _json_object(request, "request body must be a JSON object (a chat, responses or messages body)")
    if isinstance(body, Response):
        return body
    fmt = request.query_params.get("format")
    try:
        result = await asyncio.wait_for(asyncio.to_thread(state.pipeline.compress_body, body, fmt),
                                        state.config.compression_timeout_s)
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


def _retrieve(state: ProxyState, hash: str, query: str | None, scope: RetrieveScope) -> Response:
    if state.store is None:
        return error_response(404, "CCR is disabled: nothing is stored", "not_found")
    try:
        found = state.store.retrieve(hash, query or None) if scope.may_read(state.store, hash) else None
    except StoreError as exc:
        return error_response(503, str(exc), "store_unavailable")
    if found is None:
        return error_response(404, f"unknown or expired hash {hash}", "not_found")
    return SafeJSONResponse(found.to_api(query or None))


@router.post("/v1/retrieve")
async def retrieve_post(request: Request, state: CurrentState) -> Response:
    body = await _json_object(request, "expected a JSON object with a string 'hash' (and an optional 'query')")
    if isinstance(body, Response):
        return body
    if not isinstance(body.get("hash"), str):
        return error_response(400, "expected a JSON object with a string 'hash' (and an optional 'query')")
    query = body.get("query") if isinstance(body.get("query"), str) else None
    return await asyncio.to_thread(_retrieve, state, body["hash"], query, retrieve_scope(request, state.config))


@router.get("/v1/retrieve/stats")
async def retrieve_stats(state: CurrentState) -> Response:
    if state.store is None:
        return JSONResponse({"enabled": False})
    stats = await asyncio.to_thread(state.store.stats)
    return JSONResponse({"enabled": True, **stats, "proxy_rounds": state.stats.retrieve_rounds,
                         "proxy_calls_answered": state.stats.retrieve_calls})


@router.get("/v1/retrieve/{hash}")
async def retrieve_get(request: Request, hash: str, state: CurrentState, query: str | None = None) -> Response:
    return await asyncio.to_thread(_retrieve, state, hash, query, retrieve_scope(request, state.config))


def _no_feedback(state: ProxyState) -> Response:
    return error_response(501, state.feedback_error or "feedback unavailable", "not_implemented")


@router.get("/v1/feedback")
async def feedback(state: CurrentState) -> Response:
    if state.feedback is None:
        return _no_feedback(state)
    return JSONResponse(await asyncio.to_thread(state.feedback.summary))


@router.get("/v1/feedback/{tool}")
async def feedback_tool(tool: str, state: CurrentState) -> Response:
    if state.feedback is None:
        return _no_feedback(state)
    data = await asyncio.to_thread(state.feedback.tool, tool)
    if data is None:
        return error_response(404, f"no feedback recorded for tool {tool!r}", "not_found")
    return JSONResponse(data)


def _toin_off() -> Response:
    return error_response(501, "TOIN is disabled (toin.enabled)", "not_implemented")


@router.get("/v1/toin/stats")
async def toin_stats(state: CurrentState) -> Response:
    toin = state.pipeline.toin
    if toin is None:
        return _toin_off()
    return JSONResponse(await asyncio.to_thread(toin.stats))


@router.get("/v1/toin/patterns")
async def toin_patterns(state: CurrentState) -> Response:
    toin = state.pipeline.toin
    if toin is None:
        return _toin_off()

    def all_patterns() -> list[dict[str, Any]]:
        return [toin.pattern(s, fresh=True).to_dict() for s in toin.signatures()]

    return JSONResponse({"patterns": await asyncio.to_thread(all_patterns)})


@router.get("/v1/toin/patterns/{signature}")
async def toin_pattern(signature: str, state: CurrentState) -> Response:
    toin = state.pipeline.toin
    if toin is None:
        return _toin_off()
    found = await asyncio.to_thread(toin.find, signature)
    if found is None:
        return error_response(404, f"no single signature starts with {signature!r}", "not_found")
    return JSONResponse(found.to_dict())


@router.get("/stats")
async def stats(state: CurrentState) -> Response:
    counters, memo, workers = await asyncio.to_thread(state.whole_proxy)  # every worker's, summed
    data = counters.snapshot()
    data["mode"] = state.config.mode
    data["workers"] = workers
    data["ccr_store"] = await asyncio.to_thread(state.store.stats) if state.store is not None else None
    data["memo"] = {"entries": memo["memo_entries"], "hits": memo["memo_hits"], "misses": memo["memo_misses"]}
    if state.metrics is not None:
        data["metrics_db"] = state.metrics.path
    return JSONResponse(data)


@router.get("/metrics")
async def metrics(state: CurrentState) -> Response:
    store_stats = await asyncio.to_thread(state.store.stats) if state.store is not None else None
    counters, _, _ = await asyncio.to_thread(state.whole_proxy)
    return PlainTextResponse(counters.prometheus(store_stats), media_type="text/plain; version=0.0.4")
