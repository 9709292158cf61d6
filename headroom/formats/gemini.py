"""Google Gemini ``generateContent`` ⇄ neutral conversation, and its responses.

A request carries ``contents`` (``role`` user/model, ``parts``) and an optional
``systemInstruction``; keys come camelCase (REST) or snake_case (SDKs), and each part is
written back in the case it came in. Parts: ``text``; inline images
``inlineData``/``inline_data``; ``functionCall`` (the model's tool call) and
``functionResponse`` (its result). Gemini pairs a result with its call by name and order
(or by ``id`` when given); the adapter links them the same way, with ids of its own that
are never rendered.

A tool result's ``response`` is an object. When it holds exactly one string field (the
usual ``{"content": "..."}`` or ``{"result": "..."}``), that string is the compressible
text and goes back under the same key; any other shape is carried through untouched.
The model name is in the URL, not the body: pass it to ``compress(model=...)``.
"""

from __future__ import annotations

import copy
import json
import math
from typing import Any

from .adapter import ImageRules, PrefixView, ProxyRoute
from .model import Block, BlockKind, Conversation, ImageData, Message, Role
from .wire import PlainRelay, ToolCall, Usage, as_int, error_payload

FORMAT = "gemini"
PROVIDER = "google"
MESSAGES_KEY = "contents"
MODEL_PREFIXES = ("gemini",)
# Google publishes no offline tokenizer: counts are cl100k estimates, within roughly
# 10-15 % of Gemini's own countTokens on English text and JSON.
TOKEN_FACTOR = 1.0
DEFAULT_CONTEXT = 1_048_576
CACHE_BREAKPOINTS = False  # prompt caching by cache_control breakpoints (else automatic, by prefix)
PROMPT_CACHE_KEY: str | None = None  # body field routing a session to one cache shard
TEXT_PART_TYPE: str | None = None  # a text part is {"text": ...}, no type field
CALLS_SPAN_ITEMS = False  # a turn's functionCall parts share one model content
ALTERNATING_ROLES = False


def _proxy_call(params: dict[str, str]) -> tuple[str | None, bool | None] | None:
    # generateContent / streamGenerateContent: the model and the stream flag are in the URL;
    # another action of a model (countTokens...) is forwarded untouched.
    model, _, action = params.get("target", "").partition(":")
    if action not in ("generateContent", "streamGenerateContent"):
        return None
    return model, action == "streamGenerateContent"


PROXY_ROUTES = (ProxyRoute("/v1beta/models/{target}", _proxy_call),)
UPSTREAM_URL = "https://generativelanguage.googleapis.com"
CREDENTIAL_ENV = ("GEMINI_API_KEY", "GOOGLE_API_KEY")  # environment variables holding a key (headroom mcp serve)

# Image sizing: 258 tokens when both sides are at most 384 px, otherwise 258 per 768x768 tile.
IMAGE_TILE_TOKENS, IMAGE_SMALL, IMAGE_TILE = 258, 384, 768


def image_tokens(width: int, height: int, detail: str | None = None) -> int:
    if width <= IMAGE_SMALL and height <= IMAGE_SMALL:
        return IMAGE_TILE_TOKENS
    return IMAGE_TILE_TOKENS * math.ceil(width / IMAGE_TILE) * math.ceil(height / IMAGE_TILE)


IMAGES = ImageRules(image_tokens, low_detail=False, downscale_field="google_max_long_side")


def owns(body: dict[str, Any]) -> bool:
    return "contents" in body and "messages" not in body


def prefix_view(body: dict[str, Any]) -> PrefixView:
    system = body.get(_key(body, "systemInstruction", "system_instruction") or "systemInstruction")
    return PrefixView(body.get("model"), body.get("tools"), system, list(body.get("contents") or []))

_ROLES = {"user": Role.USER, "model": Role.ASSISTANT, "function": Role.TOOL}
_WIRE_ROLES = {Role.USER: "user", Role.ASSISTANT: "model", Role.TOOL: "user", Role.SYSTEM: "user"}


def _key(part: dict, camel: str, snake: str) -> str | None:
    if camel in part:
        return camel
    return snake if snake in part else None


def _inline_keys(part: dict) -> tuple[str, str] | None:
    """(container key, mime key) of an inline-data part, in the part's own case."""
    if isinstance(part.get("inlineData"), dict):
        return "inlineData", "mimeType"
    if isinstance(part.get("inline_data"), dict):
        return "inline_data", "mime_type"
    return None


def _response_text(response: Any) -> tuple[str | None, str | None]:
    """(key, text) when a functionResponse's ``response`` has exactly one string field."""
    if isinstance(response, dict) and len(response) == 1:
        (k, v), = response.items()
        if isinstance(v, str):
            return k, v
    return None, None


class _Ids:
    """Call ids for linking: the part's own ``id``, else name + occurrence number."""

    def __init__(self) -> None:
        self.calls: dict[str, int] = {}
        self.results: dict[str, int] = {}

    def next(self, seen: dict[str, int], fn: dict) -> str:
        if isinstance(fn.get("id"), str) and fn["id"]:
            return fn["id"]
        name = str(fn.get("name") or "")
        n = seen.get(name, 0)
        seen[name] = n + 1
        return f"{name}#{n}"


def _parse_part(part: Any, ids: _Ids) -> Block:
    if not isinstance(part, dict):
        return Block(BlockKind.OTHER, raw=part)
    if isinstance(part.get("text"), str) and not part.get("thought"):
        return Block(BlockKind.TEXT, text=part["text"], raw=part)
    keys = _inline_keys(part)
    if keys:
        inner = part[keys[0]]
        mime = inner.get(keys[1])
        if isinstance(mime, str) and mime.startswith("image/") and isinstance(inner.get("data"), str):
            return Block(BlockKind.IMAGE, image=ImageData(media_type=mime, data=inner["data"]), raw=part)
    call_key = _key(part, "functionCall", "function_call")
    if call_key and isinstance(part[call_key], dict):
        fn = part[call_key]
        return Block(BlockKind.TOOL_CALL, text=json.dumps(fn.get("args") or {}, ensure_ascii=False),
                     tool_call_id=ids.next(ids.calls, fn), tool_name=fn.get("name"), raw=part)
    resp_key = _key(part, "functionResponse", "function_response")
    if resp_key and isinstance(part[resp_key], dict):
        fr = part[resp_key]
        _, text = _response_text(fr.get("response"))
        return Block(BlockKind.TOOL_RESULT, text=text, tool_call_id=ids.next(ids.results, fr),
                     tool_name=fr.get("name"), raw=part)
    return Block(BlockKind.OTHER, raw=part)


def parse(body: dict[str, Any]) -> Conversation:
    contents = body.get("contents")
    if not isinstance(contents, list):
        raise ValueError("a Gemini body needs a 'contents' list")
    ids = _Ids()
    messages = []
    for content in contents:
        if isinstance(content, dict) and isinstance(content.get("parts"), list):
            role = _ROLES.get(content.get("role", "user"), Role.OTHER)
            messages.append(Message(role, [_parse_part(p, ids) for p in content["parts"]], raw=content))
        else:
            messages.append(Message(Role.OTHER, [Block(BlockKind.OTHER, raw=content)], raw=content))
    system: list[Block] = []
    sys_key = _key(body, "systemInstruction", "system_instruction")
    if sys_key and isinstance(body[sys_key], dict) and isinstance(body[sys_key].get("parts"), list):
        system = [_parse_part(p, ids) for p in body[sys_key]["parts"]]
    conv = Conversation(FORMAT, messages, body, system=system)
    conv.link_tool_results()
    return conv


def _render_part(block: Block) -> Any:
    if not block.changed and block.raw is not None:
        return block.raw
    raw = block.raw if isinstance(block.raw, dict) else {}
    if block.kind is BlockKind.IMAGE and block.image is not None:
        keys = _inline_keys(raw) or ("inlineData", "mimeType")
        inner = {**raw.get(keys[0], {}), keys[1]: block.image.media_type, "data": block.image.data}
        return {**raw, keys[0]: inner}
    if block.kind is BlockKind.TOOL_RESULT and block.text is not None:
        resp_key = _key(raw, "functionResponse", "function_response")
        if resp_key:
            fr = raw[resp_key]
            key, _ = _response_text(fr.get("response"))
            return {**raw, resp_key: {**fr, "response": {key: block.text}}}
    if block.text is not None and block.kind in (BlockKind.TEXT, BlockKind.TOOL_RESULT):
        # A transform turned this block into text (a marker, an OCR transcript).
        return {"text": block.text}
    return block.raw


def _render_message(m: Message) -> Any:
    if m.role is Role.OTHER or not m.changed:
        return m.raw
    base = m.raw if isinstance(m.raw, dict) else {"role": _WIRE_ROLES.get(m.role, "user")}
    return {**base, "parts": [_render_part(b) for b in m.blocks]}


def render(conv: Conversation) -> dict[str, Any]:
    body = dict(conv.body)
    body["contents"] = [_render_message(m) for m in conv.messages]
    if conv.system and any(b.changed for b in conv.system):
        sys_key = _key(body, "systemInstruction", "system_instruction") or "systemInstruction"
        body[sys_key] = {**body.get(sys_key, {}), "parts": [_render_part(b) for b in conv.system]}
    return body


# --- the tool loop: definitions, calls in a response, continuation, usage, streams -------


def tool_definition(name: str, description: str, parameters: dict[str, Any]) -> dict[str, Any]:
    return {"functionDeclarations": [{"name": name, "description": description, "parameters": parameters}]}


def _candidate_parts(response: dict[str, Any]) -> list | None:
    cands = response.get("candidates")
    if not isinstance(cands, list) or len(cands) != 1 or not isinstance(cands[0], dict):
        return None
    content = cands[0].get("content") or {}
    parts = content.get("parts") if isinstance(content, dict) else None
    return parts if isinstance(parts, list) else []


def tool_calls(response: dict[str, Any]) -> list[ToolCall] | None:
    parts = _candidate_parts(response)
    if parts is None:
        return None  # several candidates: the client asked for alternatives
    calls, seen = [], _Ids()
    for part in parts:
        if not isinstance(part, dict):
            return None
        key = _key(part, "functionCall", "function_call")
        if key:
            fn = part[key] if isinstance(part[key], dict) else {}
            calls.append(ToolCall(seen.next(seen.calls, fn), fn.get("name"), fn.get("args") or {}))
        elif not ("text" in part or "thought" in part or "thoughtSignature" in part):
            return None  # executable code and other built-ins: the client's business
    return calls


def continue_body(body: dict[str, Any], response: dict[str, Any], results: dict[str, str]) -> dict[str, Any]:
    turn = copy.deepcopy(response["candidates"][0]["content"])
    turn.setdefault("role", "model")
    answers = []
    for cid, text in results.items():
        name = cid.split("#", 1)[0]
        answers.append({"functionResponse": {"name": name, "response": {"content": text}}})
    return {**body, "contents": [*body.get("contents", []), turn, {"role": "user", "parts": answers}]}


def forbid_tool_calls(body: dict[str, Any]) -> dict[str, Any]:
    """``body`` whose next turn may call no tool."""
    return {**body, "toolConfig": {"functionCallingConfig": {"mode": "NONE"}}}


def usage(response: Any) -> Usage:
    u = response.get("usageMetadata") or response.get("usage_metadata") if isinstance(response, dict) else None
    u = u if isinstance(u, dict) else {}
    return Usage(as_int(u.get("promptTokenCount", u.get("prompt_token_count"))),
                 as_int(u.get("candidatesTokenCount", u.get("candidates_token_count"))),
                 as_int(u.get("cachedContentTokenCount", u.get("cached_content_token_count"))))


def error_event(message: str, kind: str = "api_error", status: int | None = None) -> bytes:
    return f"data: {error_payload(message, kind, status)}\n\n".encode()


def is_error(data: dict[str, Any]) -> bool:
    return "error" in data


def started_calls(data: dict[str, Any]) -> list[str | None]:
    """Gemini streams whole function calls: each one in a chunk starts (and ends) there."""
    out: list[str | None] = []
    for part in _candidate_parts(data) or []:
        key = _key(part, "functionCall", "function_call") if isinstance(part, dict) else None
        if key:
            out.append((part[key] or {}).get("name"))
    return out


class StreamTurn:
    """Rebuilds the response from ``streamGenerateContent?alt=sse`` chunks (each a partial
    response: text parts are appended, function calls arrive whole)."""

    def __init__(self) -> None:
        self._base: dict[str, Any] = {}
        self._parts: list[dict[str, Any]] = []
        self._role = "model"
        self._finish: Any = None

    def feed(self, chunk: dict[str, Any]) -> None:
        for key, value in chunk.items():
            if key != "candidates":
                self._base[key] = value
        cands = chunk.get("candidates")
        if not isinstance(cands, list) or not cands or not isinstance(cands[0], dict):
            return
        cand = cands[0]
        self._finish = cand.get("finishReason", self._finish)
        content = cand.get("content") or {}
        self._role = content.get("role", self._role)
        for part in content.get("parts") or []:
            if not isinstance(part, dict):
                continue
            last = self._parts[-1] if self._parts else None
            if isinstance(part.get("text"), str) and last is not None and set(last) == {"text"} and set(part) == {"text"}:
                last["text"] += part["text"]
            else:
                self._parts.append(copy.deepcopy(part))

    def response(self) -> dict[str, Any]:
        cand: dict[str, Any] = {"content": {"role": self._role, "parts": copy.deepcopy(self._parts)}}
        if self._finish is not None:
            cand["finishReason"] = self._finish
        return {**self._base, "candidates": [cand]}


class LiveRelay(PlainRelay):
    """Gemini chunks are self-contained: text chunks go live; a chunk with a function call
    or the finish reason is held. A later round's chunks continue the stream as they are."""

    def hold(self, data: dict[str, Any]) -> bool:
        cands = data.get("candidates")
        if not isinstance(cands, list) or not cands or not isinstance(cands[0], dict):
            return True
        if cands[0].get("finishReason"):
            return True
        return bool(started_calls(data))
