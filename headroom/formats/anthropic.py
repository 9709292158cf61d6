"""Anthropic Messages ⇄ neutral conversation.

``tool_use.input`` is an object on the wire; the neutral model holds it as a JSON string
(like OpenAI ``arguments``) so the tool-argument shrinker works the same everywhere.
Thinking and redacted-thinking blocks are signed by the provider: they are parsed for
token counting but always rendered from ``raw``.
"""

from __future__ import annotations

import json
from typing import Any

from ._parts import (
    PartSpec,
    joined_text,
    parse_parts,
    render_part,
    render_tool_output,
    tool_output_images,
)
from .model import Block, BlockKind, Conversation, ImageData, Message, Role

FORMAT = "anthropic"


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
