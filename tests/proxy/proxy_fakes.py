"""A fake LLM provider on loopback, plus helpers to run ASGI apps under uvicorn in a thread.

The fake answers Chat Completions, Responses and Messages, streaming or not, records
every request it receives, and is scripted per request through headers the proxy passes
through unchanged:

  x-fake-retrieve-hash: H   the hash a scripted retrieve call asks for (default: the first marker's)
  x-fake-script: retrieve   call headroom_retrieve (hash from the first marker) when the
                            request defines the tool and has no retrieve result yet
  x-fake-script: mixed      call headroom_retrieve and get_weather together
  x-fake-status: 429        answer with that error status
  x-fake-midstream-error: 1 stream a little, then a provider error event
  x-fake-abort: 1           stream a little, then drop the connection
  x-fake-chunks / x-fake-delay-ms   how many text chunks, and the pause between them
  x-fake-script: retrieve-always    call headroom_retrieve in every round (a model that never stops)
  x-fake-script: retrieve-noid      a headroom_retrieve call without an id
  x-fake-script: malformed          200 with a body of the wrong shape (streaming: bad JSON events)
  x-fake-hang-s: 30         wait that long before answering (a hung upstream)
  x-fake-hang-continuation-s: 30    the same, only for a request that carries a retrieve result
  x-fake-no-final-blank: 1  the last SSE event lacks its closing blank line
Any other path is recorded and answered 404 (path-escape tests look for it there).

A normal answer is ``echo: <last user text> | tool=<sha256[:16] of the last tool result>
len=<its length>``, so a client can tell which request an answer belongs to.
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import threading
from dataclasses import dataclass, field
from typing import Any

from fastapi import FastAPI
from starlette.requests import Request
from starlette.responses import JSONResponse as _JSONResponse
from starlette.responses import Response, StreamingResponse

from headroom.ccr.markers import find_hashes
from headroom.formats import is_retrieve_tool
from tests.servers import ServerThread  # noqa: F401  (re-exported for the proxy tests)


class JSONResponse(_JSONResponse):
    """ASCII JSON, as providers send: a lone surrogate the client sent comes back escaped."""

    def render(self, content: Any) -> bytes:
        return json.dumps(content).encode("ascii")


@dataclass
class Recorder:
    requests: list[dict[str, Any]] = field(default_factory=list)
    cancelled: list[str] = field(default_factory=list)
    completed: list[str] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)

    def add(self, entry: dict[str, Any]) -> None:
        with self.lock:
            self.requests.append(entry)

    def clear(self) -> None:
        with self.lock:
            self.requests.clear()
            self.cancelled.clear()
            self.completed.clear()

    def bodies(self, path: str | None = None) -> list[dict[str, Any]]:
        return [r["json"] for r in self.requests if path is None or r["path"] == path]


# ----------------------------------------------------------------------------- reading


def _text_of(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "".join(p.get("text", "") for p in content if isinstance(p, dict) and isinstance(p.get("text"), str))
    return ""


def conversation_facts(path: str, body: dict[str, Any]) -> tuple[str, str | None, bool, bool]:
    """(last user text, last tool result text, defines retrieve tool, has a retrieve result)."""
    tools = body.get("tools") or []
    names = [(t.get("function") or {}).get("name") or t.get("name") for t in tools if isinstance(t, dict)]
    defines = any(is_retrieve_tool(n) for n in names)
    user, tool_result = "", None
    retrieve_ids: set[str] = set()
    has_retrieve_result = False
    if path.endswith("/chat/completions"):
        for m in body.get("messages", []):
            for tc in m.get("tool_calls") or []:
                if is_retrieve_tool(tc["function"]["name"]):
                    retrieve_ids.add(tc["id"])
            if m.get("role") == "user":
                user = _text_of(m.get("content"))
            elif m.get("role") == "tool":
                tool_result = _text_of(m.get("content"))
                has_retrieve_result |= m.get("tool_call_id") in retrieve_ids
    elif path.endswith("/responses"):
        inp = body.get("input")
        items = [{"role": "user", "content": inp}] if isinstance(inp, str) else (inp or [])
        for it in items:
            if it.get("type") == "function_call" and is_retrieve_tool(it.get("name")):
                retrieve_ids.add(it["call_id"])
            if it.get("role") == "user":
                user = _text_of(it.get("content"))
            elif it.get("type") == "function_call_output":
                tool_result = _text_of(it.get("output"))
                has_retrieve_result |= it.get("call_id") in retrieve_ids
    else:
        for m in body.get("messages", []):
            content = m.get("content")
            if isinstance(content, str):
                if m.get("role") == "user":
                    user = content
                continue
            for part in content:
                if part.get("type") == "tool_use" and is_retrieve_tool(part.get("name")):
                    retrieve_ids.add(part["id"])
                elif part.get("type") == "text" and m.get("role") == "user":
                    user = part["text"]
                elif part.get("type") == "tool_result":
                    tool_result = _text_of(part.get("content"))
                    has_retrieve_result |= part.get("tool_use_id") in retrieve_ids
    return user, tool_result, defines, has_retrieve_result


def _utf8(text: str) -> bytes:
    return text.encode("utf-8", "surrogatepass")  # lone surrogates are valid JSON escapes


def echo_text(user: str, tool_result: str | None) -> str:
    user = _utf8(user).decode("utf-8", "replace")
    tag = hashlib.sha256(_utf8(tool_result)).hexdigest()[:16] if tool_result is not None else "none"
    return f"echo: {user} | tool={tag} len={len(tool_result) if tool_result is not None else 0}"


# ----------------------------------------------------------------------------- answers


def _sse(data: Any, event: str | None = None) -> bytes:
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {data if isinstance(data, str) else json.dumps(data)}\n\n".encode()


def chat_answer(model: str, text: str | None, calls: list[tuple[str, str, str]]) -> dict[str, Any]:
    msg: dict[str, Any] = {"role": "assistant", "content": text}
    if calls:
        msg["tool_calls"] = [{"id": i, "type": "function", "function": {"name": n, "arguments": a}} for i, n, a in calls]
    return {"id": "chatcmpl-fake", "object": "chat.completion", "created": 0, "model": model,
            "choices": [{"index": 0, "message": msg, "logprobs": None, "finish_reason": "tool_calls" if calls else "stop"}],
            "usage": {"prompt_tokens": 10, "completion_tokens": 5, "total_tokens": 15}}


def chat_stream(model: str, pieces: list[str], calls: list[tuple[str, str, str]]) -> list[bytes]:
    base = {"id": "chatcmpl-fake", "object": "chat.completion.chunk", "created": 0, "model": model}
    out = [_sse({**base, "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}, "finish_reason": None}]})]
    for p in pieces:
        out.append(_sse({**base, "choices": [{"index": 0, "delta": {"content": p}, "finish_reason": None}]}))
    for k, (i, n, a) in enumerate(calls):
        out.append(_sse({**base, "choices": [{"index": 0, "delta": {"tool_calls": [
            {"index": k, "id": i, "type": "function", "function": {"name": n, "arguments": ""}}]}, "finish_reason": None}]}))
        for half in (a[: len(a) // 2], a[len(a) // 2:]):
            out.append(_sse({**base, "choices": [{"index": 0, "delta": {"tool_calls": [
                {"index": k, "function": {"arguments": half}}]}, "finish_reason": None}]}))
    out.append(_sse({**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls" if calls else "stop"}]}))
    out.append(_sse("[DONE]"))
    return out


def responses_answer(model: str, text: str | None, calls: list[tuple[str, str, str]]) -> dict[str, Any]:
    output: list[dict[str, Any]] = []
    if text is not None:
        output.append({"type": "message", "id": "msg_fake", "status": "completed", "role": "assistant",
                       "content": [{"type": "output_text", "text": text, "annotations": []}]})
    for i, n, a in calls:
        output.append({"type": "function_call", "id": f"fc_{i}", "call_id": i, "name": n, "arguments": a, "status": "completed"})
    return {"id": "resp_fake", "object": "response", "created_at": 0, "status": "completed", "model": model,
            "output": output, "parallel_tool_calls": True, "tool_choice": "auto", "tools": [],
            "usage": {"input_tokens": 10, "output_tokens": 5, "total_tokens": 15,
                      "input_tokens_details": {"cached_tokens": 0}, "output_tokens_details": {"reasoning_tokens": 0}}}


def responses_stream(model: str, pieces: list[str], calls: list[tuple[str, str, str]]) -> list[bytes]:
    final = responses_answer(model, "".join(pieces) if pieces else None, calls)
    seq = iter(range(10_000))

    def ev(kind: str, **data: Any) -> bytes:
        return _sse({"type": kind, "sequence_number": next(seq), **data}, kind)

    out = [ev("response.created", response={**final, "status": "in_progress", "output": []})]
    idx = 0
    if pieces:
        item = {"type": "message", "id": "msg_fake", "status": "in_progress", "role": "assistant", "content": []}
        out.append(ev("response.output_item.added", output_index=0, item=item))
        for p in pieces:
            out.append(ev("response.output_text.delta", item_id="msg_fake", output_index=0, content_index=0, delta=p, logprobs=[]))
        out.append(ev("response.output_item.done", output_index=0, item=final["output"][0]))
        idx = 1
    for i, n, a in calls:
        item = {"type": "function_call", "id": f"fc_{i}", "call_id": i, "name": n, "arguments": "", "status": "in_progress"}
        out.append(ev("response.output_item.added", output_index=idx, item=item))
        out.append(ev("response.function_call_arguments.delta", item_id=f"fc_{i}", output_index=idx, delta=a))
        out.append(ev("response.function_call_arguments.done", item_id=f"fc_{i}", output_index=idx, arguments=a))
        out.append(ev("response.output_item.done", output_index=idx, item=final["output"][idx]))
        idx += 1
    out.append(ev("response.completed", response=final))
    return out


def anthropic_answer(model: str, text: str | None, calls: list[tuple[str, str, str]]) -> dict[str, Any]:
    content: list[dict[str, Any]] = [{"type": "text", "text": text}] if text is not None else []
    content += [{"type": "tool_use", "id": i, "name": n, "input": json.loads(a)} for i, n, a in calls]
    return {"id": "msg_fake", "type": "message", "role": "assistant", "model": model, "content": content,
            "stop_reason": "tool_use" if calls else "end_turn", "stop_sequence": None,
            "usage": {"input_tokens": 10, "output_tokens": 5}}


def anthropic_stream(model: str, pieces: list[str], calls: list[tuple[str, str, str]]) -> list[bytes]:
    start = anthropic_answer(model, None, [])
    out = [_sse({"type": "message_start", "message": {**start, "content": [], "stop_reason": None}}, "message_start")]
    idx = 0
    if pieces:
        out.append(_sse({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}, "content_block_start"))
        for p in pieces:
            out.append(_sse({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": p}}, "content_block_delta"))
        out.append(_sse({"type": "content_block_stop", "index": 0}, "content_block_stop"))
        idx = 1
    for i, n, a in calls:
        out.append(_sse({"type": "content_block_start", "index": idx,
                         "content_block": {"type": "tool_use", "id": i, "name": n, "input": {}}}, "content_block_start"))
        out.append(_sse({"type": "content_block_delta", "index": idx, "delta": {"type": "input_json_delta", "partial_json": a}},
                        "content_block_delta"))
        out.append(_sse({"type": "content_block_stop", "index": idx}, "content_block_stop"))
        idx += 1
    out.append(_sse({"type": "message_delta", "delta": {"stop_reason": "tool_use" if calls else "end_turn", "stop_sequence": None},
                     "usage": {"output_tokens": 5}}, "message_delta"))
    out.append(_sse({"type": "message_stop"}, "message_stop"))
    return out


BUILDERS = {
    "/v1/chat/completions": (chat_answer, chat_stream),
    "/v1/responses": (responses_answer, responses_stream),
    "/v1/messages": (anthropic_answer, anthropic_stream),
}


def provider_error(path: str, status: int) -> dict[str, Any]:
    if path == "/v1/messages":
        return {"type": "error", "error": {"type": "rate_limit_error" if status == 429 else "api_error", "message": f"fake {status}"}}
    return {"error": {"message": f"fake {status}", "type": "rate_limit_error" if status == 429 else "server_error",
                      "param": None, "code": None}}


def midstream_error(path: str) -> bytes:
    if path == "/v1/chat/completions":
        return _sse({"error": {"message": "fake overload mid-stream", "type": "server_error"}})
    return _sse({"type": "error", "error": {"type": "overloaded_error", "message": "fake overload mid-stream"}}, "error")


def make_fake_upstream() -> tuple[FastAPI, Recorder]:
    app = FastAPI()
    rec = Recorder()

    @app.post("/v1/messages/count_tokens")
    async def count_tokens(request: Request) -> Response:
        raw = await request.body()
        rec.add({"path": request.url.path, "headers": dict(request.headers), "raw": raw, "json": json.loads(raw)})
        return JSONResponse({"input_tokens": 42})

    @app.get("/v1/models")
    async def models(request: Request) -> Response:
        rec.add({"path": request.url.path, "headers": dict(request.headers), "raw": b"", "json": None})
        return JSONResponse({"object": "list", "data": [{"id": "fake-model", "object": "model"}]})

    # Pass-through routes that stream (the proxy relays them untouched); x-fake-abort drops
    # the connection after two events, as in the LLM routes.
    def relayed_stream(request: Request, events: list[bytes]) -> StreamingResponse:
        async def gen():
            for k, e in enumerate(events):
                if k == 2 and request.headers.get("x-fake-abort"):
                    raise RuntimeError("fake upstream drops the connection")
                yield e

        return StreamingResponse(gen(), media_type="text/event-stream")

    @app.get("/v1/responses/{response_id}")
    async def stored_response(request: Request, response_id: str) -> Response:
        # ?stream=true replays a stored (background) response as its Responses events.
        rec.add({"path": request.url.path, "headers": dict(request.headers), "raw": b"", "json": None})
        return relayed_stream(request, responses_stream("gpt-4o", ["stored ", "answer"], []))

    @app.post("/v1/completions")
    async def legacy_completions(request: Request) -> Response:
        rec.add({"path": request.url.path, "headers": dict(request.headers), "raw": await request.body(), "json": None})
        chunk = {"id": "cmpl-fake", "object": "text_completion", "created": 0, "model": "gpt-3.5-turbo-instruct"}
        return relayed_stream(request, [_sse({**chunk, "choices": [{"index": 0, "text": t, "logprobs": None,
                                                                   "finish_reason": None}]})
                                        for t in ("one ", "two ", "three")] + [_sse("[DONE]")])

    @app.post("/v1/complete")
    async def anthropic_legacy_complete(request: Request) -> Response:
        rec.add({"path": request.url.path, "headers": dict(request.headers), "raw": await request.body(), "json": None})
        return relayed_stream(request, [_sse({"type": "completion", "completion": t, "stop_reason": None,
                                              "model": "claude-2.1"}, "completion") for t in ("one ", "two ", "three")])

    @app.post("/v1/{api:path}")
    async def llm(request: Request, api: str) -> Response:
        path = request.url.path
        raw = await request.body()
        try:
            body = json.loads(raw)
        except ValueError:
            return JSONResponse(provider_error(path, 400), status_code=400)
        h = request.headers
        rec.add({"path": path, "headers": dict(h), "raw": raw, "json": body})
        try:
            user, tool_result, defines, has_result = conversation_facts(path, body)
        except (TypeError, AttributeError, KeyError, ValueError):
            # A body of the wrong shape: a real provider says 400 (the fuzz sends many).
            return JSONResponse(provider_error(path, 400), status_code=400)
        hang = h.get("x-fake-hang-s") or (h.get("x-fake-hang-continuation-s") if has_result else None)
        if hang:
            # uvicorn never cancels a handler whose client left: race the wait against
            # http.disconnect, as a provider notices a dropped connection.
            async def gone() -> None:
                while (await request.receive())["type"] != "http.disconnect":
                    pass

            waiter, watcher = asyncio.ensure_future(asyncio.sleep(float(hang))), asyncio.ensure_future(gone())
            done, pending = await asyncio.wait({waiter, watcher}, return_when=asyncio.FIRST_COMPLETED)
            for task in pending:
                task.cancel()
            if watcher in done:
                rec.cancelled.append(h.get("x-fake-tag", "hang"))
                return Response(status_code=499)
        if h.get("x-fake-status"):
            status = int(h["x-fake-status"])
            return JSONResponse(provider_error(path, status), status_code=status)
        answer_fn, stream_fn = BUILDERS[path]
        model = body.get("model", "fake")
        # tool_choice "none" (Anthropic: {"type": "none"}) forbids tool calls, as a provider would.
        defines = defines and body.get("tool_choice") not in ("none", {"type": "none"})
        script = h.get("x-fake-script", "")
        if script == "malformed":
            if body.get("stream"):
                return StreamingResponse(iter([b"data: {not json\n\n", _sse({"choices": "nope"}), _sse("[DONE]")]),
                                         media_type="text/event-stream")
            return JSONResponse({"id": "x", "choices": "nope", "output": 7, "content": {"a": 1}})
        calls: list[tuple[str, str, str]] = []
        if script == "retrieve-always" and defines:
            hashes = find_hashes(raw.decode())
            n = len([r for r in rec.requests if r["path"] == path])
            calls.append((f"call_r{n}", "headroom_retrieve", json.dumps({"hash": hashes[0] if hashes else ""})))
        elif script == "retrieve-noid" and defines and not has_result:
            hashes = find_hashes(raw.decode())
            calls.append(("", "headroom_retrieve", json.dumps({"hash": hashes[0] if hashes else ""})))
        elif script in ("retrieve", "mixed") and defines and not has_result:
            hashes = [h["x-fake-retrieve-hash"]] if h.get("x-fake-retrieve-hash") else find_hashes(raw.decode())
            calls.append(("call_r1", "headroom_retrieve", json.dumps({"hash": hashes[0] if hashes else ""})))
            if script == "mixed":
                calls.append(("call_w1", "get_weather", json.dumps({"city": "Paris"})))
        text = None if calls else echo_text(user, tool_result)
        if not body.get("stream"):
            return JSONResponse(answer_fn(model, text, calls))
        n = int(h.get("x-fake-chunks", "3"))
        delay = int(h.get("x-fake-delay-ms", "0")) / 1000
        if text is not None:
            size = max(1, -(-len(text) // n))
            pieces = [text[i:i + size] for i in range(0, len(text), size)]
            if n > len(pieces):  # long streams for the disconnect test: pad with spaces
                pieces += [" "] * (n - len(pieces))
        else:
            pieces = []
        events = stream_fn(model, pieces, calls)
        if h.get("x-fake-no-final-blank"):
            events[-1] = events[-1].rstrip(b"\n") + b"\n"
        tag = h.get("x-fake-tag", user)

        async def gen():
            try:
                for k, e in enumerate(events):
                    if k == 3 and h.get("x-fake-midstream-error"):
                        yield midstream_error(path)
                        return
                    if k == 3 and h.get("x-fake-abort"):
                        raise RuntimeError("fake upstream drops the connection")
                    yield e
                    if delay:
                        await asyncio.sleep(delay)
                rec.completed.append(tag)
            except (asyncio.CancelledError, GeneratorExit):
                rec.cancelled.append(tag)
                raise

        return StreamingResponse(gen(), media_type="text/event-stream")

    @app.api_route("/{rest:path}", methods=["GET", "POST", "PUT", "PATCH", "DELETE"])
    async def anything_else(request: Request, rest: str) -> Response:
        rec.add({"path": request.url.path, "headers": dict(request.headers), "raw": await request.body(), "json": None})
        return JSONResponse({"error": {"message": f"fake: no route {request.url.path}"}}, status_code=404)

    return app, rec


# ----------------------------------------------------------------------------- servers


