"""`headroom …` command line.

Every command is a thin layer over a library function. Commands live in ``cmd_*.py``
modules in this package, each with ``register(subparsers)``; they are discovered, so
adding a command never means editing this file.
"""

from __future__ import annotations

import argparse
import importlib
import os
import pkgutil
import sys

from ..version import __version__
from ..config import check_env
from .errors import deepest_parser, is_user_error, report, unknown_arguments


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
    args, extras = parser.parse_known_args(argv)
    if extras:
        # A mistyped flag belongs to the command it was typed for: that command's usage,
        # a "did you mean", not the top-level usage argparse would print.
        sub = deepest_parser(parser, args)
        sub.error(unknown_arguments(sub, extras))
    if not getattr(args, "func", None):
        parser.print_help()
        return 2
    try:
        check_env()
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        return 130
    except BrokenPipeError:
        # `headroom compress -o - | head`: the reader left; not an error worth a traceback.
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - stays open until exit
        return 0
    except Exception as exc:
        # Bad input, a bad HEADROOM_* value, an unreachable store, a missing optional
        # model or an unusable device: the message says what to fix; a traceback would
        # only bury it. Anything else is a bug and keeps its traceback.
        if not is_user_error(exc):
            raise
        return report(_command(args), exc)


def _command(args: argparse.Namespace) -> str:
    """``compress``, ``mcp serve``, ``toin stats``: what the user ran, for error lines."""
    words = [args.command] + [getattr(args, k) for k in ("mcp_command", "eval_command") if getattr(args, k, None)]
    return " ".join(w for w in words if isinstance(w, str))


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
