"""What must never be rewritten. One function, used by every transform and every path.

Protected: ``headroom_retrieve`` outputs (also MCP-namespaced), user and assistant text
(except earlier user blocks that are a tool's output: observations.py),
thinking blocks, excluded tools (fnmatch globs), anything inside the frozen prefix, and
tool results in the last N messages when configured.
"""

from __future__ import annotations

from fnmatch import fnmatchcase

from ..config import HeadroomConfig
from ..formats.model import Block, BlockKind, Conversation, is_retrieve_tool
from .observations import is_observation


def is_excluded_tool(name: str | None, patterns: tuple[str, ...]) -> bool:
    return bool(name) and any(fnmatchcase(name, p) for p in patterns)


def tool_output_reason(block: Block, config: HeadroomConfig) -> str | None:
    """Why nothing in this tool output (its text, or images inside it) may be rewritten."""
    if block.is_retrieve_output or is_retrieve_tool(block.tool_name):
        return "headroom_retrieve output"
    if is_excluded_tool(block.tool_name, config.router.exclude_tools):
        return f"excluded tool {block.tool_name}"
    return None


def protection_reason(conv: Conversation, message_index: int, block: Block, config: HeadroomConfig) -> str | None:
    """Why ``block`` must stay as it is, or None when a transform may rewrite it.

    ``message_index`` is -1 for system blocks held outside ``messages``.
    """
    if block.kind is BlockKind.THINKING:
        return "thinking block (provider-signed)"
    if block.text is None and block.kind is not BlockKind.IMAGE:
        return "content is not a string"
    if block.kind is BlockKind.TOOL_RESULT and (reason := tool_output_reason(block, config)):
        return reason
    if block.kind is BlockKind.TEXT and message_index >= 0:
        role = conv.messages[message_index].role.value
        # A user block found to be a tool's output (observations.py) is routed like one.
        if role == "assistant" or (role == "user" and not is_observation(block)):
            return f"{role} text"
    if 0 <= message_index < config.frozen_prefix_messages:
        return "inside frozen prefix"
    recent = config.router.protect_recent_messages
    if recent and message_index >= 0 and message_index >= len(conv.messages) - recent:
        return f"within the last {recent} messages"
    return None
