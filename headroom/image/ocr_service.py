"""Starting, watching and restarting the proxy's one OCR process (headroom.image.ocr_server).

The proxy's top process (uvicorn's supervisor with ``--workers N``, or the only process)
owns it: ``OcrService.start()`` runs it on a unix socket in a private directory and puts
the socket's path in ``HEADROOM_OCR_SOCKET``, which the workers inherit
(headroom.image.ocr_client reads it). A thread waits on the process: a crash is followed
by a restart (with a growing pause); more than ``max_restarts`` crashes within
``window_s`` leave it stopped. Its state goes to ``status.json`` beside the socket, which
the workers' ``/health`` reads: ``running``, ``restarting``, ``failed`` (degraded) or
``unavailable`` (OCR not installed: the image stage keeps text screenshots as images).
"""

from __future__ import annotations

import json
import logging
import os
import select
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from .ocr_server import DEFAULT_READER, EXIT_UNAVAILABLE

log = logging.getLogger("headroom.image")
ENV_SOCKET = "HEADROOM_OCR_SOCKET"
SOCKET_NAME, STATUS_NAME, LOG_NAME = "ocr.sock", "status.json", "ocr.log"


def status_path(socket_path: str) -> Path:
    return Path(socket_path).with_name(STATUS_NAME)


class OcrService:
    def __init__(self, reader: str = DEFAULT_READER, *, max_restarts: int = 5, window_s: float = 60.0,
                 start_timeout_s: float = 20.0):
        self.reader, self.max_restarts, self.window_s = reader, max_restarts, window_s
        self.start_timeout_s = start_timeout_s
        self.directory = Path(tempfile.mkdtemp(prefix="headroom-ocr-"))  # 0700: this user only
        self.socket_path = str(self.directory / SOCKET_NAME)
        self.proc: subprocess.Popen | None = None
        self.restarts = 0
        self._crashes: list[float] = []
        self._stopping = threading.Event()
        self._watcher: threading.Thread | None = None

    @property
    def pid(self) -> int | None:
        return self.proc.pid if self.proc is not None else None

    def start(self) -> str:
        """Run the process, wait until it listens, export its socket; returns the socket path."""
        self._spawn()
        self._watcher = threading.Thread(target=self._watch, name="headroom-ocr-watch", daemon=True)
        self._watcher.start()
        os.environ[ENV_SOCKET] = self.socket_path
        return self.socket_path

    def stop(self) -> None:
        self._stopping.set()
        if os.environ.get(ENV_SOCKET) == self.socket_path:
            del os.environ[ENV_SOCKET]
        proc = self.proc
        if proc is not None and proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(timeout=5)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()
        if self._watcher is not None:
            self._watcher.join(timeout=5)
        shutil.rmtree(self.directory, ignore_errors=True)

    def __enter__(self) -> OcrService:  # noqa: PYI034 - Self needs 3.11
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def _write_status(self, state: str, error: str | None = None) -> None:
        data = {"state": state, "pid": self.pid, "restarts": self.restarts, **({"error": error} if error else {})}
        tmp = self.directory / (STATUS_NAME + ".tmp")
        tmp.write_text(json.dumps(data))
        os.replace(tmp, self.directory / STATUS_NAME)  # readers never see half a file

    def _spawn(self) -> None:
        with open(self.directory / LOG_NAME, "ab") as err:
            # Its own session: a Ctrl-C to the proxy's terminal reaches the proxy, which
            # stops this process itself (after its workers drained).
            self.proc = subprocess.Popen(
                [sys.executable, "-m", "headroom.image.ocr_server", "--socket", self.socket_path,
                 "--reader", self.reader], stdout=subprocess.PIPE, stderr=err, stdin=subprocess.DEVNULL,
                start_new_session=True)
        ready = self._wait_ready()
        self._write_status("running" if ready else "starting")

    def _wait_ready(self) -> bool:
        assert self.proc is not None and self.proc.stdout is not None
        # The server prints "ready" once it listens (or exits, e.g. OCR not installed).
        readable, _, _ = select.select([self.proc.stdout], [], [], self.start_timeout_s)
        return bool(readable) and self.proc.stdout.readline().strip() == b"ready"

    def _log_tail(self) -> str:
        try:
            lines = (self.directory / LOG_NAME).read_text(errors="replace").strip().splitlines()
        except OSError:
            return ""
        return lines[-1][:500] if lines else ""

    def _watch(self) -> None:
        while not self._stopping.is_set():
            assert self.proc is not None
            code = self.proc.wait()
            if self._stopping.is_set():
                return
            why = self._log_tail() or f"exit status {code}"
            if code == EXIT_UNAVAILABLE:
                self._write_status("unavailable", why)
                log.warning("OCR unavailable: %s", why)
                return
            now = time.monotonic()
            self._crashes = [t for t in self._crashes if now - t < self.window_s] + [now]
            if len(self._crashes) > self.max_restarts:
                msg = f"OCR process crashed {len(self._crashes)} times in {self.window_s:g} s, not restarted: {why}"
                self._write_status("failed", msg)
                log.error("%s", msg)
                return
            self._write_status("restarting", f"exit status {code}: {why}")
            log.warning("OCR process exited (status %s: %s); restarting", code, why)
            if self._stopping.wait(min(5.0, 0.2 * 2 ** (len(self._crashes) - 1))):
                return
            self.restarts += 1
            self._spawn()


def for_proxy(headroom_config: object) -> OcrService | None:
    """The OCR process a proxy starts before it serves: one whatever ``--workers`` is, when
    the image stage is on (``HEADROOM_OCR_PROCESS=0`` keeps OCR inside each worker)."""
    image = getattr(headroom_config, "image", None)
    if image is None or not image.enabled or os.environ.get("HEADROOM_OCR_PROCESS", "1") == "0":
        return None
    service = OcrService()
    service.start()
    return service
