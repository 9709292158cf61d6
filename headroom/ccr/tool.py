"""The ``headroom_retrieve`` tool: its definition per wire format, and when to add it.

A compressed tool output ends with a marker carrying a hash. The model can only follow
that marker if the request defines a tool to call, so whoever sends the request (the
proxy, HeadroomClient) appends this definition when markers are present, unless the
client already defines the tool itself (for example through the MCP server, where it is
named ``<server>__headroom_retrieve``).
"""

from __future__ import annotations

from typing import Any

from ..formats import adapter, is_retrieve_tool, parse
from ..formats.model import RETRIEVE_TOOL_NAME
from .markers import has_marker

TOOL_DESCRIPTION = (
    "Retrieve the original content that headroom compressed. Some tool outputs in this "
    "conversation were shortened and end with a marker like "
    "'[N items compressed to M. ... Retrieve more: hash=<hash>. Expires in Xm.]'. Call this "
    "tool with that hash to get the full original back, or add a query to get only the "
    "items of the original that match it."
)

PARAMETERS: dict[str, Any] = {
    "type": "object",
    "properties": {
        "hash": {
            "type": "string",
            "description": "The 24-character hex hash from the marker (the value after 'hash=').",
        },
        "query": {
            "type": "string",
            "description": (
                "Optional search terms. When given, only the items of the original that match "
                "them are returned instead of the whole original."
            ),
        },
    },
    "required": ["hash"],
}


def retrieve_tool_definition(fmt: str) -> dict[str, Any]:
    """The tool definition in the shape the provider behind ``fmt`` expects."""
    params = {**PARAMETERS, "properties": dict(PARAMETERS["properties"]), "required": list(PARAMETERS["required"])}
    return adapter(fmt).tool_definition(RETRIEVE_TOOL_NAME, TOOL_DESCRIPTION, params)


def _tool_name(tool: Any) -> str | None:
    if not isinstance(tool, dict):
        return None
    fn = tool.get("function")
    if isinstance(fn, dict) and isinstance(fn.get("name"), str):
        return fn["name"]  # chat completions shape
    name = tool.get("name")
    return name if isinstance(name, str) else None


def defines_retrieve_tool(body: dict[str, Any]) -> bool:
    """True when the request already declares ``headroom_retrieve`` (or an MCP-namespaced form)."""
    tools = body.get("tools")
    return isinstance(tools, list) and any(is_retrieve_tool(_tool_name(t)) for t in tools)


def carries_markers(body: dict[str, Any], fmt: str) -> bool:
    """True when any text the model will read (system, messages, tool outputs) holds a marker."""
    try:
        conv = parse(body, fmt)
    except ValueError:
        return False
    return any(has_marker(b.text) for _, _, b in conv.blocks())


def inject_retrieve_tool(body: dict[str, Any], fmt: str, markers: bool | None = None) -> dict[str, Any]:
    """A new body with ``headroom_retrieve`` appended to ``tools`` when it is needed.

    Needed when the request carries a marker, and always when it defines tools of its own
    (so the tool list stays the same across an agent's session). Returns ``body`` itself
    (unchanged) when neither holds or it already defines the tool. ``markers`` is whether it carries markers when the caller already
    knows (the pipeline does: :attr:`PipelineResult.carries_markers`); else the body is
    parsed to find out. The caller's dict and its ``tools`` list are never mutated.
    """
    if defines_retrieve_tool(body):
        return body
    tools = body.get("tools")
    existing = list(tools) if isinstance(tools, list) else []
    # An agent that defines tools of its own gets the retrieve tool from its first request
    # on: the tool list is part of every provider's cached prefix, so adding the tool only
    # when the first marker appears would invalidate the whole cached conversation then.
    if not existing and not (carries_markers(body, fmt) if markers is None else markers):
        return body
    return {**body, "tools": [*existing, retrieve_tool_definition(fmt)]}


__all__ = [
    "PARAMETERS",
    "TOOL_DESCRIPTION",
    "carries_markers",
    "defines_retrieve_tool",
    "inject_retrieve_tool",
    "retrieve_tool_definition",
]
