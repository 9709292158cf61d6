"""OpenAI Chat Completions ⇄ neutral conversation."""

from __future__ import annotations

import copy
import math
from typing import Any

from ._parts import (
    PartSpec,
    joined_text,
    make_data_url,
    parse_parts,
    render_joined,
    render_part,
    split_data_url,
)
from .adapter import ImageRules, PrefixView, ProxyRoute
from .model import Block, BlockKind, Conversation, ImageData, Message, Role
from .wire import PlainRelay, ToolCall, Usage, as_int, error_payload, usage_dict

FORMAT = "openai_chat"
PROVIDER = "openai"
MESSAGES_KEY = "messages"
# OpenAI's models; the tokenizer itself (o200k or cl100k) is exact and picked per model
# in headroom.tokens. The Responses adapter shares these provider rules.
MODEL_PREFIXES = ("gpt-", "chatgpt-", "o1", "o3", "o4")
TOKEN_FACTOR = 1.0
DEFAULT_CONTEXT = 128_000
CACHE_BREAKPOINTS = False  # prompt caching by cache_control breakpoints (else automatic, by prefix)
PROMPT_CACHE_KEY: str | None = "prompt_cache_key"  # body field routing a session to one cache shard
TEXT_PART_TYPE: str | None = "text"
CALLS_SPAN_ITEMS = False  # a turn's tool calls share one assistant message
ALTERNATING_ROLES = False
SYSTEM_IN_MESSAGES = True  # the system prompt is the first message (the others carry it apart)
PROXY_ROUTES = (ProxyRoute("/v1/chat/completions"),)
UPSTREAM_URL = "https://api.openai.com"
CREDENTIAL_ENV = ("OPENAI_API_KEY",)  # environment variables holding a key (headroom mcp serve)

# Image sizing (GPT-4o family): ``detail: low`` is a flat 85 tokens. Otherwise the image
# is scaled to fit 2048x2048, then so its short side is at most 768, and costs
# 85 + 170 per 512-px tile. ``auto``/unset is counted as high (the upper bound).
IMAGE_BASE, IMAGE_TILE, IMAGE_LOW = 85, 170, 85


def image_tokens(width: int, height: int, detail: str | None = None) -> int:
    if detail == "low":
        return IMAGE_LOW
    w, h = float(width), float(height)
    if max(w, h) > 2048:
        s = 2048 / max(w, h)
        w, h = w * s, h * s
    if min(w, h) > 768:
        s = 768 / min(w, h)
        w, h = w * s, h * s
    tiles = math.ceil(w / 512) * math.ceil(h / 512)
    return IMAGE_BASE + IMAGE_TILE * tiles


IMAGES = ImageRules(image_tokens, low_detail=True)


def owns(body: dict[str, Any]) -> bool:
    # No top-level sign: a bare "messages" body is Chat unless its messages say otherwise
    # (formats.detect_format decides between Chat and Anthropic from them).
    return False


def prefix_view(body: dict[str, Any]) -> PrefixView:
    # A system prompt is the first message here; no separate field.
    return PrefixView(body.get("model"), body.get("tools"), body.get("system"), list(body.get("messages") or []))

_ROLES = {
    "system": Role.SYSTEM,
    "developer": Role.SYSTEM,
    "user": Role.USER,
    "assistant": Role.ASSISTANT,
    "tool": Role.TOOL,
    "function": Role.TOOL,
}


def _read_image(part: dict) -> ImageData | None:
    iu = part.get("image_url")
    if isinstance(iu, str):
        iu = {"url": iu}
    if not isinstance(iu, dict) or not isinstance(iu.get("url"), str):
        return None
    media, data = split_data_url(iu["url"])
    return ImageData(
        media_type=media,
        data=data,
        url=None if data else iu["url"],
        detail=iu.get("detail"),
    )


def _write_image(part: dict, img: ImageData) -> dict:
    iu = part.get("image_url")
    iu = dict(iu) if isinstance(iu, dict) else {}
    iu["url"] = make_data_url(img.media_type, img.data) if img.data else (img.url or iu.get("url"))
    if img.detail is not None:
        iu["detail"] = img.detail
    return {**part, "type": "image_url", "image_url": iu}


SPEC = PartSpec(
    text_types=frozenset({"text"}),
    image_types=frozenset({"image_url"}),
    read_image=_read_image,
    write_image=_write_image,
    default_text_type="text",
)


def _parse_message(raw: Any) -> Message:
    if not isinstance(raw, dict):
        return Message(Role.OTHER, [Block(BlockKind.OTHER, raw=raw)], raw=raw)
    role = _ROLES.get(raw.get("role"), Role.OTHER)
    content = raw.get("content")
    blocks: list[Block] = []
    is_string = isinstance(content, str)
    if role is Role.TOOL:
        text = content if is_string else joined_text(content, SPEC) if isinstance(content, list) else None
        blocks.append(
            Block(
                BlockKind.TOOL_RESULT,
                text=text,
                tool_call_id=raw.get("tool_call_id"),
                tool_name=raw.get("name"),
                raw=content,
            )
        )
    elif is_string:
        blocks.append(Block(BlockKind.TEXT, text=content, raw=None))
    elif isinstance(content, list):
        blocks.extend(parse_parts(content, SPEC))
    for call in raw.get("tool_calls") or []:
        fn = call.get("function") if isinstance(call, dict) else None
        fn = fn if isinstance(fn, dict) else {}
        args = fn.get("arguments")
        blocks.append(
            Block(
                BlockKind.TOOL_CALL,
                text=args if isinstance(args, str) else None,
                tool_call_id=call.get("id") if isinstance(call, dict) else None,
                tool_name=fn.get("name"),
                raw=call,
            )
        )
    return Message(role, blocks, raw=raw, content_is_string=is_string)


def parse(body: dict[str, Any]) -> Conversation:
    messages = body.get("messages")
    if not isinstance(messages, list):
        raise ValueError("OpenAI chat body needs a 'messages' list")
    conv = Conversation(FORMAT, [_parse_message(m) for m in messages], body)
    conv.link_tool_results()
    return conv


def _render_call(b: Block) -> Any:
    if not b.changed:
        return b.raw
    call = dict(b.raw) if isinstance(b.raw, dict) else {"id": b.tool_call_id, "type": "function"}
    fn = dict(call.get("function") or {})
    fn.setdefault("name", b.tool_name)
    fn["arguments"] = b.text
    call["function"] = fn
    return call


def render_message(m: Message) -> Any:
    if not m.changed:
        return m.raw
    out: dict[str, Any] = dict(m.raw) if isinstance(m.raw, dict) else {"role": m.role.value}
    calls = [b for b in m.blocks if b.kind is BlockKind.TOOL_CALL]
    content_blocks = [b for b in m.blocks if b.kind is not BlockKind.TOOL_CALL]
    if m.role is Role.TOOL and content_blocks:
        b = content_blocks[0]
        out.setdefault("tool_call_id", b.tool_call_id)
        if b.changed:
            out["content"] = render_joined(b.raw, b.text, SPEC) if isinstance(b.raw, list) else b.text
    elif m.content_is_string or (m.raw is None and len(content_blocks) == 1 and content_blocks[0].kind is BlockKind.TEXT):
        out["content"] = content_blocks[0].text if content_blocks else ""
    elif content_blocks:
        out["content"] = [render_part(b, SPEC) for b in content_blocks]
    if calls:
        out["tool_calls"] = [_render_call(b) for b in calls]
    return out


def render(conv: Conversation) -> dict[str, Any]:
    body = dict(conv.body)
    body["messages"] = [render_message(m) for m in conv.messages]
    return body


def tool_result_message(call_id: str, text: str) -> dict[str, Any]:
    return {"role": "tool", "tool_call_id": call_id, "content": text}


# --- the tool loop: definitions, calls in a response, continuation, usage, streams -------


def tool_definition(name: str, description: str, parameters: dict[str, Any]) -> dict[str, Any]:
    return {"type": "function", "function": {"name": name, "description": description, "parameters": parameters}}


def tool_calls(response: dict[str, Any]) -> list[ToolCall] | None:
    """The tool calls of the model's turn; None when the turn cannot be answered for the
    client (several choices: the client asked for alternatives, do not pick one for it)."""
    choices = response.get("choices")
    if not isinstance(choices, list) or len(choices) != 1 or not isinstance(choices[0], dict):
        return None
    message = choices[0].get("message") or {}
    calls = []
    for tc in message.get("tool_calls") or []:
        fn = tc.get("function") if isinstance(tc, dict) else None
        if not isinstance(fn, dict):
            return None
        calls.append(ToolCall(str(tc.get("id") or ""), fn.get("name"), fn.get("arguments")))
    return calls


def continue_body(body: dict[str, Any], response: dict[str, Any], results: dict[str, str]) -> dict[str, Any]:
    """``body`` plus the model's turn and one tool message per answered call."""
    msg = response["choices"][0]["message"]
    assistant: dict[str, Any] = {"role": "assistant", "content": msg.get("content")}
    # tool_calls() read these calls already; a call missing its id or name (an upstream's
    # malformed turn) is echoed as it came, and the caller decides whether to answer it.
    assistant["tool_calls"] = [
        {"id": tc.get("id") or "", "type": tc.get("type") or "function",
         "function": {"name": (tc.get("function") or {}).get("name"),
                      "arguments": (tc.get("function") or {}).get("arguments") or "{}"}}
        for tc in msg.get("tool_calls") or []
    ]
    answers = [tool_result_message(cid, text) for cid, text in results.items()]
    return {**body, "messages": [*body.get("messages", []), assistant, *answers]}


def forbid_tool_calls(body: dict[str, Any]) -> dict[str, Any]:
    """``body`` whose next turn may call no tool."""
    return {**body, "tool_choice": "none"}


def usage(response: Any) -> Usage:
    """Chat usage; LiteLLM's Chat-shaped answers for Claude also carry Anthropic's
    ``cache_read_input_tokens`` / ``cache_creation_input_tokens``, read here too."""
    u = usage_dict(response) or {}
    details = u.get("prompt_tokens_details") if isinstance(u.get("prompt_tokens_details"), dict) else {}
    return Usage(as_int(u.get("prompt_tokens")), as_int(u.get("completion_tokens")),
                 as_int(details.get("cached_tokens")) or as_int(u.get("cache_read_input_tokens")),
                 as_int(u.get("cache_creation_input_tokens")))


def error_event(message: str, kind: str = "api_error", status: int | None = None) -> bytes:
    """An SSE error the OpenAI SDKs raise on (``error`` in the data of an unnamed event)."""
    return f"data: {error_payload(message, kind, status)}\n\n".encode()


def is_error(data: dict[str, Any]) -> bool:
    return data.get("type") == "error" or "error" in data


def started_calls(data: dict[str, Any]) -> list[str | None]:
    """Names of the tool calls a stream chunk starts (a call's name comes in its first delta)."""
    out: list[str | None] = []
    for ch in data.get("choices") or []:
        for tc in (ch.get("delta") or {}).get("tool_calls") or []:
            name = (tc.get("function") or {}).get("name")
            if name:
                out.append(name)
    return out


class StreamTurn:
    """Rebuilds the non-streaming response from ``chat.completion.chunk`` objects."""

    def __init__(self) -> None:
        self._base: dict[str, Any] = {}
        self._choices: dict[int, dict[str, Any]] = {}

    def feed(self, chunk: dict[str, Any]) -> None:
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

    def response(self) -> dict[str, Any]:
        choices = []
        for idx in sorted(self._choices):
            slot = copy.deepcopy(self._choices[idx])
            calls = slot.pop("_calls")
            if calls:
                slot["message"]["tool_calls"] = [calls[i] for i in sorted(calls)]
            choices.append(slot)
        return {**self._base, "object": "chat.completion", "choices": choices}


class LiveRelay(PlainRelay):
    """What of a streamed Chat turn reaches the client before it is known whether the turn
    is a retrieve call: content deltas go live; tool-call deltas, the finish chunk, the
    usage chunk and ``[DONE]`` are held. Later rounds continue the same stream as is."""

    def hold(self, data: dict[str, Any]) -> bool:
        choices = data.get("choices")
        if not choices:
            return True  # the usage chunk ends the turn
        return any((ch.get("delta") or {}).get("tool_calls") or ch.get("finish_reason") for ch in choices)
