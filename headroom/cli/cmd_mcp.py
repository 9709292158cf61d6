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
    from ..mcp_server import serve_stdio

    # stdout carries the protocol; anything else goes to stderr.
    logging.basicConfig(stream=sys.stderr, level=args.log_level.upper())
    check_redis_flag(args)
    # An unreachable Redis raises ConnectionError: the CLI prints it as one line.
    store = CompressionStore.from_config(store_config(args))
    try:
        serve_stdio(store)
    finally:
        store.close()
    return 0
