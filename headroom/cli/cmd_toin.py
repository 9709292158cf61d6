"""`headroom toin stats|show SIGNATURE|export FILE|import FILE`: learned tool-output patterns.

Reads the same store the proxy writes (by default the SQLite file next to its CCR store);
every subcommand is a call on :class:`headroom.toin.Toin`.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path


def _open(args: argparse.Namespace):
    from ..config import CCRConfig, HeadroomConfig, ToinConfig
    from ..toin import toin_from_config

    cfg = HeadroomConfig(ccr=CCRConfig(backend=args.ccr_backend, sqlite_path=args.ccr_path, redis_url=args.redis_url),
                         toin=ToinConfig(sqlite_path=args.toin_path))
    return toin_from_config(cfg)


def run(args: argparse.Namespace) -> int:
    toin = _open(args)
    try:
        if args.action == "stats":
            stats = toin.stats()
            if args.json:
                print(json.dumps(stats, indent=2))
                return 0
            print(f"{stats['signatures']} signatures, {stats['compressed']} compressions, "
                  f"{stats['retrieved']} retrieved ({stats['retrieval_rate']:.1%}); "
                  f"{stats['confident_signatures']} confident enough to steer")
            for p in stats["patterns"]:
                print(f"  {p['signature']}  {p['kind']:<10} {p['tool_name'] or '-':<24} compressed {p['compressed']:>6}  "
                      f"retrieval rate {p['retrieval_rate']:.1%}  fields {p['fields']}")
            return 0
        if args.action == "show":
            pattern = toin.find(args.target)
            if pattern is None:
                raise ValueError(f"no single signature starts with {args.target!r} (see `headroom toin stats`)")
            print(json.dumps(pattern.to_dict(), indent=2))
            return 0
        if args.action == "export":
            data = toin.export()
            Path(args.target).write_text(json.dumps(data, indent=1, sort_keys=True))
            print(f"wrote {args.target}: {len(data['signatures'])} signatures")
            return 0
        n = toin.import_(json.loads(Path(args.target).read_text()))
        print(f"imported {n} signatures from {args.target}")
        return 0
    finally:
        toin.close()


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("toin", help="learned tool-output patterns: stats, show, export, import")
    p.add_argument("action", choices=["stats", "show", "export", "import"])
    p.add_argument("target", nargs="?", help="signature (prefix) for show; file for export/import")
    p.add_argument("--ccr-backend", choices=["memory", "sqlite", "redis"], default="sqlite",
                   help="the proxy's CCR backend; TOIN lives beside it (default: sqlite)")
    p.add_argument("--ccr-path", default="headroom_ccr.sqlite3", help="the proxy's CCR SQLite file")
    p.add_argument("--redis-url", default="redis://127.0.0.1:6379/0", help="Redis URL for --ccr-backend redis")
    p.add_argument("--toin-path", default=None, help="TOIN SQLite file (default: next to --ccr-path)")
    p.add_argument("--json", action="store_true", help="stats as JSON")

    def checked(args: argparse.Namespace) -> int:
        if args.action != "stats" and not args.target:
            raise ValueError(f"`headroom toin {args.action}` needs a {'signature' if args.action == 'show' else 'file'}")
        return run(args)

    p.set_defaults(func=checked)
