"""What ``/health`` reports beyond warm-up, kept fresh off the event loop.

Checking the CCR store's files (a stat, then exists/access on the file, -journal, -wal
and -shm) and the OCR service's status file takes about ten system calls. Each releases
the GIL, and under load the event loop must then win it back from the compression
threads, waiting up to a switch interval (5 ms) every time: the probe itself made
``/health`` slow when the proxy was busy (docs/proxy.md, "/health under load"). A
daemon thread repeats the checks every ``REFRESH_S`` and the handler only reads the
last result; a store fault recorded in memory (a failed write) still shows at once.
"""

from __future__ import annotations

import threading
from typing import Any

from ..image.ocr_client import service_health

REFRESH_S = 0.25


class HealthChecks:
    def __init__(self, store: Any, refresh_s: float = REFRESH_S):
        self.store, self.refresh_s = store, refresh_s
        self.files_problem: str | None = None
        self.ocr: tuple[str, str] | None = None
        self._stop = threading.Event()
        self.refresh()
        self._thread = threading.Thread(target=self._run, name="headroom-health", daemon=True)
        self._thread.start()

    def refresh(self) -> None:
        self.files_problem = self._files_problem()
        self.ocr = service_health()

    def _files_problem(self) -> str | None:
        if self.store is None:
            return None
        backend = getattr(self.store, "backend", None)
        try:
            return backend.problem() if backend is not None else self.store.problem()
        except Exception as exc:  # noqa: BLE001 - a health check reports, it does not raise
            return f"{type(exc).__name__}: {exc}"

    def _run(self) -> None:
        while not self._stop.wait(self.refresh_s):
            self.refresh()

    def current_store_problem(self) -> str | None:
        """The files' last known state, or a fault the store recorded since (no system call)."""
        if self.store is None:
            return None
        return self.files_problem or getattr(self.store, "fault", None)

    def close(self) -> None:
        self._stop.set()
