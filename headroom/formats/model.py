"""The neutral conversation model every transform works on.

Adapters (one per wire format) parse a request body into a :class:`Conversation` and
render it back. A block remembers the raw JSON fragment it came from; rendering only
rewrites blocks whose content changed, so everything else (unknown fields,
``cache_control``, signed thinking blocks) goes back exactly as it came.
"""

from __future__ import annotations

import enum
import hashlib
from dataclasses import dataclass, field
from typing import Any

RETRIEVE_TOOL_NAME = "headroom_retrieve"


class BlockKind(str, enum.Enum):
    TEXT = "text"
    TOOL_CALL = "tool_call"
    TOOL_RESULT = "tool_result"
    IMAGE = "image"
    THINKING = "thinking"
    OTHER = "other"


class Role(str, enum.Enum):
    SYSTEM = "system"
    USER = "user"
    ASSISTANT = "assistant"
    TOOL = "tool"  # OpenAI chat "tool" messages / Responses function_call_output items
    OTHER = "other"  # items the model does not understand (carried through)


@dataclass
class ImageData:
    """An image as the provider sent it: base64 payload or URL, plus hints."""

    media_type: str | None = None
    data: str | None = None  # base64 (no data: prefix)
    url: str | None = None  # http(s) URL when not inline
    detail: str | None = None  # OpenAI "low" | "high" | "auto"


@dataclass
class Block:
    """One unit of content.

    ``text`` is the compressible payload: the text of a TEXT/THINKING block, the
    string form of a TOOL_RESULT, or the raw ``arguments`` string of a TOOL_CALL.
    ``text is None`` means the content is not a string we may rewrite (null,
    structured, or otherwise unexpected) and transforms must leave it alone.
    """

    kind: BlockKind
    text: str | None = None
    tool_call_id: str | None = None
    tool_name: str | None = None
    # For TOOL_RESULT: the arguments string of the call it answers (set by linking).
    tool_arguments: str | None = None
    # For TOOL_RESULT: what the assistant wrote in the turn that made the call ("let me
    # look at how defaults are parsed"): the agent's own statement of what it looks for.
    tool_intent: str | None = None
    image: ImageData | None = None
    raw: Any = None
    # Set at parse time; used to tell whether the block changed.
    original_text: str | None = None
    original_image: ImageData | None = None
    is_error: bool = False
    # True for blocks a transform inserted (markers, expansions): always rendered.
    added: bool = False
    # Free-form annotations transforms leave for later stages (never rendered).
    meta: dict[str, Any] = field(default_factory=dict)
    # TOOL_RESULT only: the image parts of a tool output given as a part list (Anthropic
    # ``tool_result`` content, Responses ``function_call_output`` output), in order, as
    # IMAGE blocks. The image transform rewrites them; the adapter puts them back in place.
    parts: list[Block] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.original_text = self.text
        if self.image is not None:
            self.original_image = ImageData(**vars(self.image))

    @property
    def changed(self) -> bool:
        if self.added or self.text != self.original_text:
            return True
        if any(p.changed for p in self.parts):
            return True
        if self.image is not None and self.original_image is not None:
            return vars(self.image) != vars(self.original_image)
        return False

    @property
    def is_retrieve_output(self) -> bool:
        return self.kind is BlockKind.TOOL_RESULT and is_retrieve_tool(self.tool_name)


@dataclass
class Message:
    role: Role
    blocks: list[Block]
    raw: Any = None
    # Whether ``content`` was a plain string in the wire format (render keeps the shape).
    content_is_string: bool = False
    # Set by transforms that synthesise or replace a whole message (never rendered).
    meta: dict[str, Any] = field(default_factory=dict)

    @property
    def changed(self) -> bool:
        return self.raw is None or any(b.changed for b in self.blocks)

    def has_text(self) -> bool:
        return any(b.kind is BlockKind.TEXT and b.text for b in self.blocks)

    def tool_call_ids(self) -> list[str]:
        return [b.tool_call_id for b in self.blocks if b.kind is BlockKind.TOOL_CALL and b.tool_call_id]

    def tool_result_ids(self) -> list[str]:
        return [b.tool_call_id for b in self.blocks if b.kind is BlockKind.TOOL_RESULT and b.tool_call_id]

    def text(self) -> str:
        return "\n".join(b.text for b in self.blocks if b.kind is BlockKind.TEXT and b.text)


@dataclass
class Conversation:
    """A request in neutral form.

    ``system`` holds the system prompt blocks (Chat ``system``/``developer`` messages
    stay in ``messages`` because their position matters there; Anthropic ``system`` and
    Responses ``instructions`` live here).
    """

    format: str
    messages: list[Message]
    body: dict[str, Any]
    system: list[Block] = field(default_factory=list)
    system_is_string: bool = False

    @property
    def model(self) -> str | None:
        m = self.body.get("model")
        return m if isinstance(m, str) else None

    def blocks(self):
        """Yield (message_index, block_index, block) for every block, system first (index -1)."""
        for j, b in enumerate(self.system):
            yield -1, j, b
        for i, m in enumerate(self.messages):
            for j, b in enumerate(m.blocks):
                yield i, j, b

    def has_kind(self, kind: BlockKind) -> bool:
        """Whether any block, or any part inside a tool output, is of ``kind``."""
        return any(b.kind is kind or any(p.kind is kind for p in b.parts) for _, _, b in self.blocks())

    def images(self):
        """Yield (message_index, block_index, block, tool_result) for every IMAGE block:
        message-level ones (``tool_result`` None) and those inside tool outputs."""
        for i, j, b in self.blocks():
            if b.kind is BlockKind.IMAGE:
                yield i, j, b, None
            for p in b.parts:
                if p.kind is BlockKind.IMAGE:
                    yield i, j, p, b

    def tool_results(self):
        for i, j, b in self.blocks():
            if b.kind is BlockKind.TOOL_RESULT:
                yield i, j, b

    def latest_user_text(self, turns: int = 1) -> str:
        """Text of the last ``turns`` user messages that carry text (the current question)."""
        found: list[str] = []
        for m in reversed(self.messages):
            if m.role is Role.USER:
                t = m.text()
                if t:
                    found.append(t)
                    if len(found) >= turns:
                        break
        return "\n".join(reversed(found))

    def link_tool_results(self) -> None:
        """Give every tool result the name and arguments of the call it answers."""
        calls: dict[str, Block] = {}
        intents: dict[str, str] = {}
        for i, _, b in self.blocks():
            if b.kind is BlockKind.TOOL_CALL and b.tool_call_id:
                calls[b.tool_call_id] = b
                intent = self.messages[i].text()
                if not intent and i > 0 and self.messages[i - 1].role is Role.ASSISTANT:
                    intent = self.messages[i - 1].text()  # Responses: the text is an item of its own
                if intent:
                    intents[b.tool_call_id] = intent
        for _, _, b in self.blocks():
            if b.kind is BlockKind.TOOL_RESULT and b.tool_call_id in calls:
                call = calls[b.tool_call_id]
                b.tool_name = call.tool_name
                b.tool_arguments = call.text
                b.tool_intent = intents.get(b.tool_call_id)


def is_retrieve_tool(name: str | None) -> bool:
    """True for ``headroom_retrieve`` and MCP-namespaced forms (``server__headroom_retrieve``).

    This is the one check every path uses (seed 000: retrieve outputs compressed into a
    marker meant the model could never get the content back).
    """
    if not name:
        return False
    return name == RETRIEVE_TOOL_NAME or name.endswith("__" + RETRIEVE_TOOL_NAME)


def content_hash(text: str) -> str:
    """The CCR hash: first 24 hex digits of SHA-256 of the exact original.

    ``surrogatepass``: a lone surrogate (valid in JSON, not in UTF-8) must hash, not raise.
    """
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:24]
