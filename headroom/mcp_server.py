"""An MCP server exposing ``headroom_retrieve`` over stdio.

Agents that talk MCP (Claude Code, Cursor, …) add this server and can then follow the
retrieval markers in compressed tool outputs themselves, against the same CCR store the
proxy writes to (its SQLite file, or a shared Redis). The proxy sees the client already
defines the tool (as ``<server>__headroom_retrieve``) and does not inject its own.

The ``mcp`` package is imported lazily so ``import headroom`` never needs it.
"""

from __future__ import annotations

import re
from typing import Annotated, Any

from pydantic import Field

from .ccr.store import CompressionStore
from .ccr.tool import TOOL_DESCRIPTION
from .formats.model import RETRIEVE_TOOL_NAME

SERVER_NAME = "headroom"
_HASH = re.compile(r"^[0-9a-f]{24}$")


class RetrieveError(Exception):
    """A retrieval the caller can fix (bad or unknown hash); shown to the model as is."""


def retrieve_text(store: CompressionStore, hash: str, query: str | None = None) -> str:
    """The text ``headroom_retrieve`` returns: the exact original, or its matching items."""
    h = hash.strip().lower()
    if not _HASH.match(h):
        raise RetrieveError(
            f"invalid hash {hash!r}: expected the 24 hex digits after 'hash=' "
            "in a compression marker"
        )
    found = store.retrieve(h, query.strip() if query and query.strip() else None)
    if found is None:
        raise RetrieveError(
            f"unknown or expired hash={h}: the original is no longer stored (originals live "
            f"{store.ttl_seconds} s after their last use). Continue with the compressed content, "
            "or re-run the tool that produced it."
        )
    return found.content


def _server_classes() -> tuple[type, type[Exception]]:
    """The high-level server class and its tool-error type, on mcp 2.x or 1.x."""
    try:
        from mcp.server.mcpserver import MCPServer
        from mcp.server.mcpserver.exceptions import ToolError
    except ImportError:  # mcp 1.x
        from mcp.server.fastmcp import FastMCP as MCPServer
        from mcp.server.fastmcp.exceptions import ToolError
    return MCPServer, ToolError


def build_server(store: CompressionStore) -> Any:
    """An MCP server with one tool, ``headroom_retrieve``, reading ``store``."""
    server_cls, tool_error = _server_classes()
    server = server_cls(SERVER_NAME, instructions=TOOL_DESCRIPTION)

    def headroom_retrieve(
        hash: Annotated[
            str,
            Field(
                description="The 24-character hex hash from the marker (the value after 'hash=')."
            ),
        ],
        query: Annotated[
            str | None,
            Field(
                description="Optional search terms: return only the items of the "
                "original that match them."
            ),
        ] = None,
    ) -> str:
        try:
            return retrieve_text(store, hash, query)
        except RetrieveError as exc:
            raise tool_error(str(exc)) from None

    server.add_tool(
        headroom_retrieve,
        name=RETRIEVE_TOOL_NAME,
        description=TOOL_DESCRIPTION,
        structured_output=False,
    )
    return server


def serve_stdio(store: CompressionStore) -> None:
    """Serve ``headroom_retrieve`` on stdin/stdout until the client disconnects."""
    build_server(store).run("stdio")
