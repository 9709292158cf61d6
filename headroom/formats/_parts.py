"""Typed content-part lists, shared by all three wire formats.

Chat (``text``/``image_url``), Responses (``input_text``/``output_text``/``input_image``)
and Anthropic (``text``/``image``) all carry lists of ``{"type": ..., ...}`` parts. The
adapters differ only in the type names and the image shape, given here as a spec.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from .model import Block, BlockKind, ImageData

ImageReader = Callable[[dict], ImageData | None]
ImageWriter = Callable[[dict, ImageData], dict]


@dataclass(frozen=True)
class PartSpec:
    text_types: frozenset[str]
    image_types: frozenset[str]
    read_image: ImageReader
    write_image: ImageWriter
    default_text_type: str


def parse_parts(parts: list, spec: PartSpec) -> list[Block]:
    blocks: list[Block] = []
    for part in parts:
        ptype = part.get("type") if isinstance(part, dict) else None
        if ptype in spec.text_types and isinstance(part.get("text"), str):
            blocks.append(Block(BlockKind.TEXT, text=part["text"], raw=part))
        elif ptype in spec.image_types:
            img = spec.read_image(part)
            blocks.append(Block(BlockKind.IMAGE, image=img, raw=part))
        else:
            blocks.append(Block(BlockKind.OTHER, raw=part))
    return blocks


def render_part(block: Block, spec: PartSpec) -> Any:
    if not block.changed and block.raw is not None:
        return block.raw
    if block.kind is BlockKind.IMAGE and block.image is not None:
        return spec.write_image(dict(block.raw or {}), block.image)
    if block.text is not None:
        base = dict(block.raw) if isinstance(block.raw, dict) else {"type": spec.default_text_type}
        base["text"] = block.text
        return base
    return block.raw


def joined_text(parts: list, spec: PartSpec) -> str | None:
    """The text of a tool output given as a part list; None if it has no text part."""
    texts = [
        p["text"]
        for p in parts
        if isinstance(p, dict) and p.get("type") in spec.text_types and isinstance(p.get("text"), str)
    ]
    return "\n".join(texts) if texts else None


def render_joined(parts: list, new_text: str, spec: PartSpec) -> list:
    """Replace the text parts of a part list by one part holding ``new_text``.

    The first text part keeps its other fields (``cache_control`` and the like); non-text
    parts (images) stay where they were.
    """
    out: list = []
    placed = False
    for p in parts:
        is_text = isinstance(p, dict) and p.get("type") in spec.text_types and isinstance(p.get("text"), str)
        if not is_text:
            out.append(p)
        elif not placed:
            out.append({**p, "text": new_text})
            placed = True
    if not placed:
        out.append({"type": spec.default_text_type, "text": new_text})
    return out


def _is_image(part: Any, spec: PartSpec) -> bool:
    return isinstance(part, dict) and part.get("type") in spec.image_types


def tool_output_images(parts: list, spec: PartSpec) -> list[Block]:
    """The image parts of a tool output's part list, in order, as IMAGE blocks."""
    return [Block(BlockKind.IMAGE, image=spec.read_image(p), raw=p) for p in parts if _is_image(p, spec)]


def render_tool_output(parts: list, block: Block, spec: PartSpec) -> list:
    """A tool output's part list after the transforms: its text parts joined into one
    when the text changed, its image parts rendered from ``block.parts`` in order (an
    image transcribed to text becomes a text part there), everything else as it was."""
    out = render_joined(parts, block.text, spec) if block.text != block.original_text else list(parts)
    images = iter(block.parts)
    rendered = []
    for p in out:
        child = next(images, None) if _is_image(p, spec) else None
        rendered.append(render_part(child, spec) if child is not None else p)
    return rendered


def split_data_url(url: str) -> tuple[str | None, str | None]:
    """``data:image/png;base64,XXXX`` -> (media_type, base64 payload)."""
    if not url.startswith("data:") or "," not in url:
        return None, None
    header, payload = url.split(",", 1)
    media = header[5:].split(";", 1)[0] or None
    if ";base64" not in header:
        return media, None
    return media, payload


def make_data_url(media_type: str | None, data: str) -> str:
    return f"data:{media_type or 'image/png'};base64,{data}"
