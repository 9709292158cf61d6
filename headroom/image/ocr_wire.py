"""The OCR service's framing over a local (unix) socket, shared by server and client.

A frame is two big-endian lengths (JSON header, payload), the header, then the payload.
Requests: ``{"op": "ocr", "size": [w, h]}`` with the image's raw RGB bytes (no PNG
round trip: a 1100x900 screenshot is 3 MB, copied in a millisecond), or
``{"op": "stats"}``. Answers: ``{"lines": [[text, confidence, [l, t, r, b]], ...]}``,
``{"error": "..."}`` or the stats.
"""

from __future__ import annotations

import json
import socket
import struct
from typing import Any

HEADER = struct.Struct("!II")
# A guard against a corrupt length, not a limit anyone meets (a 8k x 8k RGB image is 192 MB).
MAX_PAYLOAD = 512 * 1024 * 1024


def send_frame(sock: socket.socket, meta: dict[str, Any], payload: bytes = b"") -> None:
    head = json.dumps(meta).encode()
    sock.sendall(HEADER.pack(len(head), len(payload)) + head)
    if payload:
        sock.sendall(payload)


def _recv_exact(sock: socket.socket, n: int) -> bytearray:
    buf = bytearray(n)
    view, got = memoryview(buf), 0
    while got < n:
        k = sock.recv_into(view[got:], n - got)
        if not k:
            raise ConnectionError("the other side closed the connection")
        got += k
    return buf  # not copied again: json.loads and Image.frombytes take a bytearray


def recv_frame(sock: socket.socket) -> tuple[dict[str, Any], bytearray]:
    head_len, payload_len = HEADER.unpack(_recv_exact(sock, HEADER.size))
    if head_len > 1 << 20 or payload_len > MAX_PAYLOAD:
        raise ConnectionError(f"frame too large ({head_len} + {payload_len} bytes): not an OCR frame")
    meta = json.loads(_recv_exact(sock, head_len))
    return meta, _recv_exact(sock, payload_len) if payload_len else bytearray()


def encode_result(result: Any) -> dict[str, Any]:
    return {"lines": [[ln.text, ln.confidence, list(ln.box)] for ln in result.lines]}


def decode_result(meta: dict[str, Any]) -> Any:
    from .ocr import OcrLine, OcrResult

    return OcrResult([OcrLine(text, float(conf), tuple(float(v) for v in box))  # type: ignore[arg-type]
                      for text, conf, box in meta["lines"]])
