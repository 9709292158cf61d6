"""Whose requests a reading command shows: the ``--api-key`` / ``--all-tenants`` flags of
``headroom inspect`` and ``headroom savings``, read as ``headroom mcp serve`` reads them
(headroom.mcp_server.TenantScope: provider keys in the environment count too)."""

from __future__ import annotations

import argparse


def add_scope_flags(p: argparse.ArgumentParser, what: str) -> None:
    p.add_argument("--api-key", metavar="KEY", action="append", default=[],
                   help=f"show {what} of requests sent with this provider key (repeatable; ANTHROPIC_API_KEY, "
                        "OPENAI_API_KEY, GEMINI_API_KEY, GOOGLE_API_KEY from the environment count too); "
                        "requests without a key are always shown")
    p.add_argument("--all-tenants", action="store_true", help=f"admin view: {what} of every tenant")


def tenants_of(args: argparse.Namespace) -> frozenset[str] | None:
    """The tenant tags the caller holds; None for --all-tenants (every row)."""
    from ..mcp_server import TenantScope

    scope = TenantScope.from_credentials(args.api_key, all_tenants=args.all_tenants)
    return None if scope.all_tenants else scope.tenants
