"""What ``headroom proxy`` checks and prints before it serves.

Checks (each failure is one line that names the fix, not a traceback): the CCR store
opens (Redis answers a ping; the SQLite file opens), the metrics file opens, the port is
free. Then one short block: where it listens, the two base URLs to export, the store and
metrics paths, the mode and the workers.
"""

from __future__ import annotations

import errno
import os
import socket
from typing import Any

from ..version import __version__

WILDCARD_HOSTS = ("0.0.0.0", "::", "")


class StartupError(Exception):
    """A setting or service the proxy cannot start with; the message says what to change."""


def settings_error(exc: ValueError) -> str:
    """One line from a config error (pydantic's name the field, then the reason)."""
    errors = getattr(exc, "errors", None)
    if callable(errors):
        first = errors()[0]
        where = ".".join(str(p) for p in first.get("loc", ()))
        msg = str(first.get("msg", exc)).removeprefix("Value error, ")
        return f"{msg}" if "HEADROOM_" in msg or not where else f"{where}: {msg}"
    return str(exc).splitlines()[0]


def _check_store(headroom: Any) -> None:
    from ..ccr.store import CompressionStore

    ccr = headroom.ccr
    if not ccr.enabled:
        return
    try:
        CompressionStore.from_config(ccr).close()
    except ConnectionError as exc:
        raise StartupError(f"{exc}; start redis-server there, pass --redis-url, or use --ccr-backend sqlite") from None
    except ImportError as exc:
        raise StartupError(f"{exc}") from None
    except Exception as exc:  # noqa: BLE001 - any store that cannot open: say which and why, in one line
        raise StartupError(f"cannot open the CCR store {ccr.sqlite_path}: {type(exc).__name__}: {exc}; "
                           "pass --ccr-path to another file") from None


def _check_metrics(proxy: Any) -> None:
    if not proxy.metrics_db:
        return
    from ..metrics import MetricsStore

    try:
        MetricsStore(proxy.metrics_db).close()
    except Exception as exc:  # noqa: BLE001 - one line naming the file and the fix
        raise StartupError(f"cannot open the metrics file {proxy.metrics_db}: {type(exc).__name__}: {exc}; "
                           "pass --metrics-db to another file or --no-metrics") from None


def _check_port(proxy: Any) -> None:
    family = socket.AF_INET6 if ":" in proxy.host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((proxy.host, proxy.port))
        except OSError as exc:
            if exc.errno == errno.EADDRINUSE:
                raise StartupError(f"port {proxy.port} on {proxy.host} is in use; pass --port with a free one, "
                                   "or stop the process that holds it") from None
            raise StartupError(f"cannot listen on {proxy.host}:{proxy.port}: {exc.strerror}; check --host") from None


def _check_models(headroom: Any) -> None:
    """A model the flags ask for resolves (path, device) before any worker starts: with
    several workers a failure there would otherwise restart them in a loop."""
    if not headroom.llmlingua.enabled:
        return
    from ..compressors.llmlingua import LLMLinguaCompressor

    try:
        LLMLinguaCompressor(headroom.llmlingua)  # resolves the checkpoint and the device; loads nothing
    except (ImportError, LookupError, OSError, ValueError, RuntimeError) as exc:  # ModelNotFound, DeviceUnavailable
        raise StartupError(str(exc)) from None


def preflight(proxy: Any, headroom: Any) -> None:
    _check_adapters(proxy)
    _check_models(headroom)
    _check_store(headroom)
    _check_metrics(proxy)
    _check_port(proxy)


def _check_adapters(proxy: Any) -> None:
    """An --adapter module that cannot be imported or lacks part of the contract stops
    the start with its name, not the first worker."""
    from .wiring import register_adapters

    try:
        register_adapters(proxy.adapter_modules)
    except (ImportError, TypeError) as exc:
        raise StartupError(f"--adapter: {exc}") from None


def _store_line(headroom: Any) -> str:
    from ..ccr.redis_backend import redact_url

    ccr = headroom.ccr
    if not ccr.enabled:
        return "off"
    where = {"sqlite": os.path.abspath(ccr.sqlite_path), "redis": redact_url(ccr.redis_url),
             "memory": "in memory (lost at exit)"}[ccr.backend]
    return f"{ccr.backend} {where} (originals kept {ccr.store_ttl_seconds} s)"


def banner(proxy: Any, headroom: Any) -> str:
    host = "127.0.0.1" if proxy.host in WILDCARD_HOSTS else proxy.host
    base = f"http://{'[' + host + ']' if ':' in host else host}:{proxy.port}"
    listening = base if proxy.host not in WILDCARD_HOSTS else f"{base} (all interfaces: {proxy.host})"
    metrics = os.path.abspath(proxy.metrics_db) if proxy.metrics_db else "off"
    workers = f"{proxy.workers} worker{'s' if proxy.workers != 1 else ''}"
    lines = [
        f"headroom proxy {__version__}: listening on {listening}, mode {proxy.mode}, {workers}",
        f"  export OPENAI_BASE_URL={base}/v1",
        f"  export ANTHROPIC_BASE_URL={base}",
        f"  CCR store: {_store_line(headroom)}",
        f"  metrics:   {metrics}; live counters at {base}/stats and {base}/metrics",
    ]
    if headroom.llmlingua.enabled:
        lines.append(f"  LLMLingua-2 on {headroom.llmlingua.device}, one model per worker")
    if proxy.host not in ("127.0.0.1", "localhost", "::1") and not proxy.admin_token:
        lines.append("  admin routes (/stats, /metrics, /v1/retrieve) answer loopback clients only: set --admin-token")
    return "\n".join(lines)
