"""`headroom report`: the HTML savings report from a metrics database."""

from __future__ import annotations

import argparse
import time
from datetime import datetime, timezone

from ..modes import ALL_MODES


def _when(value: str) -> float:
    """ISO date/time (UTC when no zone is given) or a relative age like 24h / 7d."""
    v = value.strip().lower()
    if v[-1:] in ("h", "d") and v[:-1].replace(".", "", 1).isdigit():
        return time.time() - float(v[:-1]) * (3600 if v.endswith("h") else 86400)
    try:
        dt = datetime.fromisoformat(value)
    except ValueError:
        raise ValueError(f"{value!r} is not a time: give an ISO date/time (2026-11-27, 2026-11-27T09:00) "
                         "or an age like 24h or 7d") from None
    return (dt if dt.tzinfo else dt.replace(tzinfo=timezone.utc)).timestamp()


def run(args: argparse.Namespace) -> int:
    from ..report import write_report

    summary = write_report(
        args.db, args.out, title=args.title,
        since=_when(args.since) if args.since else None,
        until=_when(args.until) if args.until else None,
        model=args.model, mode=args.mode,
    )
    t = summary["totals"]
    potential = f", {t['potential_saved']:,} potential (audit/simulate)" if t["potential_saved"] else ""
    print(f"wrote {args.out}: {t['requests']:,} requests, {t['tokens_saved']:,} tokens saved "
          f"({t['savings_pct']:.1f}% of {t['tokens_before']:,}){potential}")
    return 0


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("report", help="write an HTML savings report from the metrics database")
    # --metrics-db as in `headroom proxy`; --db was this command's first spelling.
    p.add_argument("--metrics-db", dest="db", default="headroom.db",
                   help="metrics database: SQLite file or .jsonl (default: headroom.db)")
    p.add_argument("--db", dest="db", default=argparse.SUPPRESS, help=argparse.SUPPRESS)
    p.add_argument("--out", default="report.html", help="HTML file to write (default: report.html)")
    p.add_argument("--since", help="only requests at or after this time: ISO date/time (UTC) or an age like 24h, 7d")
    p.add_argument("--until", help="only requests before this time (same forms as --since)")
    p.add_argument("--model", help="only this model")
    p.add_argument("--mode", choices=ALL_MODES, help="only this mode")
    p.add_argument("--title", default="Headroom savings report")
    p.set_defaults(func=run)
