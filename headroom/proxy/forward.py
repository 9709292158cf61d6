"""The LLM routes: compress the request, forward it, run the CCR loop, relay the answer.

One code path serves Chat Completions, Responses and Messages; the format only selects
the adapter (headroom.formats) and the response shape (headroom.ccr.responses).
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import time
from dataclasses import dataclass, field
from typing import Any

import httpx
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from ..ccr.responses import (
    RetrieveCall,
    SSEDecoder,
    StreamAccumulator,
    answer,
    continue_body,
    retrieve_calls,
    unknown_hash_message,
)
from ..ccr.scope import may_read, tenant_tag
from ..ccr.store import StoreError
from ..ccr.tool import forbid_tool_calls, inject_retrieve_tool
from ..modes import AUDIT, OPTIMIZE, PASSTHROUGH
from ..pipeline import PipelineResult
from ..providers import provider_for
from .disconnect import ClientDisconnected, until_disconnect
from .jsonio import BadJSON, SafeJSONResponse, dumps, parse_json
from .paths import UnsafePath, raw_path, upstream_url
from .relay import RelayResponse, relay_chunks, sse_error_event
from .state import ProxyState
from .upstream import request_headers, response_headers

log = logging.getLogger("headroom.proxy")

PROVIDERS = {"openai_chat": "openai", "openai_responses": "openai", "anthropic": "anthropic"}


def error_response(status: int, message: str, kind: str = "invalid_request_error") -> JSONResponse:
    return SafeJSONResponse({"error": {"type": kind, "message": message}}, status_code=status)


def _truthy(value: str | None) -> bool:
    return (value or "").strip().lower() in ("1", "true", "yes", "on")


# Bodies above this are "large": they are serialised in a worker thread, so a
# multi-megabyte json.dumps does not stall other streams, and their raw bytes are not kept
# while the pipeline runs (peak memory is then one copy of the body, not two; see
# docs/proxy.md). Parsing stays inline: parsed in a thread, the body would land in another
# malloc arena and peak RSS would grow by about one body size instead.
_INLINE_JSON_BYTES = 256 * 1024
# The pipeline's own budget, as a share of --compression-timeout: it stops starting new
# blocks in time to hand back what it finished before the proxy stops waiting.
COMPRESSION_BUDGET_SHARE = 0.8


async def _serialise(body: dict[str, Any], large: bool) -> bytes:
    return await asyncio.to_thread(dumps, body) if large else dumps(body)


async def read_body(request: Request) -> bytes:
    """The request body, without Starlette's per-request copy (``request.body()`` caches it)."""
    chunks = [chunk async for chunk in request.stream()]
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


@dataclass
class Outgoing:
    """The request as it will be sent upstream, and what happened on the way."""

    content: bytes  # exact bytes to send
    body: dict[str, Any]  # the same as JSON (the CCR loop extends it)
    mode: str  # optimize | audit | passthrough | bypass
    result: PipelineResult | None = None
    injected: bool = False
    compression_error: str | None = None
    tenant: str | None = None  # headroom.ccr.scope tag of the request's credential

    @property
    def compressed(self) -> bool:
        return self.mode == OPTIMIZE and self.result is not None

    def headers(self) -> dict[str, str]:
        out = {"x-headroom-mode": self.mode}
        if self.result is not None:
            out["x-headroom-tokens-before"] = str(self.result.tokens_before)
            out["x-headroom-tokens-after"] = str(self.result.tokens_after)
            out["x-headroom-tokens-saved"] = str(self.result.tokens_saved)
            out["x-headroom-compression-ms"] = f"{self.result.duration_ms:.2f}"
        if self.compression_error:
            out["x-headroom-compression"] = "failed"
        return out


@dataclass
class Exchange:
    """Book-keeping for one client request, however many upstream rounds it takes."""

    api: str
    started: float = field(default_factory=time.perf_counter)
    rounds: int = 0
    calls: int = 0
    status: int = 0
    usage: dict[str, Any] | None = None
    error: str | None = None


async def prepare(state: ProxyState, body: dict[str, Any], raw: bytes | None, fmt: str, bypass: bool,
                  tenant: str | None = None) -> Outgoing:
    """Compress ``body`` off the event loop, with a deadline; never worse than the original.

    ``raw`` is the body as the client sent it, or None for a large body whose bytes the
    caller let go (see ``_INLINE_JSON_BYTES``); it is rebuilt from ``body`` if needed.
    """
    mode = state.config.mode
    if bypass or mode == PASSTHROUGH:
        assert raw is not None, "pass-through requests keep their bytes"
        return Outgoing(raw, body, "bypass" if bypass else mode)
    large = raw is None
    timeout = state.config.compression_timeout_s
    try:
        # Its own workers (not the loop's default executor, which serialises bodies and
        # answers retrieve calls), and a budget inside the deadline: blocks compressed in
        # time are kept, the rest go through unchanged, instead of all-or-nothing.
        work = functools.partial(state.pipeline.compress_body, body, fmt, tenant=tenant,
                                 budget_s=timeout * COMPRESSION_BUDGET_SHARE)
        result = await asyncio.wait_for(asyncio.get_running_loop().run_in_executor(state.compress_pool, work),
                                        timeout)
    except asyncio.TimeoutError:
        reason = f"timed out after {timeout:g} s"
    except Exception as exc:  # noqa: BLE001 - never worse: any failure forwards the original
        reason = f"{type(exc).__name__}: {exc}"
    else:
        reason = None
    if reason is not None:
        # Never worse: the request goes through as the client sent it.
        log.warning("compression skipped for %s request: %s; forwarding the original body", fmt, reason)
        return Outgoing(raw or await _serialise(body, large), body, mode, compression_error=reason)
    if mode == AUDIT:
        return Outgoing(raw or await _serialise(body, large), body, mode, result=result)
    out = result.body
    injected = False
    if state.ccr_loop_enabled:
        with_tool = inject_retrieve_tool(out, fmt)
        injected, out = with_tool is not out, with_tool
    # Unchanged requests go out byte for byte as they came (large ones: the same JSON).
    content = (raw or await _serialise(body, large)) if out == body else await _serialise(out, large)
    return Outgoing(content, out, mode, result=result, injected=injected)


async def handle_llm(request: Request, state: ProxyState, fmt: str, base_url: str) -> Response:
    ex = Exchange(api=fmt)
    raw = await read_body(request)
    try:
        body = parse_json(raw)
    except BadJSON as exc:
        return error_response(400, str(exc))
    if not isinstance(body, dict):
        return error_response(400, f"request body must be a JSON object, got {type(body).__name__}")
    if state.config.log_bodies:
        log.debug("request body (%s): %s", fmt, raw[:4096].decode("utf-8", errors="replace"))
    bypass = _truthy(request.headers.get("x-headroom-bypass"))
    compressing = not bypass and state.config.mode != PASSTHROUGH
    original = None if compressing and len(raw) >= _INLINE_JSON_BYTES else raw
    del raw  # a large body being compressed is held once (parsed), not twice
    tenant = tenant_tag(request.headers.items())
    out = await prepare(state, body, original, fmt, bypass, tenant)
    out.tenant = tenant
    url = upstream_url(base_url, raw_path(request.scope), request.url.query)
    headers = request_headers(request.headers.items())
    stream = body.get("stream") is True
    try:
        # A client that goes away cancels the upstream call (and any CCR round) at once.
        if stream:
            return await until_disconnect(request.receive, _stream(state, fmt, url, headers, out, ex))
        return await until_disconnect(request.receive, _complete(state, fmt, url, headers, out, ex))
    except ClientDisconnected:
        ex.status, ex.error = 499, "client disconnected"
        _finish(state, fmt, out, ex, stream=stream, model=body.get("model"))
        return Response(status_code=499)  # nobody reads it; the status is for logs and metrics
    except httpx.TimeoutException as exc:
        ex.status, ex.error = 504, f"upstream timed out: {type(exc).__name__}"
        _finish(state, fmt, out, ex, stream=stream, model=body.get("model"))
        return error_response(504, ex.error, "upstream_timeout")
    except httpx.HTTPError as exc:
        ex.status, ex.error = 502, f"upstream unreachable: {type(exc).__name__}"
        _finish(state, fmt, out, ex, stream=stream, model=body.get("model"))
        return error_response(502, ex.error, "upstream_error")


async def _send(state: ProxyState, url: str, headers: list[tuple[str, str]], content: bytes) -> httpx.Response:
    req = state.client.build_request("POST", url, content=content, headers=headers)
    return await state.client.send(req, stream=True)


def _answers(state: ProxyState, calls: list[RetrieveCall], out: Outgoing) -> dict[str, str]:
    """Answers from the store, for hashes this request may read (headroom.ccr.scope)."""
    def one(call: RetrieveCall) -> str:
        try:
            allowed = not call.hash or may_read(state.store, call.hash, out.tenant, out.content)
        except StoreError:
            allowed = True  # answer() reports the store failure to the model
        return answer(state.store, call) if allowed else unknown_hash_message(call.hash)

    return {c.id: one(c) for c in calls}


def _turn_calls(turn: Any, fmt: str) -> list[RetrieveCall] | None:
    """The turn's retrieve-only calls; None for any other turn, or one we cannot read.

    A malformed upstream answer is the provider's to explain: it goes to the client
    unchanged rather than failing here (issue 12, F6).
    """
    try:
        return retrieve_calls(turn, fmt)
    except (TypeError, AttributeError, KeyError, IndexError, ValueError):
        log.warning("could not read the upstream's %s turn; relaying it unchanged", fmt)
        return None


def _unanswerable(calls: list[RetrieveCall], final: bool) -> str | None:
    """Why these retrieve calls cannot go on (the client must never see them), or None."""
    if any(not c.id for c in calls):
        return "the model called headroom_retrieve without an id, so headroom cannot answer the call"
    if final:
        return ("the model kept calling headroom_retrieve after the retrieve-round limit, even when "
                "no tool call was allowed")
    return None


async def _next_body(state: ProxyState, body: dict[str, Any], turn: dict[str, Any], fmt: str,
                     calls: list[RetrieveCall], ex: Exchange, out: Outgoing) -> tuple[dict[str, Any], bool]:
    """The body of the next round, and whether it is the last (no tool calls allowed).

    After ``max_retrieve_rounds`` the model gets its answers and one more turn with tool
    calls forbidden, so the client never receives a call to a tool it did not declare (F7).
    """
    answers = await asyncio.to_thread(_answers, state, calls, out)
    body = continue_body(body, turn, fmt, answers)
    ex.rounds += 1
    ex.calls += len(calls)
    if ex.rounds > state.headroom_config.ccr.max_retrieve_rounds:
        return forbid_tool_calls(body, fmt), True
    return body, False


async def _complete(state: ProxyState, fmt: str, url: str, headers: list[tuple[str, str]], out: Outgoing,
                    ex: Exchange) -> Response:
    body, content = out.body, out.content
    final = False
    while True:
        resp = await _send(state, url, headers, content)
        try:
            data = await resp.aread()
        finally:
            await resp.aclose()
        if not (out.injected and resp.status_code == 200):
            break
        try:
            turn = json.loads(data)
        except ValueError:
            break
        calls = _turn_calls(turn, fmt)
        if not calls:
            break
        problem = _unanswerable(calls, final)
        if problem is not None:
            ex.status, ex.error = 502, problem
            _finish(state, fmt, out, ex, stream=False, model=out.body.get("model"))
            return error_response(502, problem, "upstream_error")
        # The model asked only for originals: answer from the store and carry on ourselves.
        body, final = await _next_body(state, body, turn, fmt, calls, ex, out)
        content = dumps(body)
    ex.status = resp.status_code
    if resp.status_code == 200:
        ex.usage = _usage(data)
    _finish(state, fmt, out, ex, stream=False, model=out.body.get("model"))
    return Response(data, status_code=resp.status_code, headers=response_headers(resp.headers, out.headers()))


async def _stream(state: ProxyState, fmt: str, url: str, headers: list[tuple[str, str]], out: Outgoing,
                  ex: Exchange) -> Response:
    resp = await _send(state, url, headers, out.content)
    ex.status = resp.status_code
    model = out.body.get("model")
    if resp.status_code >= 400:
        # Errors are JSON, not a stream: pass them through whole, with their status.
        data = await resp.aread()
        await resp.aclose()
        _finish(state, fmt, out, ex, stream=True, model=model)
        return Response(data, status_code=resp.status_code, headers=response_headers(resp.headers, out.headers()))
    if out.injected:
        chunks = _ccr_stream(state, fmt, url, headers, out, resp, ex)
    else:
        chunks = relay_chunks(resp, fmt)

    def on_close(disconnected: bool) -> None:
        if disconnected:
            ex.error = "client disconnected"
        _finish(state, fmt, out, ex, stream=True, model=model)

    return RelayResponse(chunks, resp.status_code, response_headers(resp.headers, out.headers()), on_close)


async def _ccr_stream(state: ProxyState, fmt: str, url: str, headers: list[tuple[str, str]], out: Outgoing,
                      resp: httpx.Response, ex: Exchange):
    """Relay a streamed turn, or, when it is a retrieve-only call, answer it and stream the next turn.

    A turn is held back until it is known not to be retrieve-only: until it ends, or until
    it starts a tool call of the client's (then it is relayed at once).
    """
    body = out.body
    final = False
    try:
        while True:
            decoder, acc = SSEDecoder(), StreamAccumulator(fmt)
            held: list[bytes] = []
            relaying = False
            async for chunk in resp.aiter_bytes():
                if relaying:
                    yield chunk
                    continue
                held.append(chunk)
                try:
                    for event, _ in decoder.feed(chunk):
                        acc.feed_event(event)
                except (TypeError, AttributeError, KeyError, IndexError, ValueError):
                    # An event we cannot read (F6): the stream is the provider's to explain.
                    log.warning("could not read the upstream's %s stream; relaying it unchanged", fmt)
                    relaying = True
                if relaying or acc.saw_foreign_call or acc.error is not None:
                    relaying = True
                    yield b"".join(held)
                    held.clear()
            await resp.aclose()
            if relaying:
                return
            rest = decoder.flush()
            if rest.strip():
                # The last event lacked its blank line (F9): its bytes are already held, so
                # it is read here, and terminated for the client, but never sent twice.
                for event, _ in SSEDecoder().feed(rest + b"\n\n"):
                    acc.feed_event(event)
                held.append(b"\n\n")
            turn = acc.response()
            if isinstance(turn.get("usage"), dict):
                ex.usage = turn["usage"]
            calls = _turn_calls(turn, fmt)
            if not calls:
                yield b"".join(held)
                return
            problem = _unanswerable(calls, final)
            if problem is not None:
                ex.error = problem
                yield sse_error_event(fmt, problem, "upstream_error")
                return
            body, final = await _next_body(state, body, turn, fmt, calls, ex, out)
            resp = await _send(state, url, headers, dumps(body))
            if resp.status_code >= 400:
                # The client already has a 200 stream: report the failure inside it.
                detail = (await resp.aread()).decode("utf-8", errors="replace")[:2000]
                ex.status = resp.status_code
                yield sse_error_event(fmt, f"upstream returned {resp.status_code} while headroom answered "
                                      f"headroom_retrieve: {detail}", "upstream_error", resp.status_code)
                return
    except httpx.HTTPError as exc:
        ex.error = f"upstream stream failed: {type(exc).__name__}"
        yield sse_error_event(fmt, ex.error, "upstream_error")
    finally:
        await resp.aclose()


def _usage(data: bytes) -> dict[str, Any] | None:
    try:
        parsed = json.loads(data)
    except ValueError:
        return None
    usage = parsed.get("usage") if isinstance(parsed, dict) else None
    return usage if isinstance(usage, dict) else None


def _usage_columns(usage: dict[str, Any] | None) -> dict[str, int]:
    if not usage:
        return {}
    output = usage.get("completion_tokens", usage.get("output_tokens", 0)) or 0
    details = usage.get("prompt_tokens_details") or usage.get("input_tokens_details") or {}
    cached = (details.get("cached_tokens") if isinstance(details, dict) else 0) or usage.get("cache_read_input_tokens") or 0
    return {"output_tokens": int(output), "cached_tokens": int(cached)}


def _finish(state: ProxyState, fmt: str, out: Outgoing, ex: Exchange, *, stream: bool, model: Any) -> None:
    """Count the request in /stats, write its metrics row, log one line (never headers or bodies)."""
    latency_ms = (time.perf_counter() - ex.started) * 1000
    result = out.result
    by_transform: dict[str, int] = {}
    if result is not None:
        for d in result.decisions:
            if d.tokens_saved > 0:
                key = f"{d.transform}:{d.strategy}" if d.strategy else d.transform
                by_transform[key] = by_transform.get(key, 0) + d.tokens_saved
    state.stats.record(
        api=fmt, mode=out.mode, status=ex.status, latency_ms=latency_ms,
        tokens_before=result.tokens_before if result else 0, tokens_after=result.tokens_after if result else 0,
        forwarded_compressed=out.compressed, by_transform=by_transform,
        compression_ms=result.duration_ms if result else None, bypassed=out.mode == "bypass",
        compression_failed=out.compression_error is not None, retrieve_rounds=ex.rounds, retrieve_calls=ex.calls,
    )
    log.info("%s model=%s mode=%s status=%d tokens=%s->%s rounds=%d %.1f ms%s", fmt, model, out.mode, ex.status,
             result.tokens_before if result else "-", result.tokens_after if result else "-", ex.rounds, latency_ms,
             f" error={ex.error}" if ex.error else "")
    if state.metrics is None:
        return
    from ..metrics import RequestMetrics

    columns: dict[str, Any] = dict(
        provider=PROVIDERS.get(fmt, ""), model=model if isinstance(model, str) else "",
        latency_ms=round(latency_ms, 3), stream=stream, status_code=ex.status, retrievals=ex.calls,
        error=ex.error or (f"compression: {out.compression_error}" if out.compression_error else None),
        **_usage_columns(ex.usage),
    )
    mode = out.mode if out.mode != "bypass" else PASSTHROUGH
    if out.compressed and isinstance(model, str):
        # What the tokens not sent would have cost (the report's "Est. cost saved").
        columns["cost_saved_usd"] = provider_for(model).savings_usd(model, result.tokens_saved)
    row = RequestMetrics.from_pipeline(result, mode=mode, **columns) if result else RequestMetrics(mode=mode, **columns)
    state.record_row(row)


async def handle_passthrough(request: Request, state: ProxyState, base_url: str) -> Response:
    """Any other provider route: forwarded untouched, the answer streamed back as it comes."""
    raw = await request.body()
    try:
        url = upstream_url(base_url, raw_path(request.scope), request.url.query)
    except UnsafePath as exc:
        return error_response(400, f"refused path: {exc}", "invalid_path")
    req = state.client.build_request(request.method, url, content=raw or None,
                                     headers=request_headers(request.headers.items()))
    try:
        resp = await state.client.send(req, stream=True)
    except httpx.TimeoutException as exc:
        return error_response(504, f"upstream timed out: {type(exc).__name__}", "upstream_timeout")
    except httpx.HTTPError as exc:
        return error_response(502, f"upstream unreachable: {type(exc).__name__}", "upstream_error")
    is_sse = resp.headers.get("content-type", "").startswith("text/event-stream")
    return RelayResponse(relay_chunks(resp, "anthropic" if is_sse else None), resp.status_code,
                         response_headers(resp.headers, {"x-headroom-mode": PASSTHROUGH}))
