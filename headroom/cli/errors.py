"""How the CLI turns a failure into one line that names the fix.

A traceback tells a user where the code broke, not what to change; every error a user
can cause (bad input, a bad ``HEADROOM_*`` value, an unreachable Redis, a missing model,
an unreadable file) is printed as ``headroom CMD: error: WHAT; FIX`` and exits non-zero.
"""

from __future__ import annotations

import argparse
import difflib
import sys

from ..ccr.store import StoreError
from ..ml.registry import DeviceUnavailable, ModelNotFound

# Failures a user causes and can fix; anything else is a bug and keeps its traceback.
USER_ERRORS: tuple[type[BaseException], ...] = (
    ValueError, OSError, ModelNotFound, DeviceUnavailable, StoreError, ImportError,
)


def is_user_error(exc: BaseException) -> bool:
    """A failure the user can fix: USER_ERRORS, or the redis package's own connection
    errors (not subclasses of the builtin ConnectionError) from a store opened lazily."""
    if isinstance(exc, USER_ERRORS):
        return True
    return type(exc).__module__.startswith("redis") and type(exc).__name__ in ("ConnectionError", "TimeoutError",
                                                                                "AuthenticationError")


def one_line(exc: BaseException) -> str:
    """The exception's message on one line, with the fix where the message lacks one."""
    errors = getattr(exc, "errors", None)
    if callable(errors) and type(exc).__name__ == "ValidationError":  # pydantic: field: message; …
        try:
            text = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'value'}: {e['msg']}" for e in errors())
        except Exception:  # noqa: BLE001 - fall back to the plain message
            text = str(exc)
    elif isinstance(exc, OSError) and exc.strerror and exc.filename:
        text = f"{exc.filename}: {exc.strerror[:1].lower()}{exc.strerror[1:]}"
    else:
        text = str(exc) or type(exc).__name__
    text = " ".join(text.split()).rstrip(".")
    redis_down = isinstance(exc, ConnectionError) or type(exc).__module__.startswith("redis")
    if redis_down and ("redis" in text.lower() or type(exc).__module__.startswith("redis")):
        if "redis" not in text.lower():
            text = f"cannot reach Redis: {text}"
        text += "; start redis-server there, pass the right --redis-url, or use --ccr-backend sqlite"
    return text


def report(command: str | None, exc: BaseException) -> int:
    print(f"headroom{' ' + command if command else ''}: error: {one_line(exc)}", file=sys.stderr)
    return 2


def deepest_parser(parser: argparse.ArgumentParser, args: argparse.Namespace) -> argparse.ArgumentParser:
    """The (sub)parser of the command the user typed, e.g. ``mcp serve``'s."""
    current = parser
    while True:
        subs = [a for a in current._actions if isinstance(a, argparse._SubParsersAction)]
        name = getattr(args, subs[0].dest, None) if subs else None
        if not subs or name not in subs[0].choices:
            return current
        current = subs[0].choices[name]


def unknown_arguments(parser: argparse.ArgumentParser, extras: list[str]) -> str:
    """``unrecognized arguments: --modle (did you mean --model?)``."""
    options = [s for a in parser._actions for s in a.option_strings if a.help is not argparse.SUPPRESS]
    hints = []
    for word in extras:
        if word.startswith("-"):
            close = difflib.get_close_matches(word.split("=", 1)[0], options, n=1, cutoff=0.6)
            if close:
                hints.append(f"did you mean {close[0]}?")
    message = f"unrecognized arguments: {' '.join(extras)}"
    if hints:
        message += f" ({'; '.join(hints)})"
    return message + f"; see `{parser.prog} --help`"
