"""Format-neutral pieces of a provider *response*, shared by every adapter.

- :class:`Usage` — token usage of one response in one shape (cache reads and writes
  included), whatever the provider reported;
- :class:`ToolCall` — one tool call of the model's turn;
- :class:`SSEDecoder` — splits raw Server-Sent-Events bytes into events;
- :func:`parse_arguments` — tool-call arguments (a JSON string or an object) as a dict.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Usage:
    """Tokens of one response. ``input_tokens`` counts every prompt token, cached ones too
    (OpenAI's convention; Anthropic reports them apart and its adapter adds them up)."""

    input_tokens: int = 0
    output_tokens: int = 0
    cache_read_tokens: int = 0
    cache_write_tokens: int = 0


@dataclass(frozen=True)
class ToolCall:
    id: str
    name: str
    arguments: Any  # as the provider sent them: a JSON string (OpenAI) or an object


def collect_calls(items: Any, call_type: str, non_calls: set[str], id_key: str,
                  args_key: str) -> list[ToolCall] | None:
    """The calls among a turn's typed items (Responses output items, Anthropic content
    blocks); None when an item is neither a call of ``call_type`` nor in ``non_calls``
    (a built-in, server or MCP tool call: the client's business)."""
    calls = []
    for item in items or []:
        if not isinstance(item, dict):
            return None
        itype = item.get("type")
        if itype == call_type:
            calls.append(ToolCall(str(item.get(id_key) or ""), item.get("name"), item.get(args_key)))
        elif itype not in non_calls:
            return None
    return calls


def usage_dict(response: Any) -> dict[str, Any] | None:
    """The ``usage`` object of a response dict or SDK object, as a dict (None if absent)."""
    u = response.get("usage") if isinstance(response, dict) else getattr(response, "usage", None)
    if hasattr(u, "model_dump"):
        u = u.model_dump()
    return u if isinstance(u, dict) else None


def as_int(value: Any) -> int:
    return int(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else 0


def parse_arguments(raw: Any) -> dict[str, Any]:
    if isinstance(raw, dict):
        return raw
    if isinstance(raw, str) and raw.strip():
        try:
            value = json.loads(raw)
        except ValueError:
            return {}
        return value if isinstance(value, dict) else {}
    return {}


def error_payload(message: str, kind: str, status: int | None) -> str:
    payload: dict[str, Any] = {"type": "error", "error": {"type": kind, "message": message}}
    if status is not None:
        payload["error"]["status"] = status
    return json.dumps(payload)


def named_error_event(message: str, kind: str = "api_error", status: int | None = None) -> bytes:
    """``event: error`` with a typed payload: what the Anthropic and Responses SDKs raise on."""
    return f"event: error\ndata: {error_payload(message, kind, status)}\n\n".encode()


def is_typed_error(data: dict[str, Any]) -> bool:
    return data.get("type") == "error"


def started_call(start_event: str, item_key: str, call_type: str, non_calls: set[str],
                 data: dict[str, Any]) -> list[str | None]:
    """The name of the call a ``start_event`` stream event starts with its ``item_key``
    item: [] when it is no call, [None] for a call of another kind than ``call_type``.
    Adapters bind the first four arguments (``functools.partial``)."""
    item = data.get(item_key) if data.get("type") == start_event else None
    if not isinstance(item, dict) or item.get("type") in non_calls:
        return []
    return [item.get("name") if item.get("type") == call_type else None]


class PlainRelay:
    """A live relay for formats whose stream chunks stand alone (no indices to shift):
    subclasses say only which chunks are held (``hold``)."""

    def hold(self, data: dict[str, Any]) -> bool:
        raise NotImplementedError

    def sent(self, data: dict[str, Any]) -> None:
        pass

    def next_round(self) -> None:
        pass

    def rewrite(self, data: dict[str, Any]) -> dict[str, Any] | None:
        return data


def encode_event(event: str | None, data: dict[str, Any]) -> bytes:
    """One SSE event (a rewritten one: original events are relayed as their own bytes)."""
    head = f"event: {event}\n" if event else ""
    return f"{head}data: {json.dumps(data, ensure_ascii=False, separators=(',', ':'))}\n\n".encode()


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
