"""`headroom doctor`: check the installation and say how to fix what is missing."""

from __future__ import annotations

import argparse
import json

_MARK = {"ok": "ok  ", "warn": "warn", "fail": "FAIL"}


def register(sub: argparse._SubParsersAction) -> None:
    p = sub.add_parser("doctor", help="check Python, packages, extras, offline tokenizer, CCR path, models",
                       description="Check the installation: Python and package versions, which extras are "
                                   "installed, offline tokenizer files, whether the CCR store path is writable, "
                                   "and which optional models are present or missing (and how to provide them).")
    p.add_argument("--ccr-path", default=None, help="CCR SQLite file to check (default: the config default)")
    p.add_argument("--json", action="store_true", help="print JSON")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    from ..ml.doctor import diagnose

    checks = diagnose(args.ccr_path)
    failed = any(c.level == "fail" for c in checks)
    if args.json:
        print(json.dumps({"ok": not failed, "checks": [c.to_dict() for c in checks]}, indent=2))
        return 1 if failed else 0
    for c in checks:
        print(f"[{_MARK[c.level]}] {c.name:<40} {c.detail}")
        if c.fix and c.level != "ok":
            print(f"       -> {c.fix}")
    warns = sum(c.level == "warn" for c in checks)
    print(f"\n{'problems found' if failed else 'ready'}: {sum(c.level == 'fail' for c in checks)} failing, "
          f"{warns} optional piece(s) missing")
    return 1 if failed else 0
