"""Image compression for Google Gemini ``contents`` (there is no Gemini adapter yet).

Gemini requests carry images as parts ``{"inlineData": {"mimeType": ..., "data": ...}}``
(``inline_data``/``mime_type`` in the snake-case REST and SDK forms), remote ones as
``fileData``. This module lifts those parts into the neutral model, runs the same
:class:`ImageTransform` as every other format (provider ``google``: downscale to a
768-px long side, crop, OCR transcode), and writes the changed parts back in the shape
they came in. Everything else in ``contents`` is returned untouched.

    new_contents, decisions = compress_gemini_contents(body["contents"])
    body = {**body, "contents": new_contents}
"""

from __future__ import annotations

from typing import Any

from ..config import HeadroomConfig
from ..formats.model import Block, BlockKind, Conversation, ImageData, Message, Role
from ..transforms.base import Decision, TransformContext

FORMAT = "gemini"
_ROLES = {"user": Role.USER, "model": Role.ASSISTANT}


def _inline_key(part: dict) -> tuple[str, str, str] | None:
    """(container key, mime key, data key) of an inline image part, in the part's own case."""
    if isinstance(part.get("inlineData"), dict):
        return "inlineData", "mimeType", "data"
    if isinstance(part.get("inline_data"), dict):
        return "inline_data", "mime_type", "data"
    return None


def _parse_part(part: Any) -> Block:
    if not isinstance(part, dict):
        return Block(BlockKind.OTHER, raw=part)
    if isinstance(part.get("text"), str) and len(part) == 1:
        return Block(BlockKind.TEXT, text=part["text"], raw=part)
    keys = _inline_key(part)
    if keys:
        inner = part[keys[0]]
        mime = inner.get(keys[1])
        if isinstance(mime, str) and mime.startswith("image/") and isinstance(inner.get(keys[2]), str):
            return Block(BlockKind.IMAGE, image=ImageData(media_type=mime, data=inner[keys[2]]), raw=part)
    return Block(BlockKind.OTHER, raw=part)


def _render_part(block: Block) -> Any:
    if not block.changed:
        return block.raw
    if block.kind is BlockKind.TEXT and block.text is not None:
        return {"text": block.text}
    if block.kind is BlockKind.IMAGE and block.image is not None and isinstance(block.raw, dict):
        keys = _inline_key(block.raw)
        if keys:
            container, mime_key, data_key = keys
            inner = {**block.raw[container], mime_key: block.image.media_type, data_key: block.image.data}
            return {**block.raw, container: inner}
    return block.raw


def to_conversation(contents: list[Any]) -> Conversation:
    messages = []
    for content in contents:
        if isinstance(content, dict) and isinstance(content.get("parts"), list):
            role = _ROLES.get(content.get("role", "user"), Role.OTHER)
            messages.append(Message(role, [_parse_part(p) for p in content["parts"]], raw=content))
        else:
            messages.append(Message(Role.OTHER, [Block(BlockKind.OTHER, raw=content)], raw=content))
    return Conversation(FORMAT, messages, {"contents": contents})


def from_conversation(conv: Conversation) -> list[Any]:
    out = []
    for m in conv.messages:
        if m.role is Role.OTHER or not m.changed:
            out.append(m.raw)
        else:
            out.append({**m.raw, "parts": [_render_part(b) for b in m.blocks]})
    return out


def compress_gemini_contents(
    contents: list[Any],
    *,
    query: str | None = None,
    config: HeadroomConfig | None = None,
    store: Any = None,
    transform: Any = None,
    memo: Any = None,
) -> tuple[list[Any], list[Decision]]:
    """Compress the images in Gemini ``contents``; returns (new contents, decisions).

    ``store`` defaults to the process-wide CCR store used by ``headroom.compress()``.
    """
    from ..api import default_store
    from ..tokens import counter_for
    from .transform import ImageTransform

    config = config or HeadroomConfig()
    conv = to_conversation(contents)
    ctx = TransformContext(
        config=config,
        counter=counter_for("gemini"),
        store=store if store is not None else (default_store() if config.ccr.enabled else None),
        model="gemini",
        query=query if query is not None else conv.latest_user_text(turns=2),
        memo=memo,
    )
    transform = transform or ImageTransform(config)
    conv = transform.apply(conv, ctx)
    return from_conversation(conv), ctx.decisions
