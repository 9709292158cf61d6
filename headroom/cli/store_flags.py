"""The CCR-store and logging flags, spelled one way for every command that has them.

``headroom proxy`` set the spelling (``--ccr-backend``, ``--ccr-path``, ``--redis-url``,
lowercase ``--log-level``); ``mcp serve``, ``toin`` and ``doctor`` take the same words so
one command line can be copied to another. Older spellings stay as hidden aliases.
"""

from __future__ import annotations

import argparse

DEFAULT_CCR_PATH = "headroom_ccr.sqlite3"  # the proxy's default SQLite store
DEFAULT_REDIS_URL = "redis://127.0.0.1:6379/0"
LOG_LEVELS = ("debug", "info", "warning", "error")


def add_store_flags(p: argparse.ArgumentParser, *, backends: tuple[str, ...], default_backend: str = "sqlite",
                    hidden_path_aliases: tuple[str, ...] = ()) -> None:
    p.add_argument("--ccr-backend", choices=backends, default=default_backend,
                   help=f"where the proxy keeps originals (default: {default_backend})")
    p.add_argument("--ccr-path", metavar="PATH", default=DEFAULT_CCR_PATH,
                   help=f"the proxy's CCR SQLite file (default: {DEFAULT_CCR_PATH})")
    for alias in hidden_path_aliases:
        p.add_argument(alias, dest="ccr_path", metavar="PATH", default=argparse.SUPPRESS, help=argparse.SUPPRESS)
    p.add_argument("--redis-url", metavar="URL", default=None,
                   help=f"Redis URL for --ccr-backend redis (default: {DEFAULT_REDIS_URL})")


def add_log_level(p: argparse.ArgumentParser, default: str) -> None:
    # Upper case still accepted (``--log-level WARNING`` was the old spelling).
    p.add_argument("--log-level", type=str.lower, choices=LOG_LEVELS, default=default,
                   help=f"{' | '.join(LOG_LEVELS)} (default: {default})")


def check_redis_flag(args: argparse.Namespace) -> None:
    if args.redis_url and args.ccr_backend != "redis":
        raise ValueError("--redis-url needs --ccr-backend redis")
