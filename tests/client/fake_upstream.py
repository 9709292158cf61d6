"""A fake OpenAI + Anthropic upstream on 127.0.0.1 for tests with the real SDK clients.

It records the raw bytes of every request and answers Chat Completions, Responses and
Messages requests, streaming or not. With ``retrieve_first`` set, a request that offers
``headroom_retrieve`` and carries a marker is answered with a retrieve call for that hash
(like a model that wants the original back); the follow-up request is answered with the
length of the retrieved content, so tests can see the loop happened. With ``preamble`` set,
that retrieve turn first streams the preamble as text; with ``caller_saw_text`` set too, the
stream then pauses (at most 5 s) until the test sets it, so a test can tell whether the
caller got the text before the turn was over (``released_by_caller``).
"""

from __future__ import annotations

import asyncio
import json
import re
import threading
from dataclasses import dataclass, field
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, StreamingResponse

from tests.servers import ServerThread

HASH_RE = re.compile(r"hash=([0-9a-f]{24})")


@dataclass
class Recorded:
    path: str
    raw: bytes
    headers: dict[str, str]

    @property
    def json(self) -> dict[str, Any]:
        return json.loads(self.raw)


@dataclass
class FakeState:
    requests: list[Recorded] = field(default_factory=list)
    responses: list[dict[str, Any]] = field(default_factory=list)  # every non-stream JSON we sent
    retrieve_first: bool = False
    cached_tokens: int = 7
    preamble: str = ""  # text a streamed retrieve turn says before its call
    caller_saw_text: threading.Event | None = None
    released_by_caller: bool | None = None
    lock: threading.Lock = field(default_factory=threading.Lock)

    def reset(self) -> None:
        with self.lock:
            self.requests.clear()
            self.responses.clear()
        self.retrieve_first = False
        self.preamble, self.caller_saw_text, self.released_by_caller = "", None, None


def _tools_offer_retrieve(body: dict[str, Any]) -> bool:
    for t in body.get("tools") or []:
        name = t.get("name") or (t.get("function") or {}).get("name")
        if name == "headroom_retrieve":
            return True
    return False


def _retrieve_call_ids(items: list[Any]) -> set[str]:
    ids = set()
    for it in items:
        if not isinstance(it, dict):
            continue
        for tc in it.get("tool_calls") or []:
            if tc["function"]["name"] == "headroom_retrieve":
                ids.add(tc["id"])
        if it.get("type") == "function_call" and it.get("name") == "headroom_retrieve":
            ids.add(it["call_id"])
        if isinstance(it.get("content"), list):
            for b in it["content"]:
                if isinstance(b, dict) and b.get("type") == "tool_use" and b.get("name") == "headroom_retrieve":
                    ids.add(b["id"])
    return ids


def _retrieved_text(body: dict[str, Any]) -> str | None:
    """Content of a trailing headroom_retrieve result, in any of the three formats."""
    items = body.get("messages") if "messages" in body else body.get("input")
    if not isinstance(items, list) or not items:
        return None
    ids = _retrieve_call_ids(items)
    last = items[-1]
    if last.get("role") == "tool" and last.get("tool_call_id") in ids:
        return last.get("content")
    if last.get("type") == "function_call_output" and last.get("call_id") in ids:
        return last.get("output")
    if last.get("role") == "user" and isinstance(last.get("content"), list):
        for b in last["content"]:
            if isinstance(b, dict) and b.get("type") == "tool_result" and b.get("tool_use_id") in ids:
                c = b.get("content")
                return c if isinstance(c, str) else json.dumps(c)
    return None


def _decide(state: FakeState, body: dict[str, Any]) -> tuple[str, str | None]:
    """(reply text, hash to retrieve or None)."""
    got = _retrieved_text(body)
    if got is not None:
        return f"retrieved {len(got)} chars", None
    if state.retrieve_first and _tools_offer_retrieve(body):
        m = HASH_RE.search(json.dumps(body))
        if m:
            return "", m.group(1)
    return f"answer {len(state.requests)}", None


def _sse(events: list[tuple[str | None, dict[str, Any] | str]]) -> bytes:
    out = []
    for name, data in events:
        payload = data if isinstance(data, str) else json.dumps(data)
        out.append((f"event: {name}\n" if name else "") + f"data: {payload}\n\n")
    return "".join(out).encode()


def chat_reply(state: FakeState, body: dict[str, Any], n: int) -> tuple[dict[str, Any] | None, bytes | None]:
    text, h = _decide(state, body)
    model = body.get("model", "gpt-4o")
    usage = {"prompt_tokens": 100, "completion_tokens": 3, "total_tokens": 103,
             "prompt_tokens_details": {"cached_tokens": state.cached_tokens}}
    call = {"id": f"call_{n}", "type": "function",
            "function": {"name": "headroom_retrieve", "arguments": json.dumps({"hash": h})}} if h else None
    if not body.get("stream"):
        msg: dict[str, Any] = {"role": "assistant", "content": None if h else text}
        if call:
            msg["tool_calls"] = [call]
        return {"id": f"chatcmpl-{n}", "object": "chat.completion", "created": 1700000000, "model": model,
                "choices": [{"index": 0, "message": msg, "finish_reason": "tool_calls" if h else "stop"}],
                "usage": usage}, None
    base = {"id": f"chatcmpl-{n}", "object": "chat.completion.chunk", "created": 1700000000, "model": model}
    ev: list[tuple[str | None, Any]] = [(None, {**base, "choices": [{"index": 0, "delta": {"role": "assistant", "content": ""}}]})]
    if h:
        args = call["function"]["arguments"]
        if state.preamble:
            ev.append((None, {**base, "choices": [{"index": 0, "delta": {"content": state.preamble}}]}))
        ev.append((None, {**base, "choices": [{"index": 0, "delta": {"tool_calls": [
            {"index": 0, "id": call["id"], "type": "function", "function": {"name": "headroom_retrieve", "arguments": ""}}]}}]}))
        for i in range(0, len(args), 10):
            ev.append((None, {**base, "choices": [{"index": 0, "delta": {"tool_calls": [
                {"index": 0, "function": {"arguments": args[i:i + 10]}}]}}]}))
    else:
        for word in text.split(" "):
            ev.append((None, {**base, "choices": [{"index": 0, "delta": {"content": word + " "}}]}))
    ev.append((None, {**base, "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls" if h else "stop"}]}))
    ev.append((None, "[DONE]"))
    return None, _sse(ev)


def anthropic_reply(state: FakeState, body: dict[str, Any], n: int) -> tuple[dict[str, Any] | None, bytes | None]:
    text, h = _decide(state, body)
    model = body.get("model", "claude-sonnet-4-5")
    usage = {"input_tokens": 100, "output_tokens": 3, "cache_read_input_tokens": state.cached_tokens,
             "cache_creation_input_tokens": 0}
    block = {"type": "tool_use", "id": f"toolu_{n}", "name": "headroom_retrieve", "input": {"hash": h}} if h else {
        "type": "text", "text": text}
    stop = "tool_use" if h else "end_turn"
    if not body.get("stream"):
        return {"id": f"msg_{n}", "type": "message", "role": "assistant", "model": model, "content": [block],
                "stop_reason": stop, "stop_sequence": None, "usage": usage}, None
    ev: list[tuple[str | None, Any]] = [("message_start", {"type": "message_start", "message": {
        "id": f"msg_{n}", "type": "message", "role": "assistant", "model": model, "content": [],
        "stop_reason": None, "stop_sequence": None, "usage": {**usage, "output_tokens": 0}}})]
    idx = 0
    if h:
        if state.preamble:
            ev.append(("content_block_start", {"type": "content_block_start", "index": 0,
                                               "content_block": {"type": "text", "text": ""}}))
            ev.append(("content_block_delta", {"type": "content_block_delta", "index": 0,
                                               "delta": {"type": "text_delta", "text": state.preamble}}))
            ev.append(("content_block_stop", {"type": "content_block_stop", "index": 0}))
            idx = 1
        ev.append(("content_block_start", {"type": "content_block_start", "index": idx,
                                           "content_block": {**block, "input": {}}}))
        args = json.dumps({"hash": h})
        for i in range(0, len(args), 10):
            ev.append(("content_block_delta", {"type": "content_block_delta", "index": idx,
                                               "delta": {"type": "input_json_delta", "partial_json": args[i:i + 10]}}))
    else:
        ev.append(("content_block_start", {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}))
        for word in text.split(" "):
            ev.append(("content_block_delta", {"type": "content_block_delta", "index": 0,
                                               "delta": {"type": "text_delta", "text": word + " "}}))
    ev.append(("content_block_stop", {"type": "content_block_stop", "index": idx}))
    ev.append(("message_delta", {"type": "message_delta", "delta": {"stop_reason": stop, "stop_sequence": None},
                                 "usage": {"output_tokens": 3}}))
    ev.append(("message_stop", {"type": "message_stop"}))
    return None, _sse(ev)


def responses_reply(state: FakeState, body: dict[str, Any], n: int) -> tuple[dict[str, Any] | None, bytes | None]:
    text, h = _decide(state, body)
    if h:
        item = {"type": "function_call", "id": f"fc_{n}", "call_id": f"call_{n}", "name": "headroom_retrieve",
                "arguments": json.dumps({"hash": h}), "status": "completed"}
    else:
        item = {"type": "message", "id": f"msg_{n}", "status": "completed", "role": "assistant",
                "content": [{"type": "output_text", "text": text, "annotations": []}]}
    full = {"id": f"resp_{n}", "object": "response", "created_at": 1700000000, "model": body.get("model", "gpt-4o"),
            "status": "completed", "output": [item], "parallel_tool_calls": True, "tool_choice": "auto", "tools": [],
            "usage": {"input_tokens": 100, "output_tokens": 3, "total_tokens": 103,
                      "input_tokens_details": {"cached_tokens": state.cached_tokens},
                      "output_tokens_details": {"reasoning_tokens": 0}}}
    if not body.get("stream"):
        return full, None
    started = {**full, "status": "in_progress", "output": [], "usage": None}
    ev: list[tuple[str | None, Any]] = [("response.created", {"type": "response.created", "sequence_number": 0, "response": started})]
    seq = 1
    if h:
        ev.append(("response.output_item.added", {"type": "response.output_item.added", "sequence_number": seq,
                                                  "output_index": 0, "item": {**item, "arguments": "", "status": "in_progress"}}))
    else:
        empty = {**item, "status": "in_progress", "content": []}
        ev.append(("response.output_item.added", {"type": "response.output_item.added", "sequence_number": seq,
                                                  "output_index": 0, "item": empty}))
        for word in text.split(" "):
            seq += 1
            ev.append(("response.output_text.delta", {"type": "response.output_text.delta", "sequence_number": seq,
                                                      "item_id": item["id"], "output_index": 0, "content_index": 0,
                                                      "delta": word + " ", "logprobs": []}))
    ev.append(("response.output_item.done", {"type": "response.output_item.done", "sequence_number": seq + 1,
                                             "output_index": 0, "item": item}))
    ev.append(("response.completed", {"type": "response.completed", "sequence_number": seq + 2, "response": full}))
    return None, _sse(ev)


async def _paced(state: FakeState, stream: bytes):
    """The SSE events one by one, pausing after the preamble while ``caller_saw_text`` asks to."""
    wait_after = state.preamble.encode() if state.preamble and state.caller_saw_text is not None else None
    for event in stream.split(b"\n\n")[:-1]:
        yield event + b"\n\n"
        if wait_after is not None and wait_after in event:
            wait_after = None
            for _ in range(500):
                if state.caller_saw_text.is_set():
                    break
                await asyncio.sleep(0.01)
            state.released_by_caller = state.caller_saw_text.is_set()


def build_app(state: FakeState):
    app = FastAPI()
    handlers = {"/v1/chat/completions": chat_reply, "/v1/messages": anthropic_reply, "/v1/responses": responses_reply}

    @app.post("/v1/{rest:path}")
    async def any_post(request: Request, rest: str):
        raw = await request.body()
        path = "/v1/" + rest
        with state.lock:
            state.requests.append(Recorded(path, raw, dict(request.headers)))
            n = len(state.requests)
        handler = handlers.get(path)
        if handler is None:
            return JSONResponse({"error": {"message": f"no route {path}"}}, status_code=404)
        body = json.loads(raw)
        if body.get("model") == "fail-model":
            return JSONResponse({"error": {"type": "invalid_request_error", "message": "bad model"}}, status_code=400)
        data, stream = handler(state, body, n)
        if stream is not None:
            return StreamingResponse(_paced(state, stream), media_type="text/event-stream")
        with state.lock:
            state.responses.append(data)
        return JSONResponse(data)

    @app.get("/v1/models")
    async def models():
        return {"object": "list", "data": [{"id": "gpt-4o", "object": "model", "created": 1, "owned_by": "fake"}]}

    return app


class FakeUpstream:
    """The fake provider under uvicorn on a free loopback port (tests.servers.ServerThread)."""

    def __init__(self) -> None:
        self.state = FakeState()
        self._server = ServerThread(build_app(self.state), log_level="error")

    @property
    def port(self) -> int:
        return self._server.port

    @property
    def url(self) -> str:
        return self._server.url

    def start(self) -> FakeUpstream:
        self._server.__enter__()
        return self

    def stop(self) -> None:
        self._server.__exit__(None, None, None)
