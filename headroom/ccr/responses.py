"""Format-neutral handling of a provider *response* for the CCR retrieval loop.

When the model's turn calls only ``headroom_retrieve``, whoever sent the request (the
proxy, HeadroomClient) answers those calls from the store and sends the next request
itself, so the client only ever sees the final answer. This module knows the three wire
shapes of a response:

- :func:`retrieve_calls` — the retrieve calls of a turn, or None when the turn made no
  tool call or also called other tools (those go back to the client);
- :func:`answer` — what the tool returns for one call;
- :func:`continue_body` — the next request: the assistant turn plus the tool results;
- :class:`StreamAccumulator` — rebuilds the complete response dict from a streamed
  turn's SSE events, so a streamed turn can be inspected the same way;
- :class:`SSEDecoder` — splits raw SSE bytes into events.
"""

from __future__ import annotations

import copy
import json
from dataclasses import dataclass, field
from typing import Any

from ..formats import ANTHROPIC, OPENAI_CHAT, OPENAI_RESPONSES, is_retrieve_tool
from .store import CompressionStore, StoreError


@dataclass(frozen=True)
class RetrieveCall:
    id: str  # the provider's call id (chat tool_call id, Responses call_id, Anthropic tool_use id)
    name: str
    hash: str
    query: str | None = None


def _parse_arguments(raw: Any) -> dict[str, Any]:
    if isinstance(raw, dict):
        return raw
    if isinstance(raw, str) and raw.strip():
        try:
            value = json.loads(raw)
        except ValueError:
            return {}
        return value if isinstance(value, dict) else {}
    return {}


def _call(call_id: Any, name: Any, arguments: Any) -> RetrieveCall:
    args = _parse_arguments(arguments)
    h = args.get("hash")
    q = args.get("query")
    return RetrieveCall(
        id=str(call_id or ""),
        name=str(name),
        hash=h.strip() if isinstance(h, str) else "",
        query=q if isinstance(q, str) and q.strip() else None,
    )


def _only_retrieve(calls: list[tuple[Any, Any, Any]]) -> list[RetrieveCall] | None:
    """``calls`` as RetrieveCalls when there is at least one and all are retrieve calls."""
    if not calls or not all(is_retrieve_tool(name if isinstance(name, str) else None) for _, name, _ in calls):
        return None
    return [_call(*c) for c in calls]


# Responses output item types that are tool calls the client must see if present.
_RESPONSES_NON_CALL_ITEMS = {"message", "reasoning"}
# Anthropic content block types that are not tool calls.
_ANTHROPIC_NON_CALL_BLOCKS = {"text", "thinking", "redacted_thinking"}


def retrieve_calls(response: dict[str, Any], fmt: str) -> list[RetrieveCall] | None:
    """The ``headroom_retrieve`` calls of the model's turn when it calls nothing else.

    None when the turn made no tool call, or mixed retrieve calls with other tools
    (mixed turns go back to the client untouched).
    """
    if not isinstance(response, dict):
        return None
    if fmt == OPENAI_CHAT:
        choices = response.get("choices")
        if not isinstance(choices, list) or len(choices) != 1 or not isinstance(choices[0], dict):
            return None  # n > 1: the client asked for alternatives; do not pick one for it
        message = choices[0].get("message") or {}
        calls = []
        for tc in message.get("tool_calls") or []:
            fn = tc.get("function") if isinstance(tc, dict) else None
            if not isinstance(fn, dict):
                return None
            calls.append((tc.get("id"), fn.get("name"), fn.get("arguments")))
        return _only_retrieve(calls)
    if fmt == OPENAI_RESPONSES:
        calls = []
        for item in response.get("output") or []:
            if not isinstance(item, dict):
                return None
            itype = item.get("type")
            if itype == "function_call":
                calls.append((item.get("call_id"), item.get("name"), item.get("arguments")))
            elif itype not in _RESPONSES_NON_CALL_ITEMS:
                return None  # a custom, built-in or MCP tool call: the client's business
        return _only_retrieve(calls)
    if fmt == ANTHROPIC:
        calls = []
        for block in response.get("content") or []:
            if not isinstance(block, dict):
                return None
            btype = block.get("type")
            if btype == "tool_use":
                calls.append((block.get("id"), block.get("name"), block.get("input")))
            elif btype not in _ANTHROPIC_NON_CALL_BLOCKS:
                return None
        return _only_retrieve(calls)
    raise ValueError(f"unknown format {fmt!r}")


def unknown_hash_message(hash: str) -> str:
    return (f"headroom_retrieve: unknown or expired hash={hash}. The original is no longer stored; continue "
            "with the compressed content, or re-run the tool that produced it.")


def answer(store: CompressionStore | None, call: RetrieveCall) -> str:
    """The tool result for one retrieve call: the original, the query's matches, or why not."""
    if not call.hash:
        return "headroom_retrieve error: missing 'hash' argument (copy it from the marker: hash=<24 hex digits>)."
    if store is None:
        return f"headroom_retrieve error: no compression store is configured, so hash={call.hash} cannot be retrieved."
    try:
        found = store.retrieve(call.hash, call.query)
    except StoreError as exc:
        # The request still completes: the model reads why and carries on (issue 12, F5).
        return (f"headroom_retrieve error: the compression store failed ({exc}), so hash={call.hash} cannot be "
                "retrieved right now. Continue with the compressed content.")
    if found is None:
        return unknown_hash_message(call.hash)
    return found.content


def continue_body(body: dict[str, Any], response: dict[str, Any], fmt: str, answers: dict[str, str]) -> dict[str, Any]:
    """The next request body: ``body`` plus the model's turn and one tool result per answer."""
    if fmt == OPENAI_CHAT:
        msg = response["choices"][0]["message"]
        assistant: dict[str, Any] = {"role": "assistant", "content": msg.get("content")}
        assistant["tool_calls"] = [
            {"id": tc["id"], "type": tc.get("type", "function"),
             "function": {"name": tc["function"]["name"], "arguments": tc["function"].get("arguments") or "{}"}}
            for tc in msg.get("tool_calls") or []
        ]
        results = [{"role": "tool", "tool_call_id": cid, "content": text} for cid, text in answers.items()]
        return {**body, "messages": [*body.get("messages", []), assistant, *results]}
    if fmt == OPENAI_RESPONSES:
        outputs = [{"type": "function_call_output", "call_id": cid, "output": text} for cid, text in answers.items()]
        if body.get("previous_response_id") and response.get("id"):
            # A chained conversation lives on the provider: chain onto this turn and send
            # only the tool results (re-sending its items would duplicate them).
            return {**body, "previous_response_id": response["id"], "input": outputs}
        inp = body.get("input")
        items = [{"role": "user", "content": inp}] if isinstance(inp, str) else list(inp or [])
        items.extend(copy.deepcopy(response.get("output") or []))
        items.extend(outputs)
        return {**body, "input": items}
    if fmt == ANTHROPIC:
        assistant = {"role": "assistant", "content": copy.deepcopy(response.get("content") or [])}
        results = {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": cid, "content": text} for cid, text in answers.items()
        ]}
        return {**body, "messages": [*body.get("messages", []), assistant, results]}
    raise ValueError(f"unknown format {fmt!r}")


# --------------------------------------------------------------------------- streaming


@dataclass
class SSEEvent:
    event: str | None
    data: str


class SSEDecoder:
    """Incremental Server-Sent-Events decoder: feed bytes, get complete events.

    Also returns the raw bytes of each event, so a caller can replay the exact stream.
    """

    def __init__(self) -> None:
        self._buf = b""

    def feed(self, chunk: bytes) -> list[tuple[SSEEvent, bytes]]:
        self._buf += chunk
        out: list[tuple[SSEEvent, bytes]] = []
        while True:
            cut = _event_end(self._buf)
            if cut is None:
                return out
            raw, self._buf = self._buf[:cut[1]], self._buf[cut[1]:]
            ev = _parse_event(raw[:cut[0]])
            if ev is not None:
                out.append((ev, raw))

    def flush(self) -> bytes:
        """Bytes left over after the stream ended (an unterminated last event)."""
        rest, self._buf = self._buf, b""
        return rest


def _event_end(buf: bytes) -> tuple[int, int] | None:
    """(end of event text, end of separator) of the first complete event in ``buf``."""
    best = None
    for sep in (b"\r\n\r\n", b"\n\n", b"\r\r"):
        i = buf.find(sep)
        if i != -1 and (best is None or i < best[0]):
            best = (i, i + len(sep))
    return best


def _parse_event(raw: bytes) -> SSEEvent | None:
    event = None
    data: list[str] = []
    for line in raw.decode("utf-8", errors="replace").splitlines():
        if not line or line.startswith(":"):
            continue
        name, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if name == "event":
            event = value
        elif name == "data":
            data.append(value)
    if event is None and not data:
        return None
    return SSEEvent(event, "\n".join(data))


@dataclass
class StreamAccumulator:
    """Rebuilds the complete (non-streaming) response dict from a streamed turn.

    Feed it the JSON ``data`` of every SSE event in order; :meth:`response` returns what
    the same request without ``stream`` would have returned, as far as the retrieval loop
    needs it (content, tool calls, ids, stop reason, usage).
    """

    format: str
    _base: dict[str, Any] = field(default_factory=dict)
    _choices: dict[int, dict[str, Any]] = field(default_factory=dict)
    _items: dict[int, dict[str, Any]] = field(default_factory=dict)
    _blocks: dict[int, dict[str, Any]] = field(default_factory=dict)
    _json_parts: dict[int, list[str]] = field(default_factory=dict)
    _final: dict[str, Any] | None = None
    error: dict[str, Any] | None = None
    # True once the stream shows a tool call other than headroom_retrieve: the turn is
    # the client's, so a caller buffering it can start relaying at once.
    saw_foreign_call: bool = False

    def feed_event(self, event: SSEEvent) -> None:
        if event.data.strip() in ("", "[DONE]"):
            return
        try:
            data = json.loads(event.data)
        except ValueError:
            return
        if isinstance(data, dict):
            self.feed(data)

    def feed(self, data: dict[str, Any]) -> None:
        if data.get("type") == "error" or (self.format == OPENAI_CHAT and "error" in data):
            self.error = data
            return
        if not self.saw_foreign_call and _is_foreign_call(self.format, data):
            self.saw_foreign_call = True
        if self.format == OPENAI_CHAT:
            self._feed_chat(data)
        elif self.format == OPENAI_RESPONSES:
            self._feed_responses(data)
        elif self.format == ANTHROPIC:
            self._feed_anthropic(data)
        else:
            raise ValueError(f"unknown format {self.format!r}")

    # chat.completion.chunk objects
    def _feed_chat(self, chunk: dict[str, Any]) -> None:
        for key in ("id", "model", "created", "system_fingerprint", "service_tier"):
            if key in chunk and key not in self._base:
                self._base[key] = chunk[key]
        if chunk.get("usage"):
            self._base["usage"] = chunk["usage"]
        for ch in chunk.get("choices") or []:
            idx = ch.get("index", 0)
            slot = self._choices.setdefault(idx, {"index": idx, "message": {"role": "assistant", "content": None},
                                                  "finish_reason": None, "_calls": {}})
            delta = ch.get("delta") or {}
            msg = slot["message"]
            if delta.get("role"):
                msg["role"] = delta["role"]
            if isinstance(delta.get("content"), str):
                msg["content"] = (msg["content"] or "") + delta["content"]
            if isinstance(delta.get("refusal"), str):
                msg["refusal"] = (msg.get("refusal") or "") + delta["refusal"]
            for tc in delta.get("tool_calls") or []:
                call = slot["_calls"].setdefault(tc.get("index", 0),
                                                 {"id": None, "type": "function", "function": {"name": "", "arguments": ""}})
                if tc.get("id"):
                    call["id"] = tc["id"]
                if tc.get("type"):
                    call["type"] = tc["type"]
                fn = tc.get("function") or {}
                if fn.get("name"):
                    call["function"]["name"] += fn["name"]
                if fn.get("arguments"):
                    call["function"]["arguments"] += fn["arguments"]
            if ch.get("finish_reason"):
                slot["finish_reason"] = ch["finish_reason"]

    # Responses API events
    def _feed_responses(self, ev: dict[str, Any]) -> None:
        etype = ev.get("type", "")
        if etype in ("response.created", "response.in_progress") and isinstance(ev.get("response"), dict):
            self._base = dict(ev["response"])
        elif etype in ("response.completed", "response.incomplete", "response.failed") and isinstance(ev.get("response"), dict):
            self._final = ev["response"]
        elif etype in ("response.output_item.added", "response.output_item.done") and isinstance(ev.get("item"), dict):
            self._items[ev.get("output_index", len(self._items))] = copy.deepcopy(ev["item"])
        elif etype == "response.function_call_arguments.delta":
            item = self._items.get(ev.get("output_index", -1))
            if item is not None:
                item["arguments"] = (item.get("arguments") or "") + (ev.get("delta") or "")
        elif etype == "response.function_call_arguments.done":
            item = self._items.get(ev.get("output_index", -1))
            if item is not None and isinstance(ev.get("arguments"), str):
                item["arguments"] = ev["arguments"]

    # Anthropic message events
    def _feed_anthropic(self, ev: dict[str, Any]) -> None:
        etype = ev.get("type")
        if etype == "message_start" and isinstance(ev.get("message"), dict):
            self._base = copy.deepcopy(ev["message"])
        elif etype == "content_block_start":
            self._blocks[ev.get("index", len(self._blocks))] = copy.deepcopy(ev.get("content_block") or {})
        elif etype == "content_block_delta":
            idx = ev.get("index", 0)
            block = self._blocks.setdefault(idx, {})
            delta = ev.get("delta") or {}
            dtype = delta.get("type")
            if dtype == "text_delta":
                block["text"] = (block.get("text") or "") + delta.get("text", "")
            elif dtype == "input_json_delta":
                self._json_parts.setdefault(idx, []).append(delta.get("partial_json", ""))
            elif dtype == "thinking_delta":
                block["thinking"] = (block.get("thinking") or "") + delta.get("thinking", "")
            elif dtype == "signature_delta":
                block["signature"] = (block.get("signature") or "") + delta.get("signature", "")
            elif dtype == "citations_delta":
                block.setdefault("citations", []).append(delta.get("citation"))
        elif etype == "message_delta":
            for key, value in (ev.get("delta") or {}).items():
                self._base[key] = value
            if isinstance(ev.get("usage"), dict):
                self._base["usage"] = {**(self._base.get("usage") or {}), **ev["usage"]}

    def response(self) -> dict[str, Any]:
        """The complete response as the non-streaming API would have returned it."""
        if self.format == OPENAI_CHAT:
            choices = []
            for idx in sorted(self._choices):
                slot = copy.deepcopy(self._choices[idx])
                calls = slot.pop("_calls")
                if calls:
                    slot["message"]["tool_calls"] = [calls[i] for i in sorted(calls)]
                choices.append(slot)
            return {**self._base, "object": "chat.completion", "choices": choices}
        if self.format == OPENAI_RESPONSES:
            if self._final is not None:
                return self._final
            return {**self._base, "output": [self._items[i] for i in sorted(self._items)]}
        content = []
        for idx in sorted(self._blocks):
            block = dict(self._blocks[idx])
            if idx in self._json_parts:
                joined = "".join(self._json_parts[idx])
                block["input"] = _parse_arguments(joined) if joined.strip() else {}
            content.append(block)
        return {**self._base, "content": content}


def _is_foreign_call(fmt: str, data: dict[str, Any]) -> bool:
    """Whether one stream event starts a tool call that is not ``headroom_retrieve``."""
    if fmt == OPENAI_CHAT:
        for ch in data.get("choices") or []:
            for tc in ((ch.get("delta") or {}).get("tool_calls") or []):
                name = (tc.get("function") or {}).get("name")
                if name and not is_retrieve_tool(name):
                    return True
        return False
    if fmt == OPENAI_RESPONSES:
        item = data.get("item") if data.get("type") == "response.output_item.added" else None
        if not isinstance(item, dict) or item.get("type") in _RESPONSES_NON_CALL_ITEMS:
            return False
        return not (item.get("type") == "function_call" and is_retrieve_tool(item.get("name")))
    if fmt == ANTHROPIC:
        block = data.get("content_block") if data.get("type") == "content_block_start" else None
        if not isinstance(block, dict) or block.get("type") in _ANTHROPIC_NON_CALL_BLOCKS:
            return False
        return not (block.get("type") == "tool_use" and is_retrieve_tool(block.get("name")))
    return False


__all__ = [
    "RetrieveCall",
    "SSEDecoder",
    "SSEEvent",
    "StreamAccumulator",
    "answer",
    "continue_body",
    "retrieve_calls",
]
