"""Anthropic Messages ⇄ neutral conversation.

``tool_use.input`` is an object on the wire; the neutral model holds it as a JSON string
(like OpenAI ``arguments``) so the tool-argument shrinker works the same everywhere.
Thinking and redacted-thinking blocks are signed by the provider: they are parsed for
token counting but always rendered from ``raw``.
"""

from __future__ import annotations

import copy
import functools
import json
import math
from typing import Any

from ._parts import (
    PartSpec,
    joined_text,
    parse_parts,
    render_part,
    render_tool_output,
    tool_output_images,
)
from .adapter import ImageRules, PrefixView, ProxyRoute
from .model import Block, BlockKind, Conversation, ImageData, Message, Role
from .wire import (
    ToolCall,
    Usage,
    as_int,
    collect_calls,
    is_typed_error,
    named_error_event,
    parse_arguments,
    started_call,
    usage_dict,
)

FORMAT = "anthropic"
PROVIDER = "anthropic"
MESSAGES_KEY = "messages"
MODEL_PREFIXES = ("claude", "anthropic")
# Anthropic publishes no tokenizer: Claude is counted as cl100k with this correction
# (its tokenizer yields slightly more tokens on code and JSON).
TOKEN_FACTOR = 1.1
DEFAULT_CONTEXT = 200_000
CACHE_BREAKPOINTS = True  # prompt caching by cache_control breakpoints (else automatic, by prefix)
# A request may carry at most 4 cache_control breakpoints, and a prefix shorter than 1024
# tokens (2048 on Haiku models) is not cached (headroom/cache/anthropic.py places them).
CACHE_MAX_BREAKPOINTS = 4
CACHE_MIN_TOKENS = 1024
PROMPT_CACHE_KEY: str | None = None  # body field routing a session to one cache shard
TEXT_PART_TYPE: str | None = "text"
CALLS_SPAN_ITEMS = False  # tool_use blocks of a turn share one assistant message
ALTERNATING_ROLES = True  # user and assistant turns alternate
PROXY_ROUTES = (ProxyRoute("/v1/messages"),)
UPSTREAM_URL = "https://api.anthropic.com"
CREDENTIAL_ENV = ("ANTHROPIC_API_KEY",)  # environment variables holding a key (headroom mcp serve)

# Image sizing: about width*height/750 tokens after the API's own downscale (long side
# at most 1568 px, about 1.15 megapixels), i.e. at most ~1600 tokens.
IMAGE_MAX_LONG, IMAGE_MAX_PIXELS = 1568, 1_150_000


def image_tokens(width: int, height: int, detail: str | None = None) -> int:
    w, h = float(width), float(height)
    if max(w, h) > IMAGE_MAX_LONG:
        s = IMAGE_MAX_LONG / max(w, h)
        w, h = w * s, h * s
    # Above the pixel cap the image is scaled to exactly the cap: use the cap itself, as
    # w * h after a sqrt scaling can land a hair above it and round up to one token more.
    area = min(w * h, float(IMAGE_MAX_PIXELS))
    return max(1, math.ceil(area / 750))


IMAGES = ImageRules(image_tokens, low_detail=False, downscale_field="anthropic_max_long_side")


def owns(body: dict[str, Any]) -> bool:
    # A top-level system prompt beside the messages (Chat keeps it as a message).
    return isinstance(body.get("messages"), list) and "system" in body


def prefix_view(body: dict[str, Any]) -> PrefixView:
    return PrefixView(body.get("model"), body.get("tools"), body.get("system"), list(body.get("messages") or []))


def _read_image(part: dict) -> ImageData | None:
    src = part.get("source")
    if not isinstance(src, dict):
        return None
    if src.get("type") == "base64":
        return ImageData(media_type=src.get("media_type"), data=src.get("data"))
    if src.get("type") == "url":
        return ImageData(url=src.get("url"))
    return None


def _write_image(part: dict, img: ImageData) -> dict:
    if img.data:
        src = {"type": "base64", "media_type": img.media_type or "image/png", "data": img.data}
    else:
        src = {"type": "url", "url": img.url}
    return {**part, "type": "image", "source": src}


SPEC = PartSpec(
    text_types=frozenset({"text"}),
    image_types=frozenset({"image"}),
    read_image=_read_image,
    write_image=_write_image,
    default_text_type="text",
)


def _dump_input(value: Any) -> str | None:
    try:
        return json.dumps(value, ensure_ascii=False)
    except (TypeError, ValueError):
        return None


def _parse_block(part: Any) -> Block:
    ptype = part.get("type") if isinstance(part, dict) else None
    if ptype == "tool_use":
        return Block(
            BlockKind.TOOL_CALL,
            text=_dump_input(part.get("input")),
            tool_call_id=part.get("id"),
            tool_name=part.get("name"),
            raw=part,
        )
    if ptype == "tool_result":
        content = part.get("content")
        text = content if isinstance(content, str) else joined_text(content, SPEC) if isinstance(content, list) else None
        return Block(
            BlockKind.TOOL_RESULT,
            text=text,
            tool_call_id=part.get("tool_use_id"),
            raw=part,
            is_error=bool(part.get("is_error")),
            parts=tool_output_images(content, SPEC) if isinstance(content, list) else [],
        )
    if ptype == "thinking":
        b = Block(BlockKind.THINKING, raw=part)
        b.meta["token_text"] = part.get("thinking") if isinstance(part.get("thinking"), str) else ""
        return b
    if ptype == "redacted_thinking":
        return Block(BlockKind.THINKING, raw=part)
    return parse_parts([part], SPEC)[0]


def _parse_content(content: Any) -> tuple[list[Block], bool]:
    if isinstance(content, str):
        return [Block(BlockKind.TEXT, text=content)], True
    if isinstance(content, list):
        return [_parse_block(p) for p in content], False
    return [Block(BlockKind.OTHER, raw=content)], False


def parse(body: dict[str, Any]) -> Conversation:
    messages = body.get("messages")
    if not isinstance(messages, list):
        raise ValueError("Anthropic body needs a 'messages' list")
    out: list[Message] = []
    for raw in messages:
        if not isinstance(raw, dict):
            out.append(Message(Role.OTHER, [Block(BlockKind.OTHER, raw=raw)], raw=raw))
            continue
        role = {"user": Role.USER, "assistant": Role.ASSISTANT}.get(raw.get("role"), Role.OTHER)
        blocks, is_string = _parse_content(raw.get("content"))
        out.append(Message(role, blocks, raw=raw, content_is_string=is_string))
    system_raw = body.get("system")
    system: list[Block] = []
    system_is_string = False
    if isinstance(system_raw, str):
        system, system_is_string = [Block(BlockKind.TEXT, text=system_raw)], True
    elif isinstance(system_raw, list):
        system = parse_parts(system_raw, SPEC)
    conv = Conversation(FORMAT, out, body, system=system, system_is_string=system_is_string)
    conv.link_tool_results()
    return conv


def _render_block(b: Block) -> Any:
    if not b.changed and b.raw is not None:
        return b.raw
    if b.kind is BlockKind.TOOL_CALL:
        base = dict(b.raw) if isinstance(b.raw, dict) else {"type": "tool_use", "id": b.tool_call_id, "name": b.tool_name}
        base["input"] = json.loads(b.text) if b.text is not None else {}
        return base
    if b.kind is BlockKind.TOOL_RESULT:
        base = dict(b.raw) if isinstance(b.raw, dict) else {"type": "tool_result", "tool_use_id": b.tool_call_id}
        old = base.get("content")
        base["content"] = render_tool_output(old, b, SPEC) if isinstance(old, list) else b.text
        return base
    if b.kind is BlockKind.THINKING:
        return b.raw
    return render_part(b, SPEC)


def render_message(m: Message) -> Any:
    if not m.changed:
        return m.raw
    out: dict[str, Any] = dict(m.raw) if isinstance(m.raw, dict) else {"role": m.role.value}
    if m.content_is_string and len(m.blocks) == 1 and m.blocks[0].kind is BlockKind.TEXT:
        out["content"] = m.blocks[0].text
    else:
        out["content"] = [_render_block(b) for b in m.blocks]
    return out


def render(conv: Conversation) -> dict[str, Any]:
    body = dict(conv.body)
    body["messages"] = [render_message(m) for m in conv.messages]
    if conv.system and any(b.changed for b in conv.system):
        if conv.system_is_string and len(conv.system) == 1:
            body["system"] = conv.system[0].text
        else:
            body["system"] = [render_part(b, SPEC) for b in conv.system]
    return body


def tool_result_block(call_id: str, text: str) -> dict[str, Any]:
    return {"type": "tool_result", "tool_use_id": call_id, "content": text}


# --- the tool loop: definitions, calls in a response, continuation, usage, streams -------

# Content block types that are not tool calls.
_NON_CALL_BLOCKS = {"text", "thinking", "redacted_thinking"}


def tool_definition(name: str, description: str, parameters: dict[str, Any]) -> dict[str, Any]:
    return {"name": name, "description": description, "input_schema": parameters}


def tool_calls(response: dict[str, Any]) -> list[ToolCall] | None:
    """The tool_use blocks of the turn; None when it also holds another kind of block
    (server tools, MCP calls: the client's business)."""
    return collect_calls(response.get("content"), "tool_use", _NON_CALL_BLOCKS, "id", "input")


def continue_body(body: dict[str, Any], response: dict[str, Any], results: dict[str, str]) -> dict[str, Any]:
    assistant = {"role": "assistant", "content": copy.deepcopy(response.get("content") or [])}
    answers = {"role": "user", "content": [tool_result_block(cid, text) for cid, text in results.items()]}
    return {**body, "messages": [*body.get("messages", []), assistant, answers]}


def forbid_tool_calls(body: dict[str, Any]) -> dict[str, Any]:
    """``body`` whose next turn may call no tool."""
    return {**body, "tool_choice": {"type": "none"}}


def usage(response: Any) -> Usage:
    """Anthropic reports uncached input, cache reads and cache writes apart; input_tokens
    of :class:`Usage` is their sum, so every format counts the prompt the same way."""
    u = usage_dict(response) or {}
    read, write = as_int(u.get("cache_read_input_tokens")), as_int(u.get("cache_creation_input_tokens"))
    return Usage(as_int(u.get("input_tokens")) + read + write, as_int(u.get("output_tokens")), read, write)


error_event = named_error_event
is_error = is_typed_error
# The tool call a content_block_start begins (None: a block that is not a tool_use).
started_calls = functools.partial(started_call, "content_block_start", "content_block", "tool_use", _NON_CALL_BLOCKS)


class StreamTurn:
    """Rebuilds the Message object from Anthropic stream events."""

    def __init__(self) -> None:
        self._base: dict[str, Any] = {}
        self._blocks: dict[int, dict[str, Any]] = {}
        self._json_parts: dict[int, list[str]] = {}

    def feed(self, ev: dict[str, Any]) -> None:
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
        content = []
        for idx in sorted(self._blocks):
            block = dict(self._blocks[idx])
            if idx in self._json_parts:
                joined = "".join(self._json_parts[idx])
                block["input"] = parse_arguments(joined) if joined.strip() else {}
            content.append(block)
        return {**self._base, "content": content}


class LiveRelay:
    """What of a streamed Messages turn reaches the client before it is known whether the
    turn is a retrieve call: text and thinking blocks go live; a tool_use block and the
    end of the message (message_delta, message_stop) are held. A later round continues
    the same message: its message_start is dropped and its block indices follow on."""

    def __init__(self) -> None:
        self.blocks_sent = 0
        self.offset = 0
        self.rounds = 0

    def hold(self, data: dict[str, Any]) -> bool:
        etype = data.get("type")
        if etype == "content_block_start":
            return (data.get("content_block") or {}).get("type") not in _NON_CALL_BLOCKS
        return etype in ("message_delta", "message_stop")

    def sent(self, data: dict[str, Any]) -> None:
        if data.get("type") == "content_block_start":
            self.blocks_sent += 1

    def next_round(self) -> None:
        self.offset, self.rounds = self.blocks_sent, self.rounds + 1

    def rewrite(self, data: dict[str, Any]) -> dict[str, Any] | None:
        if not self.rounds:
            return data
        etype = data.get("type") or ""
        if etype == "message_start":
            return None
        if etype.startswith("content_block") and isinstance(data.get("index"), int):
            return {**data, "index": data["index"] + self.offset}
        return data
