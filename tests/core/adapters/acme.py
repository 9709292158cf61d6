"""A fifth provider for the adapter contract test: "Acme", a made-up wire format.

Everything headroom needs to know about Acme is in this one module; the test registers
it with ``headroom.formats.register`` and runs it through the same contract suite as
the shipped adapters. A request is ``{"model", "preamble", "turns": [...]}``; a turn is
``{"speaker": "human"|"bot", "say": str}``, ``{"speaker": "bot", "invoke": {"ref",
"tool", "args"}}`` or ``{"speaker": "human", "answer": {"ref", "output"}}``.
"""

from __future__ import annotations

import copy
import json
from typing import Any

from headroom.formats.adapter import ImageRules, PrefixView, ProxyRoute
from headroom.formats.model import Block, BlockKind, Conversation, Message, Role
from headroom.formats.wire import PlainRelay, ToolCall, Usage, as_int, error_payload

FORMAT = "acme"
PROVIDER = "acme"
MESSAGES_KEY = "turns"
MODEL_PREFIXES = ("acme-",)
TOKEN_FACTOR = 1.25
DEFAULT_CONTEXT = 64_000
CACHE_BREAKPOINTS = False
PROMPT_CACHE_KEY: str | None = "cache_shard"
TEXT_PART_TYPE: str | None = None
CALLS_SPAN_ITEMS = True  # each invoke is a turn of its own
ALTERNATING_ROLES = False
IMAGES = ImageRules(lambda w, h, detail=None: 100 + (w * h) // 1000, low_detail=False,
                    downscale_field="google_max_long_side")

# Served by `headroom proxy` once registered (tests/proxy/test_registered_provider.py).
PROXY_ROUTES = (ProxyRoute("/acme/v1/talk"),)
UPSTREAM_URL = "https://api.acme.invalid"
CREDENTIAL_ENV = ("ACME_API_KEY",)

_ROLES = {"human": Role.USER, "bot": Role.ASSISTANT}


def owns(body: dict[str, Any]) -> bool:
    return "turns" in body and "messages" not in body


def prefix_view(body: dict[str, Any]) -> PrefixView:
    return PrefixView(body.get("model"), body.get("tools"), body.get("preamble"), list(body.get("turns") or []))


def _parse_turn(t: Any) -> Message:
    if not isinstance(t, dict) or t.get("speaker") not in _ROLES:
        return Message(Role.OTHER, [Block(BlockKind.OTHER, raw=t)], raw=t)
    role = _ROLES[t["speaker"]]
    if isinstance(t.get("invoke"), dict):
        inv = t["invoke"]
        # A call's arguments are its block's text (the tool-argument shrinker edits them).
        block = Block(BlockKind.TOOL_CALL, text=json.dumps(inv.get("args") or {}), tool_call_id=inv.get("ref"),
                      tool_name=inv.get("tool"), raw=t)
    elif isinstance(t.get("answer"), dict):
        block = Block(BlockKind.TOOL_RESULT, text=t["answer"].get("output"), tool_call_id=t["answer"].get("ref"), raw=t)
    else:
        block = Block(BlockKind.TEXT, text=t.get("say"), raw=t)
    return Message(role, [block], raw=t)


def parse(body: dict[str, Any]) -> Conversation:
    system = [Block(BlockKind.TEXT, text=body["preamble"], raw=body["preamble"])] if body.get("preamble") else []
    conv = Conversation(FORMAT, [_parse_turn(t) for t in body.get("turns") or []], body, system=system)
    conv.link_tool_results()
    return conv


def _render_turn(m: Message) -> Any:
    if m.role is Role.OTHER or not m.changed:
        return m.raw
    speaker = "bot" if m.role is Role.ASSISTANT else "human"
    b = m.blocks[0]
    if b.kind is BlockKind.TOOL_RESULT:
        return {**(m.raw or {}), "speaker": speaker, "answer": {**(m.raw or {}).get("answer", {}), "output": b.text}}
    if b.kind is BlockKind.TOOL_CALL:
        return {**(m.raw or {}), "invoke": {"ref": b.tool_call_id, "tool": b.tool_name,
                                            "args": json.loads(b.text or "{}")}}
    return {"speaker": speaker, "say": "\n".join(x.text or "" for x in m.blocks)}


def render(conv: Conversation) -> dict[str, Any]:
    body = dict(conv.body)
    body["turns"] = [_render_turn(m) for m in conv.messages]
    # A marker a stage inserted is a message without raw: it renders as a human turn.
    if conv.system and any(b.changed for b in conv.system):
        body["preamble"] = "\n".join(b.text or "" for b in conv.system)
    return body


def tool_definition(name: str, description: str, parameters: dict[str, Any]) -> dict[str, Any]:
    return {"tool": name, "about": description, "schema": parameters}


def tool_calls(response: dict[str, Any]) -> list[ToolCall] | None:
    out = response.get("out")
    if not isinstance(out, list):
        return None
    return [ToolCall(t["invoke"]["ref"], t["invoke"]["tool"], t["invoke"].get("args") or {})
            for t in out if isinstance(t, dict) and isinstance(t.get("invoke"), dict)]


def continue_body(body: dict[str, Any], response: dict[str, Any], results: dict[str, str]) -> dict[str, Any]:
    answers = [{"speaker": "human", "answer": {"ref": ref, "output": text}} for ref, text in results.items()]
    return {**body, "turns": [*body.get("turns", []), *copy.deepcopy(response["out"]), *answers]}


def forbid_tool_calls(body: dict[str, Any]) -> dict[str, Any]:
    return {**body, "tools_allowed": False}


def usage(response: Any) -> Usage:
    m = response.get("meter") if isinstance(response, dict) else None
    m = m if isinstance(m, dict) else {}
    return Usage(as_int(m.get("in")), as_int(m.get("out")), as_int(m.get("cached")))


def error_event(message: str, kind: str = "api_error", status: int | None = None) -> bytes:
    return f"data: {error_payload(message, kind, status)}\n\n".encode()


def is_error(data: dict[str, Any]) -> bool:
    return "error" in data


def started_calls(data: dict[str, Any]) -> list[str | None]:
    inv = data.get("invoke")
    return [inv.get("tool")] if isinstance(inv, dict) else []


class StreamTurn:
    """Acme streams one turn per event; the response is the list of them."""

    def __init__(self) -> None:
        self._out: list[dict[str, Any]] = []
        self._meter: dict[str, Any] = {}

    def feed(self, data: dict[str, Any]) -> None:
        if "meter" in data:
            self._meter = data["meter"]
        else:
            self._out.append(copy.deepcopy(data))

    def response(self) -> dict[str, Any]:
        return {"out": copy.deepcopy(self._out), "meter": dict(self._meter)}


class LiveRelay(PlainRelay):
    def hold(self, data: dict[str, Any]) -> bool:
        return bool(started_calls(data)) or "meter" in data
