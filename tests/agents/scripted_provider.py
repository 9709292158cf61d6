"""A scripted model provider for the real agent CLIs (Anthropic Messages and OpenAI
Responses, streamed): the turn it plays is decided by what the request carries, so the
agent's own extra requests (titles, quota probes, token counts) get a plain answer.

Turns:
1. the request has no tool result yet: ask the agent to run ``command``;
2. the tool result arrived: record it; if it carries a retrieval marker and the request
   offers ``headroom_retrieve``, call it for that hash (the proxy must answer it itself);
   else answer;
3. the request carries the retrieved original (a continuation only the proxy sends):
   answer with ``final_text``.

Every SSE answer is length-delimited (a complete body), so no agent waits on an open
stream.
"""

from __future__ import annotations

import json
import re
import threading
from dataclasses import dataclass, field
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response

from tests.proxy.proxy_fakes import anthropic_stream, responses_stream

HASH_RE = re.compile(r"hash=([0-9a-f]{24})")
RETRIEVE = "headroom_retrieve"


@dataclass
class Script:
    command: str  # the shell command the model asks for (Bash, exec_command)
    final_text: str
    call_tool: str = "Bash"  # Claude Code's tool; Codex's is exec_command
    call_extra: dict[str, Any] = field(default_factory=dict)  # more arguments of that call
    seen_tool_results: list[str] = field(default_factory=list)  # as they reached the provider
    retrieved: list[str] = field(default_factory=list)  # headroom_retrieve outputs the proxy sent
    requests: list[tuple[str, dict[str, Any]]] = field(default_factory=list)
    lock: threading.Lock = field(default_factory=threading.Lock)


def _texts(value: Any) -> list[str]:
    """Every string inside a tool result's content (a string or a list of parts)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, list):
        return [t for v in value for t in _texts(v.get("text") if isinstance(v, dict) else v)]
    return []


def _anthropic_results(body: dict[str, Any]) -> list[tuple[str, str]]:
    """(tool_use_id, text) of every tool_result, in order."""
    out = []
    for m in body.get("messages") or []:
        if isinstance(m.get("content"), list):
            for b in m["content"]:
                if isinstance(b, dict) and b.get("type") == "tool_result":
                    out.append((b.get("tool_use_id", ""), "".join(_texts(b.get("content")))))
    return out


def _responses_results(body: dict[str, Any]) -> list[tuple[str, str]]:
    items = body.get("input") if isinstance(body.get("input"), list) else []
    return [(i.get("call_id", ""), "".join(_texts(i.get("output")))) for i in items
            if isinstance(i, dict) and i.get("type") == "function_call_output"]


def _offers_retrieve(tools: Any) -> bool:
    return any(isinstance(t, dict) and RETRIEVE in (t.get("name"), (t.get("function") or {}).get("name"))
               for t in tools or [])


def decide(script: Script, results: list[tuple[str, str]], tools: Any) -> tuple[str | None, tuple[str, str] | None]:
    """(text, (tool name, JSON arguments)) for this turn."""
    by_id = dict(results)
    retrieved = [t for i, t in results if i.startswith(("toolu_hr_", "call_hr_"))]
    if retrieved:
        with script.lock:
            script.retrieved.extend(retrieved)
        return script.final_text, None
    if not results:
        if script.call_tool == "Bash":
            return None, ("Bash", json.dumps({"command": script.command, "description": "show the log",
                                              **script.call_extra}))
        if script.call_tool == "exec_command":
            return None, ("exec_command", json.dumps({"cmd": script.command, **script.call_extra}))
        return None, (script.call_tool, json.dumps(script.call_extra))  # e.g. Read {"file_path": ...}
    text = next(iter(by_id.values()))
    with script.lock:
        script.seen_tool_results.append(text)
    found = HASH_RE.search(text)
    if found and _offers_retrieve(tools):
        return None, (RETRIEVE, json.dumps({"hash": found.group(1)}))
    return script.final_text, None


def build_app(script: Script) -> FastAPI:
    app = FastAPI()

    @app.post("/v1/messages")
    async def messages(request: Request) -> Response:
        body = json.loads(await request.body())
        with script.lock:
            script.requests.append(("/v1/messages", body))
        results = _anthropic_results(body)
        tools = body.get("tools")
        if not any(t.get("name") == script.call_tool for t in tools or [] if isinstance(t, dict)) and not results:
            text, call = "ok", None  # a side request (title, summary): no tools to call
        else:
            text, call = decide(script, results, tools)
        n = len(script.requests)
        calls = [(f"toolu_{'hr_' if call[0] == RETRIEVE else ''}{n:04d}", *call)] if call else []
        events = anthropic_stream(body.get("model", "claude-sonnet-4-5"), [text] if text else [], calls)
        return Response(b"".join(events), media_type="text/event-stream")

    @app.post("/v1/messages/count_tokens")
    async def count_tokens(request: Request) -> Response:
        return JSONResponse({"input_tokens": 100})

    @app.post("/v1/responses")
    async def responses(request: Request) -> Response:
        body = json.loads(await request.body())
        with script.lock:
            script.requests.append(("/v1/responses", body))
        results = _responses_results(body)
        text, call = decide(script, results, body.get("tools"))
        n = len(script.requests)
        calls = [(f"call_{'hr_' if call[0] == RETRIEVE else ''}{n:04d}", *call)] if call else []
        events = responses_stream(body.get("model", "gpt-5"), [text] if text else [], calls)
        return Response(b"".join(events), media_type="text/event-stream")

    @app.get("/v1/models")
    async def models() -> Response:
        return JSONResponse({"object": "list", "data": [], "models": []})

    return app
