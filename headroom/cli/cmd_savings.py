"""`headroom savings`: tokens and dollars saved per day, model and agent (headroom.report.savings)."""

from __future__ import annotations

import argparse
import json
import sys


def run(args: argparse.Namespace) -> int:
    from ..metrics import MetricsStore
    from ..report.savings import render_text, savings
    from .scope_flags import tenants_of

    # Aggregates only (no content): every row, like /stats and `headroom report`, unless
    # the caller narrows to its keys with --api-key.
    tenants = tenants_of(args) if args.api_key else None
    with MetricsStore(args.db, read_only=True) as metrics:
        summary = savings(metrics, days=args.days, tenants=tenants)
    if args.json:
        json.dump(summary, sys.stdout, ensure_ascii=False, indent=2)
        sys.stdout.write("\n")
    else:
        sys.stdout.write(render_text(summary))
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("savings", help="tokens and dollars saved per day, model and agent",
                       description="Tokens and dollars headroom saved, per UTC day, model and agent (from the "
                       "client's user agent). Saved tokens that the provider's prompt cache would have made cheap "
                       "are priced as cache reads, so savings are never claimed at the full input price for them.")
    p.add_argument("--days", type=int, default=7, metavar="N", help="the last N days, today included (default: 7)")
    p.add_argument("--json", action="store_true", help="machine-readable output")
    p.add_argument("--metrics-db", dest="db", default="headroom.db",
                   help="the proxy's metrics database (SQLite or .jsonl; default: headroom.db)")
    p.add_argument("--api-key", metavar="KEY", action="append", default=[],
                   help="only requests sent with this provider key (repeatable); default: every request")
    p.set_defaults(func=run, all_tenants=False)
