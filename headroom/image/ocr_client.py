"""OCR through the proxy's shared OCR process, or in this process when there is none.

``default_reader()`` is what the image stage calls: with ``HEADROOM_OCR_SOCKET`` set (the
proxy started headroom.image.ocr_service) it sends the image's pixels over the unix
socket and waits at most ``HEADROOM_OCR_TIMEOUT_S`` (30 s) for the text; without it
(library use, tests) it runs RapidOCR here, as before. Any failure to get an answer
raises ``OcrUnavailable``, which the image stage turns into "image kept".

``service_health()`` is for ``/health``: it reads the service's status file (only when
the file changed) and this process's last failure, never the socket.
"""

from __future__ import annotations

import json
import os
import socket
import threading
import time
from typing import Any

from .ocr_service import ENV_SOCKET, status_path
from .ocr_wire import decode_result, recv_frame, send_frame

ENV_TIMEOUT = "HEADROOM_OCR_TIMEOUT_S"
DEFAULT_TIMEOUT_S = 30.0
# While the service restarts after a crash, a request waits this long for it to listen again.
RESTART_WAIT_S = 5.0


class OcrUnavailable(RuntimeError):
    """No text came back from the OCR service (down, restarting, failed, or too slow)."""


class OcrClient:
    def __init__(self, socket_path: str, timeout_s: float = DEFAULT_TIMEOUT_S, restart_wait_s: float = RESTART_WAIT_S):
        self.socket_path, self.timeout_s, self.restart_wait_s = socket_path, timeout_s, restart_wait_s
        self.last_error: str | None = None  # this process's last failure, cleared by a success
        self._status: dict[str, Any] = {}
        self._status_mtime = 0.0
        self._lock = threading.Lock()

    def status(self) -> dict[str, Any]:
        """The service's status file (re-read only when it changed)."""
        path = status_path(self.socket_path)
        try:
            mtime = path.stat().st_mtime
        except OSError:
            return {"state": "gone", "error": f"no status file at {path}"}
        with self._lock:
            if mtime != self._status_mtime:
                try:
                    self._status, self._status_mtime = json.loads(path.read_text()), mtime
                except (OSError, ValueError):
                    pass  # being replaced: keep the last one
            return dict(self._status)

    def _connect(self) -> socket.socket:
        """A connection to a live server: one that has greeted us. A connection accepted by
        a process that is dying (or not yet listening) is retried until it restarted; no
        image was sent on it, so a request never runs twice."""
        deadline = time.monotonic() + self.restart_wait_s
        while True:
            sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            try:
                sock.settimeout(self.timeout_s)
                sock.connect(self.socket_path)
                recv_frame(sock)
                return sock
            except (FileNotFoundError, ConnectionError) as exc:
                sock.close()
                state = self.status()
                if state.get("state") in ("failed", "unavailable", "gone") or time.monotonic() > deadline:
                    raise OcrUnavailable(f"OCR service {state.get('state', 'down')}: "
                                         f"{state.get('error') or type(exc).__name__}") from exc
                time.sleep(0.1)  # restarting: it listens again within a second or so

    def _call(self, meta: dict[str, Any], payload: bytes = b"") -> dict[str, Any]:
        try:
            sock = self._connect()
            with sock:
                send_frame(sock, meta, payload)
                answer, _ = recv_frame(sock)
        except OcrUnavailable as exc:
            self.last_error = str(exc)
            raise
        except TimeoutError as exc:
            self.last_error = f"OCR service did not answer within {self.timeout_s:g} s"
            raise OcrUnavailable(self.last_error) from exc
        except (ConnectionError, OSError) as exc:
            self.last_error = f"OCR service connection failed ({type(exc).__name__}: {exc}); it is restarted"
            raise OcrUnavailable(self.last_error) from exc
        self.last_error = None
        return answer

    def read_text(self, img: Any) -> Any:
        """Like headroom.image.ocr.read_text, in the service."""
        rgb = img if img.mode == "RGB" else img.convert("RGB")
        answer = self._call({"op": "ocr", "size": list(rgb.size)}, rgb.tobytes())
        if "error" in answer:  # the reader raised in the service: a per-image failure, not a fault
            raise RuntimeError(f"OCR failed in the OCR service: {answer['error']}")
        return decode_result(answer)

    def stats(self) -> dict[str, Any]:
        return self._call({"op": "stats"})


_client: OcrClient | None = None
_client_lock = threading.Lock()


def shared_client() -> OcrClient | None:
    """This process's client of the proxy's OCR service, or None when none was started."""
    global _client
    path = os.environ.get(ENV_SOCKET)
    if not path:
        return None
    with _client_lock:
        if _client is None or _client.socket_path != path:
            _client = OcrClient(path, float(os.environ.get(ENV_TIMEOUT) or DEFAULT_TIMEOUT_S))
        return _client


def default_reader() -> Any:
    client = shared_client()
    if client is not None:
        return client.read_text
    from .ocr import read_text

    return read_text


def service_health() -> tuple[str, str] | None:
    """``("degraded" | "unavailable", why)`` when OCR cannot be served; None when it can
    (or when this process runs OCR itself)."""
    client = shared_client()
    if client is None:
        return None
    state = client.status()
    if state.get("state") == "unavailable":
        return "unavailable", f"OCR: {state.get('error')}"
    if state.get("state") in ("failed", "restarting", "gone"):
        return "degraded", f"OCR service {state['state']}: {state.get('error')}"
    if client.last_error:
        return "degraded", client.last_error
    return None
