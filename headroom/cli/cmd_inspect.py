"""`headroom inspect`: what headroom changed in recent proxy requests (headroom.report.inspect)."""

from __future__ import annotations

import argparse
import json
import sys

from .scope_flags import add_scope_flags, tenants_of
from .store_flags import add_store_flags, check_redis_flag


def run(args: argparse.Namespace) -> int:
    from ..metrics import MetricsStore
    from ..report.inspect import inspect_requests, render_text

    check_redis_flag(args)
    tenants = tenants_of(args)
    with MetricsStore(args.db, read_only=True) as metrics:  # first: no rows, nothing else to say
        backend = _ccr_backend(args)
        try:
            views = inspect_requests(metrics, backend, last=args.last, tenants=tenants)
            hidden = metrics.count() if not views else 0  # none visible: every row is another key's
        finally:
            if backend is not None:
                backend.close()
    if args.json:
        json.dump({"requests": [v.to_dict(full=args.full) for v in views]}, sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
        return 0
    sys.stdout.write(render_text(views, full=args.full))
    if hidden:
        print(f"({hidden} requests of other provider keys are not shown: pass --api-key KEY, or --all-tenants)")
    return 0


def _ccr_backend(args: argparse.Namespace):
    """The proxy's CCR store, read-only; None (rows only) when its SQLite file is absent."""
    if args.ccr_backend == "redis":
        from ..ccr.redis_backend import RedisBackend
        from .store_flags import DEFAULT_REDIS_URL

        return RedisBackend(args.redis_url or DEFAULT_REDIS_URL)
    from ..ccr.backends import SQLiteBackend

    try:
        return SQLiteBackend(args.ccr_path, read_only=True)
    except FileNotFoundError:
        print(f"headroom inspect: no CCR store at {args.ccr_path}; showing token counts without texts "
              "(pass the proxy's --ccr-path)", file=sys.stderr)
        return None


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("inspect", help="show what headroom changed in recent proxy requests (original vs sent)",
                       description="For the latest proxy requests: each block headroom changed, as a diff of the "
                       "original and what was sent, its tokens, retrieval markers, and the retrieve calls asked and "
                       "answered. Reads the proxy's metrics database and CCR store read-only: it runs beside a "
                       "live proxy.")
    p.add_argument("--last", type=int, default=5, metavar="N", help="how many recent requests (default: 5)")
    p.add_argument("--full", action="store_true", help="whole original and sent texts instead of diffs")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument("--metrics-db", dest="db", default="headroom.db",
                   help="the proxy's metrics database (SQLite or .jsonl; default: headroom.db)")
    add_store_flags(p, backends=("sqlite", "redis"))
    add_scope_flags(p, "blocks and originals")
    p.set_defaults(func=run)
