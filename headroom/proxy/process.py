"""What every serving process sets up before it builds its app: the only process, or each
worker of ``--workers N``. Its own module so that ``server`` (one process) and ``workers``
(uvicorn's factory in each worker) both import it without importing each other."""

from __future__ import annotations

import faulthandler
import logging
import os
import signal
import sys

from ..malloc import fix_mmap_threshold, limit_arenas
from ..tokens import drop_rank_dicts
from .config import ProxyConfig

MALLOC_ARENAS = 2


def setup_process(proxy_config: ProxyConfig) -> None:
    """Logging and fatal-signal reports for a process that serves (the only one, or a worker)."""
    # A fatal signal would otherwise kill the proxy without a line in the log.
    if sys.__stderr__ is not None:
        faulthandler.enable(file=sys.__stderr__)  # the real stderr: a captured one has no fd
        if hasattr(signal, "SIGUSR1"):  # `kill -USR1 <pid>` prints every thread's stack (a hang)
            faulthandler.register(signal.SIGUSR1, file=sys.__stderr__, all_threads=True)
    level = proxy_config.log_level.upper()
    # Fewer malloc arenas, large blocks mapped apart: image work in threads otherwise
    # leaves each thread's arena at its high-water mark (docs/proxy.md, "Memory per
    # worker"). Explicit MALLOC_ARENA_MAX / MALLOC_MMAP_THRESHOLD_ (read by glibc at
    # start-up) win.
    if "MALLOC_ARENA_MAX" not in os.environ:
        limit_arenas(MALLOC_ARENAS)
    if "MALLOC_MMAP_THRESHOLD_" not in os.environ:
        fix_mmap_threshold()
    drop_rank_dicts()  # tiktoken's Python copy of its ranks: 24 MB a worker, unused here
    logging.basicConfig(level=level, format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    # httpx logs every upstream URL at INFO; keep that for debugging only.
    logging.getLogger("httpx").setLevel(logging.DEBUG if level == "DEBUG" else logging.WARNING)
