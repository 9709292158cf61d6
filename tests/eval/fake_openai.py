"""A deterministic OpenAI-compatible "reader" served on 127.0.0.1 for the LLM runner tests.

It answers from its context only: it takes the backticked key of the latest user
question, finds the line that contains it in the other messages (or a window around it
in a long line) and answers with it. When the key is missing but a retrieval marker is present
and the request offers ``headroom_retrieve``, it calls that tool with the marker's hash.
"""

from __future__ import annotations

import json
import re
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

_KEY = re.compile(r"`([^`]+)`")
_HASH = re.compile(r"Retrieve more: hash=([0-9a-f]{24})")


def _text(content: Any) -> str:
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(p.get("text", "") for p in content if isinstance(p, dict))
    return ""


def _segment(context: str, key: str) -> str | None:
    at = context.find(key)
    if at < 0:
        return None
    start = context.rfind("\n", 0, at) + 1
    end = context.find("\n", at)
    line = context[start:end if end >= 0 else len(context)]
    if len(line) <= 400:
        return line.strip()
    # A long line (one-line JSON, a retrieved message dump): a window around the key.
    return context[max(start, at - 120):at + 240]


def read(body: dict[str, Any]) -> dict[str, Any]:
    """The reader's reply (a chat.completion message) to one request body."""
    messages = body.get("messages") or []
    asking = next((m for m in reversed(messages) if m.get("role") == "user" and _text(m.get("content"))), None)
    question = _text(asking.get("content")) if asking else ""
    # Everything but the question is context (a dropped-turns marker may sit in a user turn).
    context = "\n".join(_text(m.get("content")) for m in messages if m is not asking)
    m = _KEY.search(question)
    if not m:
        return {"role": "assistant", "content": "I cannot tell from the context."}
    key = m.group(1)
    found = _segment(context, key)
    if found is not None:
        return {"role": "assistant", "content": found}
    offered = any((t.get("function") or {}).get("name") == "headroom_retrieve" for t in body.get("tools") or [])
    asked = {json.loads(tc["function"]["arguments"]).get("hash") for msg in messages
             for tc in msg.get("tool_calls") or [] if tc["function"]["name"] == "headroom_retrieve"}
    pending = [h for h in _HASH.findall(context) if h not in asked]
    if offered and pending:
        return {"role": "assistant", "content": None, "tool_calls": [{
            "id": f"call_retrieve_{len(asked)}", "type": "function",
            "function": {"name": "headroom_retrieve", "arguments": json.dumps({"hash": pending[0], "query": key})}}]}
    return {"role": "assistant", "content": "Not found in the context."}


class FakeOpenAI:
    """Serves ``POST /v1/chat/completions`` with :func:`read`; records every request body."""

    def __init__(self) -> None:
        self.requests: list[dict[str, Any]] = []
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length") or 0)))
                outer.requests.append(body)
                if self.path.rstrip("/") != "/v1/chat/completions":
                    self.send_response(404)
                    self.end_headers()
                    return
                msg = read(body)
                prompt = sum(len(_text(m.get("content"))) for m in body.get("messages") or []) // 4
                reply = {"id": "chatcmpl-fake", "object": "chat.completion", "model": body.get("model"),
                         "choices": [{"index": 0, "message": msg,
                                      "finish_reason": "tool_calls" if msg.get("tool_calls") else "stop"}],
                         "usage": {"prompt_tokens": prompt, "completion_tokens": 10, "total_tokens": prompt + 10}}
                data = json.dumps(reply).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, kwargs={"poll_interval": 0.05},
                                       daemon=True)

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server.server_address[1]}/v1"

    def __enter__(self):
        self.thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.shutdown()
        self.server.server_close()
