"""The LLM routes: compress the request, forward it, run the CCR loop, relay the answer.

One code path serves Chat Completions, Responses and Messages; the format only selects
the adapter (headroom.formats) and the response shape (headroom.ccr.responses).
"""

from __future__ import annotations

import asyncio
import json
import logging
from dataclasses import dataclass
from typing import Any

import httpx
from starlette.requests import Request
from starlette.responses import JSONResponse, Response

from ..ccr.scope import tenant_tag
from ..exchange import Exchange, Unanswerable, arun, arun_stream, astart, open_exchange
from ..formats import adapter
from ..formats.wire import Usage
from ..modes import PASSTHROUGH
from .disconnect import ClientDisconnected, until_disconnect
from .jsonio import BadJSON, SafeJSONResponse, dumps, parse_json
from .paths import UnsafePath, raw_path, upstream_url
from .relay import RelayResponse, relay_chunks, sse_error_event
from .state import ProxyState
from .transport import RoundRefused, Upstream, sse_events
from .upstream import request_headers, response_headers

log = logging.getLogger("headroom.proxy")

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
    """The bytes to send upstream now, and the exchange they belong to."""

    content: bytes
    ex: Exchange

    def headers(self) -> dict[str, str]:
        ex = self.ex
        out = {"x-headroom-mode": ex.mode}
        if ex.result is not None:
            out["x-headroom-tokens-before"] = str(ex.result.tokens_before)
            out["x-headroom-tokens-after"] = str(ex.result.tokens_after)
            out["x-headroom-tokens-saved"] = str(ex.result.tokens_saved)
            out["x-headroom-compression-ms"] = f"{ex.result.duration_ms:.2f}"
        if ex.compression_error:
            out["x-headroom-compression"] = "failed"
        return out


BYPASS = "bypass"  # the x-headroom-bypass header: this request only, forwarded untouched


async def prepare(state: ProxyState, body: dict[str, Any], raw: bytes | None, fmt: str, bypass: bool,
                  session_id: str | None = None, model: str | None = None, tenant: str | None = None) -> Outgoing:
    """Compress ``body`` off the event loop, with a deadline; never worse than the original.

    ``raw`` is the body as the client sent it, or None for a large body whose bytes the
    caller let go (see ``_INLINE_JSON_BYTES``); it is rebuilt from ``body`` if needed.
    """
    core, mode = state.core, state.config.mode
    if bypass or mode == PASSTHROUGH:
        assert raw is not None, "pass-through requests keep their bytes"
        return Outgoing(raw, open_exchange(core, body, fmt, BYPASS if bypass else mode, model=model))
    large = raw is None
    timeout = state.config.compression_timeout_s
    # Its own workers (not the loop's default executor, which serialises bodies and
    # answers retrieve calls), and a budget inside the deadline: blocks compressed in
    # time are kept, the rest go through unchanged, instead of all-or-nothing.
    ex = await astart(core, body, fmt, mode, executor=state.compress_pool, timeout_s=timeout,
                      budget_s=timeout * COMPRESSION_BUDGET_SHARE, tenant=tenant, session_id=session_id,
                      model=model)
    # Unchanged requests go out byte for byte as they came (large ones: the same JSON).
    content = (raw or await _serialise(body, large)) if ex.send == body else await _serialise(ex.send, large)
    return Outgoing(content, ex)


async def handle_llm(request: Request, state: ProxyState, fmt: str, base_url: str, *,
                     model: str | None = None, stream: bool | None = None) -> Response:
    """One LLM route. ``model`` and ``stream`` come from the URL where the API puts them
    there (Gemini); otherwise from the body."""
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
    try:
        out = await prepare(state, body, original, fmt, bypass, request.headers.get("x-headroom-session-id"), model,
                            tenant_tag(request.headers.items()))
    except Exception as exc:  # prepare already forwards the original on compression errors
        log.error("%s request could not be prepared", fmt, exc_info=exc)
        return error_response(502, _cause(exc), "proxy_error")
    ex = out.ex
    ex.user_agent = request.headers.get("user-agent")  # the metrics row's agent (headroom savings)
    url = upstream_url(base_url, raw_path(request.scope), request.url.query)
    headers = request_headers(request.headers.items())
    stream = body.get("stream") is True if stream is None else stream
    try:
        # A client that goes away cancels the upstream call (and any CCR round) at once.
        if stream:
            return await until_disconnect(request.receive, _stream(state, url, headers, out))
        return await until_disconnect(request.receive, _complete(state, url, headers, out))
    except ClientDisconnected:
        ex.status, ex.error = 499, "client disconnected"
        _finish(state, ex, stream=stream)
        return Response(status_code=499)  # nobody reads it; the status is for logs and metrics
    except httpx.TimeoutException as exc:
        ex.status, ex.error = 504, f"upstream timed out: {type(exc).__name__}"
        _finish(state, ex, stream=stream)
        return error_response(504, ex.error, "upstream_timeout")
    except httpx.HTTPError as exc:
        ex.status, ex.error = 502, f"upstream unreachable: {type(exc).__name__}"
        _finish(state, ex, stream=stream)
        return error_response(502, ex.error, "upstream_error")
    except Exception as exc:  # never a bare 500: the client gets a JSON error naming the cause
        log.error("%s request failed in headroom", fmt, exc_info=exc)
        ex.status, ex.error = 502, _cause(exc)
        _finish(state, ex, stream=stream)
        return error_response(502, ex.error, "proxy_error")


def _cause(exc: BaseException, what: str = "headroom could not complete the request") -> str:
    """The exception's type and message (never the request: messages here name fields, not values)."""
    return f"{what}: {type(exc).__name__}: {str(exc)[:300]}"


def bad_answer(ex: Exchange, status: int, data: bytes, exc: Exception) -> Response:
    """A 502 for an upstream answer headroom failed to handle, with the answer it got."""
    log.error("%s: could not handle the upstream's answer (status %d)", ex.fmt, status, exc_info=exc)
    ex.status, ex.error = 502, _cause(exc, "headroom could not handle the upstream's answer")
    return SafeJSONResponse({"error": {"type": "upstream_error", "message": ex.error, "upstream_status": status,
                                       "upstream_body": data.decode("utf-8", errors="replace")[:20_000]}},
                            status_code=502)


def _count_meanwhile(state: ProxyState, ex: Exchange) -> asyncio.Future | None:
    """Start the request's exact token totals on a compression worker while the upstream
    answers (issue 34): the pipeline leaves them to the first read, and the headers and
    metrics row read them once the answer is back; counted here, off the event loop and
    after the request went out, they cost the client nothing."""
    if ex.result is None:
        return None
    try:
        return asyncio.get_running_loop().run_in_executor(state.compress_pool, ex.result.count_totals)
    except RuntimeError:  # the pool is shut down (the proxy is stopping): counted when read
        return None


async def _counted(pending: asyncio.Future | None) -> None:
    if pending is not None:
        try:
            await pending
        except Exception:  # the totals are then counted when read
            log.debug("token totals could not be counted on a worker", exc_info=True)


async def _complete(state: ProxyState, url: str, headers: list[tuple[str, str]], out: Outgoing) -> Response:
    ex = out.ex
    upstream = Upstream(state, url, headers, out.content)
    counting = _count_meanwhile(state, ex)
    try:
        reply = await arun(state.core, ex, upstream)
    except Unanswerable as exc:
        ex.status, ex.error = 502, str(exc)
        _finish(state, ex, stream=False)
        return error_response(502, ex.error, "upstream_error")
    except httpx.HTTPError:
        raise  # handle_llm reports the upstream's failure
    except Exception as exc:  # an answer of a shape nobody foresaw
        if upstream.last is None:
            raise
        response = bad_answer(ex, upstream.last.status_code, upstream.last.data, exc)
        _finish(state, ex, stream=False)
        return response
    ex.status = reply.status_code
    if reply.status_code == 200:
        ex.usage = _usage(ex.fmt, reply.data)
    await _counted(counting)
    _finish(state, ex, stream=False)
    return Response(reply.data, status_code=reply.status_code, headers=response_headers(reply.headers, out.headers()))


async def _stream(state: ProxyState, url: str, headers: list[tuple[str, str]], out: Outgoing) -> Response:
    ex = out.ex
    upstream = Upstream(state, url, headers, out.content)
    counting = _count_meanwhile(state, ex)
    resp = await upstream.open(ex.send)
    await _counted(counting)
    ex.status = resp.status_code
    if resp.status_code >= 400:
        # Errors are JSON, not a stream: pass them through whole, with their status.
        data = await resp.aread()
        await resp.aclose()
        _finish(state, ex, stream=True)
        return Response(data, status_code=resp.status_code, headers=response_headers(resp.headers, out.headers()))
    chunks = _ccr_stream(state, upstream, ex, resp) if ex.injected else relay_chunks(resp, ex.fmt)

    def on_close(disconnected: bool) -> None:
        if disconnected:
            ex.error = "client disconnected"
        _finish(state, ex, stream=True)

    return RelayResponse(chunks, resp.status_code, response_headers(resp.headers, out.headers()), on_close)


async def _ccr_stream(state: ProxyState, upstream: Upstream, ex: Exchange, resp: httpx.Response):
    """Relay a streamed turn live through the exchange loop (:func:`headroom.exchange.arun_stream`).

    Text reaches the client as it comes. From the first event that may belong to a
    ``headroom_retrieve`` call (a tool call, the end of the turn) the rest of the turn is
    held until its fate is known: a turn of the client's (it calls another tool, or no
    tool) is released at once; a retrieve-only turn is answered from the store and the
    next round continues the same stream (the adapter's ``LiveRelay`` drops the second
    stream-start and shifts block indices, so the client sees one answer). The client
    already has a 200 stream, so whatever goes wrong ends it with an error event.
    """
    fmt = ex.fmt
    try:
        async for released in arun_stream(state.core, ex, upstream, sse_events(resp), batched=True):
            yield b"".join(released)
    except Unanswerable as exc:
        ex.error = str(exc)
        yield sse_error_event(fmt, ex.error, "upstream_error")
    except RoundRefused as exc:
        ex.status = exc.status
        yield sse_error_event(fmt, str(exc), "upstream_error", exc.status)
    except httpx.HTTPError as exc:
        ex.error = f"upstream stream failed: {type(exc).__name__}"
        yield sse_error_event(fmt, ex.error, "upstream_error")
    except Exception as exc:  # the client has a 200 stream: end it with an error event
        log.error("%s: could not handle the upstream's stream", fmt, exc_info=exc)
        ex.error = _cause(exc, "headroom could not handle the upstream's stream")
        yield sse_error_event(fmt, ex.error, "upstream_error")
    finally:
        await resp.aclose()


def _finish(state: ProxyState, ex: Exchange, *, stream: bool) -> None:
    """Count the request in /stats, write its metrics row, log one line (never headers or bodies)."""
    latency_ms = ex.latency_ms
    result = ex.result
    state.stats.record(
        api=ex.fmt, mode=ex.mode, status=ex.status, latency_ms=latency_ms,
        tokens_before=result.tokens_before if result else 0, tokens_after=result.tokens_after if result else 0,
        forwarded_compressed=ex.compressed, by_transform=result.savings.by_transform if result else {},
        compression_ms=result.duration_ms if result else None, bypassed=ex.mode == BYPASS,
        compression_failed=ex.compression_error is not None, retrieve_rounds=ex.rounds,
        retrieve_calls=ex.retrievals,
    )
    log.info("%s model=%s mode=%s status=%d tokens=%s->%s rounds=%d %.1f ms%s", ex.fmt, ex.model, ex.mode,
             ex.status, result.tokens_before if result else "-", result.tokens_after if result else "-", ex.rounds,
             latency_ms, f" error={ex.error}" if ex.error else "")
    if state.metrics is None:
        return
    state.record_row(state.core.finish(ex, status_code=ex.status, stream=stream, error=ex.error,
                                       mode=PASSTHROUGH if ex.mode == BYPASS else None))


def _usage(fmt: str, data: bytes) -> Usage | None:
    try:
        parsed = json.loads(data)
    except ValueError:
        return None
    return adapter(fmt).usage(parsed) if isinstance(parsed, dict) else None


async def handle_passthrough(request: Request, state: ProxyState, base_url: str, fmt: str) -> Response:
    """Any other provider route: forwarded untouched, the answer streamed back as it comes.
    ``fmt`` is the wire format of the API the route belongs to: a stream that breaks ends
    with that API's error event (``adapter(fmt).error_event``), which its SDKs raise on."""
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
    except Exception as exc:  # never a bare 500
        log.error("pass-through request failed in headroom", exc_info=exc)
        return error_response(502, _cause(exc), "proxy_error")
    is_sse = resp.headers.get("content-type", "").startswith("text/event-stream")
    return RelayResponse(relay_chunks(resp, fmt if is_sse else None), resp.status_code,
                         response_headers(resp.headers, {"x-headroom-mode": PASSTHROUGH}))
