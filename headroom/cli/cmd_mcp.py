"""`headroom mcp serve`: the headroom_retrieve tool as an MCP server over stdio."""

from __future__ import annotations

import argparse
import logging
import sys

from .store_flags import add_log_level, add_store_flags, check_redis_flag


def register(subparsers) -> None:
    mcp = subparsers.add_parser("mcp", help="MCP server exposing headroom_retrieve.")
    mcp_sub = mcp.add_subparsers(dest="mcp_command", metavar="SUBCOMMAND")
    serve = mcp_sub.add_parser(
        "serve",
        help="Serve headroom_retrieve over stdio against the proxy's CCR store.",
        description="Serve the headroom_retrieve tool over MCP stdio. Point it at the same "
        "store the proxy uses: its SQLite file (--ccr-path) or its Redis (--ccr-backend redis).",
    )
    serve.add_argument(
        "--api-key",
        metavar="KEY",
        action="append",
        default=[],
        help="read the originals the proxy stored for requests carrying this provider key "
        "(repeatable; ANTHROPIC_API_KEY, OPENAI_API_KEY, GEMINI_API_KEY, GOOGLE_API_KEY from the "
        "environment count too); untagged originals are always readable",
    )
    serve.add_argument(
        "--all-tenants",
        action="store_true",
        help="admin override: read every tenant's originals (each such read is logged)",
    )
    add_store_flags(serve, backends=("sqlite", "redis"), hidden_path_aliases=("--ccr-db",))
    add_log_level(serve, "warning")
    serve.set_defaults(func=_serve)
    mcp.set_defaults(func=lambda args: _usage(mcp))


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help(sys.stderr)
    return 2


def store_config(args: argparse.Namespace):
    """The CCRConfig the flags describe (defaults, including the TTL, as the proxy's)."""
    from ..config import CCRConfig

    fields: dict = {"backend": args.ccr_backend, "sqlite_path": args.ccr_path}
    if args.redis_url:
        fields["redis_url"] = args.redis_url
    return CCRConfig(**fields)


def _serve(args: argparse.Namespace) -> int:
    from ..ccr.store import CompressionStore
    from ..config import HeadroomConfig
    from ..mcp_server import TenantScope, serve_stdio
    from ..toin import toin_from_config

    # stdout carries the protocol; anything else goes to stderr.
    logging.basicConfig(stream=sys.stderr, level=args.log_level.upper())
    check_redis_flag(args)
    # An unreachable Redis raises ConnectionError: the CLI prints it as one line.
    config = HeadroomConfig(ccr=store_config(args))
    store = CompressionStore.from_config(config.ccr)
    # TOIN (next to the store, as the proxy's) counts these retrievals too: its patterns
    # and the proxy's per-tool retrieval feedback see what MCP clients asked back for.
    toin = toin_from_config(config)
    if toin is not None:
        store.retrieval_listeners.append(toin.on_retrieval)
    scope = TenantScope.from_credentials(args.api_key, all_tenants=args.all_tenants)
    if scope.all_tenants:
        logging.getLogger("headroom.mcp").warning(
            "headroom mcp serve: --all-tenants: every tenant's originals are readable")
    try:
        serve_stdio(store, scope)
    finally:
        if toin is not None:
            toin.close()
        store.close()
    return 0
