"""OpenAI Responses API (``input`` items) ⇄ neutral conversation.

Each input item becomes one message: ``message`` items keep their role,
``function_call`` / ``custom_tool_call`` become assistant tool calls, their ``*_output``
items become tool results, and anything else (reasoning, item references, MCP items) is
carried as an opaque message.
"""

from __future__ import annotations

import copy
import functools
from typing import Any

from . import openai_chat
from ._parts import (
    PartSpec,
    joined_text,
    make_data_url,
    parse_parts,
    render_part,
    render_tool_output,
    split_data_url,
    tool_output_images,
)
from .adapter import PrefixView, ProxyRoute
from .model import Block, BlockKind, Conversation, ImageData, Message, Role
from .wire import (
    ToolCall,
    Usage,
    as_int,
    collect_calls,
    is_typed_error,
    named_error_event,
    started_call,
    usage_dict,
)

FORMAT = "openai_responses"
PROVIDER = "openai"
MESSAGES_KEY = "input"
# The provider's rules (models, tokenizer, window, images) are OpenAI's, as in Chat.
MODEL_PREFIXES = openai_chat.MODEL_PREFIXES
TOKEN_FACTOR = openai_chat.TOKEN_FACTOR
DEFAULT_CONTEXT = openai_chat.DEFAULT_CONTEXT
IMAGES = openai_chat.IMAGES
CACHE_BREAKPOINTS = False  # prompt caching by cache_control breakpoints (else automatic, by prefix)
PROMPT_CACHE_KEY: str | None = "prompt_cache_key"  # body field routing a session to one cache shard
TEXT_PART_TYPE: str | None = "input_text"
# A turn's calls are consecutive function_call items, each an item of its own: they are
# kept or dropped together with their outputs.
CALLS_SPAN_ITEMS = True
ALTERNATING_ROLES = False
PROXY_ROUTES = (ProxyRoute("/v1/responses"),)
UPSTREAM_URL = "https://api.openai.com"
CREDENTIAL_ENV = ("OPENAI_API_KEY",)  # environment variables holding a key (headroom mcp serve)


def owns(body: dict[str, Any]) -> bool:
    return "input" in body and "messages" not in body


def prefix_view(body: dict[str, Any]) -> PrefixView:
    inp = body.get("input")
    items = [inp] if isinstance(inp, str) else list(inp or [])
    return PrefixView(body.get("model"), body.get("tools"), body.get("instructions"), items)

_ROLES = {"system": Role.SYSTEM, "developer": Role.SYSTEM, "user": Role.USER, "assistant": Role.ASSISTANT}
_CALLS = {"function_call": "arguments", "custom_tool_call": "input"}
_OUTPUTS = {"function_call_output", "custom_tool_call_output"}


def _read_image(part: dict) -> ImageData | None:
    url = part.get("image_url")
    if not isinstance(url, str):
        return None
    media, data = split_data_url(url)
    return ImageData(media_type=media, data=data, url=None if data else url, detail=part.get("detail"))


def _write_image(part: dict, img: ImageData) -> dict:
    url = make_data_url(img.media_type, img.data) if img.data else img.url
    out = {**part, "type": "input_image", "image_url": url}
    if img.detail is not None:
        out["detail"] = img.detail
    return out


SPEC = PartSpec(
    text_types=frozenset({"input_text", "output_text", "text"}),
    image_types=frozenset({"input_image"}),
    read_image=_read_image,
    write_image=_write_image,
    default_text_type="input_text",
)


def _parse_item(raw: Any) -> Message:
    if not isinstance(raw, dict):
        return Message(Role.OTHER, [Block(BlockKind.OTHER, raw=raw)], raw=raw)
    itype = raw.get("type")
    if itype in _CALLS:
        args = raw.get(_CALLS[itype])
        # custom tool inputs are free text, not JSON: never shrink them as JSON.
        text = args if isinstance(args, str) and itype == "function_call" else None
        call = Block(BlockKind.TOOL_CALL, text=text, tool_call_id=raw.get("call_id"), tool_name=raw.get("name"), raw=raw)
        return Message(Role.ASSISTANT, [call], raw=raw)
    if itype in _OUTPUTS:
        out = raw.get("output")
        text = out if isinstance(out, str) else joined_text(out, SPEC) if isinstance(out, list) else None
        res = Block(BlockKind.TOOL_RESULT, text=text, tool_call_id=raw.get("call_id"), raw=raw,
                    parts=tool_output_images(out, SPEC) if isinstance(out, list) else [])
        return Message(Role.TOOL, [res], raw=raw)
    if itype in (None, "message") and raw.get("role") in _ROLES:
        content = raw.get("content")
        if isinstance(content, str):
            return Message(_ROLES[raw["role"]], [Block(BlockKind.TEXT, text=content)], raw=raw, content_is_string=True)
        if isinstance(content, list):
            return Message(_ROLES[raw["role"]], parse_parts(content, SPEC), raw=raw)
    return Message(Role.OTHER, [Block(BlockKind.OTHER, raw=raw)], raw=raw)


def parse(body: dict[str, Any]) -> Conversation:
    inp = body.get("input")
    if isinstance(inp, str):
        messages = [Message(Role.USER, [Block(BlockKind.TEXT, text=inp)], raw=inp, content_is_string=True)]
    elif isinstance(inp, list):
        messages = [_parse_item(item) for item in inp]
    else:
        raise ValueError("Responses body needs 'input' as a string or a list of items")
    instr = body.get("instructions")
    system = [Block(BlockKind.TEXT, text=instr)] if isinstance(instr, str) else []
    conv = Conversation(FORMAT, messages, body, system=system, system_is_string=True)
    conv.link_tool_results()
    return conv


def render_item(m: Message) -> Any:
    if not m.changed:
        return m.raw
    if isinstance(m.raw, str):  # string input
        return m.blocks[0].text
    out: dict[str, Any] = dict(m.raw) if isinstance(m.raw, dict) else {}
    b0 = m.blocks[0] if m.blocks else None
    if b0 is not None and b0.kind is BlockKind.TOOL_CALL:
        out.setdefault("type", "function_call")
        out.setdefault("call_id", b0.tool_call_id)
        out.setdefault("name", b0.tool_name)
        out[_CALLS.get(out["type"], "arguments")] = b0.text
    elif b0 is not None and b0.kind is BlockKind.TOOL_RESULT:
        out.setdefault("type", "function_call_output")
        out.setdefault("call_id", b0.tool_call_id)
        old = out.get("output")
        out["output"] = render_tool_output(old, b0, SPEC) if isinstance(old, list) else b0.text
    else:
        out.setdefault("role", m.role.value)
        if m.content_is_string or (m.raw is None and len(m.blocks) == 1 and m.blocks[0].kind is BlockKind.TEXT):
            out["content"] = m.blocks[0].text
        else:
            out["content"] = [render_part(b, SPEC) for b in m.blocks]
    return out


def render(conv: Conversation) -> dict[str, Any]:
    body = dict(conv.body)
    if isinstance(body.get("input"), str) and len(conv.messages) == 1 and isinstance(conv.messages[0].raw, str):
        body["input"] = render_item(conv.messages[0])
    else:
        body["input"] = [render_item(m) for m in conv.messages]
    if conv.system and conv.system[0].changed:
        body["instructions"] = conv.system[0].text
    return body


def tool_result_item(call_id: str, text: str) -> dict[str, Any]:
    return {"type": "function_call_output", "call_id": call_id, "output": text}


# --- the tool loop: definitions, calls in a response, continuation, usage, streams -------

# Output item types that are not tool calls.
_NON_CALL_ITEMS = {"message", "reasoning"}


def tool_definition(name: str, description: str, parameters: dict[str, Any]) -> dict[str, Any]:
    # Responses tools are flat: name/description/parameters sit next to "type".
    return {"type": "function", "name": name, "description": description, "parameters": parameters}


def tool_calls(response: dict[str, Any]) -> list[ToolCall] | None:
    """The function calls of the turn; None when it also holds another kind of call
    (custom, built-in or MCP tools are the client's business)."""
    return collect_calls(response.get("output"), "function_call", _NON_CALL_ITEMS, "call_id", "arguments")


def continue_body(body: dict[str, Any], response: dict[str, Any], results: dict[str, str]) -> dict[str, Any]:
    outputs = [tool_result_item(cid, text) for cid, text in results.items()]
    if body.get("previous_response_id") and response.get("id"):
        # A chained conversation lives on the provider: chain onto this turn and send
        # only the tool results (re-sending its items would duplicate them).
        return {**body, "previous_response_id": response["id"], "input": outputs}
    inp = body.get("input")
    items = [{"role": "user", "content": inp}] if isinstance(inp, str) else list(inp or [])
    items.extend(copy.deepcopy(response.get("output") or []))
    items.extend(outputs)
    return {**body, "input": items}


def forbid_tool_calls(body: dict[str, Any]) -> dict[str, Any]:
    """``body`` whose next turn may call no tool."""
    return {**body, "tool_choice": "none"}


def usage(response: Any) -> Usage:
    u = usage_dict(response) or {}
    details = u.get("input_tokens_details") if isinstance(u.get("input_tokens_details"), dict) else {}
    return Usage(as_int(u.get("input_tokens")), as_int(u.get("output_tokens")), as_int(details.get("cached_tokens")))


error_event = named_error_event
is_error = is_typed_error
# The call an output_item.added begins (None: a call that is not a function call).
started_calls = functools.partial(started_call, "response.output_item.added", "item", "function_call",
                                  _NON_CALL_ITEMS)


class StreamTurn:
    """Rebuilds the response object from Responses API stream events."""

    def __init__(self) -> None:
        self._base: dict[str, Any] = {}
        self._items: dict[int, dict[str, Any]] = {}
        self._final: dict[str, Any] | None = None

    def feed(self, ev: dict[str, Any]) -> None:
        etype = ev.get("type", "")
        if etype in ("response.created", "response.in_progress") and isinstance(ev.get("response"), dict):
            self._base = dict(ev["response"])
        elif etype in ("response.completed", "response.incomplete", "response.failed") \
                and isinstance(ev.get("response"), dict):
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

    def response(self) -> dict[str, Any]:
        if self._final is not None:
            return self._final
        return {**self._base, "output": [self._items[i] for i in sorted(self._items)]}


_END_EVENTS = ("response.completed", "response.incomplete", "response.failed")


class LiveRelay:
    """What of a streamed Responses turn reaches the client before it is known whether the
    turn is a retrieve call: message and reasoning items go live; a function call item and
    the end of the response are held. A later round continues the same response: its
    created/in_progress events are dropped, output indices follow on, sequence numbers
    keep counting, and its final response lists the items already streamed first."""

    def __init__(self) -> None:
        self.items: list[dict[str, Any]] = []  # output items the client has seen done
        self.earlier: list[dict[str, Any]] = []  # those of earlier rounds (not in this round's final)
        self.started = 0
        self.offset = 0
        self.rounds = 0
        self.seq = -1

    def hold(self, data: dict[str, Any]) -> bool:
        etype = data.get("type")
        if etype == "response.output_item.added":
            return (data.get("item") or {}).get("type") not in _NON_CALL_ITEMS
        return etype in _END_EVENTS

    def sent(self, data: dict[str, Any]) -> None:
        etype = data.get("type")
        if etype == "response.output_item.added":
            self.started += 1
        elif etype == "response.output_item.done" and isinstance(data.get("item"), dict):
            self.items.append(data["item"])
        if isinstance(data.get("sequence_number"), int):
            self.seq = data["sequence_number"]

    def next_round(self) -> None:
        self.offset, self.rounds = self.started, self.rounds + 1
        self.earlier = list(self.items)

    def rewrite(self, data: dict[str, Any]) -> dict[str, Any] | None:
        if not self.rounds:
            return data
        etype = data.get("type")
        if etype in ("response.created", "response.in_progress"):
            return None
        out = dict(data)
        if isinstance(out.get("output_index"), int):
            out["output_index"] += self.offset
        if isinstance(out.get("sequence_number"), int):
            out["sequence_number"] = self.seq + 1
        if etype in _END_EVENTS and isinstance(out.get("response"), dict):
            final = out["response"]
            out["response"] = {**final, "output": [*self.earlier, *(final.get("output") or [])]}
        return out
