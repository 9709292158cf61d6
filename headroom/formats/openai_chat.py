"""OpenAI Chat Completions ⇄ neutral conversation."""

from __future__ import annotations

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
from .model import Block, BlockKind, Conversation, ImageData, Message, Role

FORMAT = "openai_chat"

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
