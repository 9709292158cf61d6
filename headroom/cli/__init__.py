"""`headroom …` command line.

Every command is a thin layer over a library function. Commands live in ``cmd_*.py``
modules in this package, each with ``register(subparsers)``; they are discovered, so
adding a command never means editing this file.
"""

from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys

from .. import __version__
from ..ml.registry import DeviceUnavailable, ModelNotFound


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="headroom", description="Context compression for AI agents.")
    parser.add_argument("--version", action="version", version=f"headroom {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")
    for info in sorted(pkgutil.iter_modules(__path__), key=lambda i: i.name):
        if info.name.startswith("cmd_"):
            _register(sub, info.name)
    return parser


def _register(sub: argparse._SubParsersAction, module: str) -> None:
    """Register one command; a command whose optional imports fail stays listed but says why.

    One missing optional package (e.g. ``tomli`` on Python 3.10 for ``eval``) must not take
    every other command down with it.
    """
    try:
        importlib.import_module(f"{__name__}.{module}").register(sub)
    except ImportError as exc:
        name = module.removeprefix("cmd_")
        if name in sub.choices:
            return
        reason = f"unavailable: {exc}"
        p = sub.add_parser(name, help=f"({reason})", add_help=False)
        p.add_argument("rest", nargs=argparse.REMAINDER)

        def unavailable(_args: argparse.Namespace, reason: str = reason) -> int:
            print(f"headroom {name}: {reason}", file=sys.stderr)
            return 2

        p.set_defaults(func=unavailable)


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        return 130
    except (ValueError, FileNotFoundError, ModelNotFound, DeviceUnavailable) as exc:
        # Bad input, a missing optional model or an unusable device: the message says
        # what to fix; a traceback would only bury it.
        print(f"headroom {args.command}: error: {exc}", file=sys.stderr)
        return 2


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
