"""`headroom toin stats|show SIGNATURE|export FILE|import FILE`: learned tool-output patterns.

Reads the same store the proxy writes (by default the SQLite file next to its CCR store);
every subcommand is a call on :class:`headroom.toin.Toin`.
"""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from .store_flags import add_store_flags, check_redis_flag

READ_ONLY = ("stats", "show", "export")


def _open(args: argparse.Namespace):
    from ..config import CCRConfig, HeadroomConfig, ToinConfig
    from ..toin import SQLiteToinBackend, Toin, toin_from_config
    from ..toin.backends import sibling_sqlite_path

    check_redis_flag(args)
    ccr = CCRConfig(backend=args.ccr_backend, sqlite_path=args.ccr_path,
                    **({"redis_url": args.redis_url} if args.redis_url else {}))
    cfg = HeadroomConfig(ccr=ccr, toin=ToinConfig(sqlite_path=args.toin_path))
    if args.action in READ_ONLY and args.ccr_backend == "sqlite":
        # Reading must not leave a new database behind in the current directory.
        path = args.toin_path or sibling_sqlite_path(args.ccr_path)
        backend = SQLiteToinBackend(path, read_only=True)
        return Toin(backend, cfg.toin, max_budget=4 * cfg.smart_crusher.max_items_after_crush)
    return toin_from_config(cfg)


def run(args: argparse.Namespace) -> int:
    try:
        toin = _open(args)
    except FileNotFoundError as exc:
        if args.action != "stats":
            raise
        # Nothing learned yet is an answer, not a failure; and reading made no file.
        print(f"0 signatures: no TOIN store at {exc.filename} yet (the proxy creates it when it first compresses "
              "a tool output; pass --ccr-path or --toin-path to read another)")
        return 0
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
    add_store_flags(p, backends=("memory", "sqlite", "redis"))
    p.add_argument("--toin-path", default=None, help="TOIN SQLite file (default: next to --ccr-path)")
    p.add_argument("--json", action="store_true", help="stats as JSON")

    def checked(args: argparse.Namespace) -> int:
        if args.action != "stats" and not args.target:
            raise ValueError(f"`headroom toin {args.action}` needs a {'signature' if args.action == 'show' else 'file'}")
        return run(args)

    p.set_defaults(func=checked)
