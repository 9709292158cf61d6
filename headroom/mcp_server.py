"""An MCP server exposing ``headroom_retrieve`` over stdio.

Agents that talk MCP (Claude Code, Cursor, …) add this server and can then follow the
retrieval markers in compressed tool outputs themselves, against the same CCR store the
proxy writes to (its SQLite file, or a shared Redis). The proxy sees the client already
defines the tool (as ``<server>__headroom_retrieve``) and does not inject its own.

The ``mcp`` package is imported lazily so ``import headroom`` never needs it.
"""

from __future__ import annotations

import logging
import os
import re
from dataclasses import dataclass, field
from typing import Annotated, Any

from pydantic import Field

from .ccr.scope import credential_tags, owned_by, owner
from .ccr.store import CompressionStore
from .ccr.tool import TOOL_DESCRIPTION
from .formats import ADAPTERS
from .formats.model import RETRIEVE_TOOL_NAME

SERVER_NAME = "headroom"
_HASH = re.compile(r"^[0-9a-f]{24}$")


log = logging.getLogger("headroom.mcp")


def credential_env() -> tuple[str, ...]:
    """Provider keys in the server's environment are the tenant it reads as (an agent
    that starts it usually has its own key there): the proxy tagged that key's entries.
    Which variables hold a provider's key is its adapter's ``CREDENTIAL_ENV``."""
    return tuple(dict.fromkeys(k for a in ADAPTERS.values() for k in getattr(a, "CREDENTIAL_ENV", ())))


class RetrieveError(Exception):
    """A retrieval the caller can fix (bad or unknown hash); shown to the model as is."""


@dataclass(frozen=True)
class TenantScope:
    """Whose originals this server reads: entries stored with one of ``tenants`` (tags
    of the credentials it was given) and untagged ones; every entry when ``all_tenants``
    (the admin override, logged on each read of another tenant's entry)."""

    tenants: frozenset[str] = field(default_factory=frozenset)
    all_tenants: bool = False

    @classmethod
    def from_credentials(cls, credentials: list[str], *, all_tenants: bool = False,
                         environ: dict[str, str] | None = None) -> TenantScope:
        env = os.environ if environ is None else environ
        keys = [c for c in credentials if c.strip()] + [env[k] for k in credential_env() if env.get(k, "").strip()]
        return cls(frozenset(t for k in keys for t in credential_tags(k)), all_tenants)

    def may_read(self, store: CompressionStore, hash: str) -> bool:
        if owned_by(owner(store, hash), self.tenants):
            return True
        if self.all_tenants:
            log.warning("admin override (--all-tenants): read hash=%s of another tenant", hash)
            return True
        return False


def retrieve_text(store: CompressionStore, hash: str, query: str | None = None,
                  scope: TenantScope | None = None) -> str:
    """The text ``headroom_retrieve`` returns: the exact original, or its matching items.

    ``scope`` None reads every entry (library use); the CLI always passes one."""
    h = hash.strip().lower()
    if not _HASH.match(h):
        raise RetrieveError(
            f"invalid hash {hash!r}: expected the 24 hex digits after 'hash=' "
            "in a compression marker"
        )
    readable = scope is None or scope.may_read(store, h)
    found = store.retrieve(h, query.strip() if query and query.strip() else None) if readable else None
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


def build_server(store: CompressionStore, scope: TenantScope | None = None) -> Any:
    """An MCP server with one tool, ``headroom_retrieve``, reading ``store`` as ``scope``."""
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
            return retrieve_text(store, hash, query, scope)
        except RetrieveError as exc:
            raise tool_error(str(exc)) from None

    server.add_tool(
        headroom_retrieve,
        name=RETRIEVE_TOOL_NAME,
        description=TOOL_DESCRIPTION,
        structured_output=False,
    )
    return server


def serve_stdio(store: CompressionStore, scope: TenantScope | None = None) -> None:
    """Serve ``headroom_retrieve`` on stdin/stdout until the client disconnects."""
    build_server(store, scope).run("stdio")
