"""The OCR service process: one per proxy, shared by its workers (``python -m headroom.image.ocr_server``).

RapidOCR's detection and recognition sessions cost 320-430 MB once loaded; in every
worker that is N times that. Here they load once, on the first request (a proxy that
never sees a text screenshot never pays for them). Requests are served one at a time
(onnxruntime already spreads one image over the cores); each connection gets a thread,
so a queued client only waits. The process exits when its parent (the proxy) is gone.
Exit status 3 means OCR is not installed (``rapidocr-onnxruntime``): not worth a restart.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import os
import shutil
import socket
import socketserver
import struct
import sys
import threading
import time
from typing import Any

from .ocr_wire import encode_result, recv_frame, send_frame

EXIT_UNAVAILABLE = 3
DEFAULT_READER = "headroom.image.ocr:read_text"


def resolve(dotted: str) -> Any:
    module, _, name = dotted.partition(":")
    return getattr(importlib.import_module(module), name)


def peer_pid(sock: socket.socket) -> int:
    """The client process's pid (the kernel's SO_PEERCRED; Linux only, else 0)."""
    if not hasattr(socket, "SO_PEERCRED"):
        return 0
    return struct.unpack("3i", sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i")))[0]


class OcrServer(socketserver.ThreadingMixIn, socketserver.UnixStreamServer):
    daemon_threads = True

    def __init__(self, path: str, reader: Any):
        if os.path.exists(path):  # left by a crashed predecessor
            os.unlink(path)
        super().__init__(path, _Handler)
        os.chmod(path, 0o600)
        self.reader = reader
        self.lock = threading.Lock()
        self.served = 0
        self.clients: set[int] = set()

    def ocr(self, meta: dict[str, Any], payload: bytearray) -> dict[str, Any]:
        from PIL import Image

        from ..malloc import trim

        w, h = meta["size"]
        with self.lock:
            try:
                result = self.reader(Image.frombytes("RGB", (int(w), int(h)), payload))
            except Exception as exc:  # noqa: BLE001 - the client keeps its image; the service stays up
                return {"error": f"{type(exc).__name__}: {exc}"}
            finally:
                trim()  # the detector's per-image buffers are large; give them back
            self.served += 1
        return encode_result(result)


class _Handler(socketserver.BaseRequestHandler):
    server: OcrServer

    def handle(self) -> None:
        sock, server = self.request, self.server
        server.clients.add(peer_pid(sock))
        try:  # the greeting tells a client it reached a live server before it sends an image
            send_frame(sock, {"pid": os.getpid()})
        except OSError:
            return
        while True:
            try:
                meta, payload = recv_frame(sock)
            except (ConnectionError, OSError):
                return
            if meta.get("op") == "ocr":
                answer = server.ocr(meta, payload)
            elif meta.get("op") == "stats":
                answer = {"pid": os.getpid(), "served": server.served, "clients": sorted(server.clients)}
            else:
                answer = {"error": f"unknown op {meta.get('op')!r}"}
            try:
                send_frame(sock, answer)
            except OSError:
                return


def _exit_with_parent(parent: int, directory: str) -> None:
    """The proxy may end without stopping us (SIGKILL; uvicorn re-raising SIGTERM in a
    single process once it drained): then we go too, with our private directory."""
    while True:
        time.sleep(1.0)
        if os.getppid() != parent:
            shutil.rmtree(directory, ignore_errors=True)
            os._exit(0)


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(prog="python -m headroom.image.ocr_server")
    ap.add_argument("--socket", required=True)
    ap.add_argument("--reader", default=DEFAULT_READER, help="module:function taking a PIL image (tests swap it)")
    args = ap.parse_args(argv)
    if args.reader == DEFAULT_READER and importlib.util.find_spec("rapidocr_onnxruntime") is None:
        print("rapidocr_onnxruntime is not installed (pip install 'headroom[image]')", file=sys.stderr)
        return EXIT_UNAVAILABLE
    from ..malloc import fix_mmap_threshold

    fix_mmap_threshold()  # the detector's per-image buffers go back to the kernel when freed
    server = OcrServer(args.socket, resolve(args.reader))
    threading.Thread(target=_exit_with_parent, args=(os.getppid(), os.path.dirname(os.path.abspath(args.socket))),
                     daemon=True).start()
    print("ready", flush=True)
    server.serve_forever()
    return 0


if __name__ == "__main__":
    sys.exit(main())
