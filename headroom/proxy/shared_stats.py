"""``/stats`` and ``/metrics`` for the whole proxy when several workers serve it.

Each worker keeps its own :class:`ProxyStats` (no lock shared between processes on the
request path). Whichever worker answers ``/stats`` or ``/metrics`` asks every other
worker for its live counters, over a Unix socket each worker listens on
(``<stats_dir>/worker-<pid>.sock``), and sums them with its own: the answer is exact
when read, not a few publishing periods old (issue 34: 71 of 84 requests were counted
right after a burst when workers only published files).

Each worker also writes its counters to ``<stats_dir>/worker-<pid>.json`` twice a second
and when it stops (a temporary file renamed, so a reader never sees half a file). The
files are what remains of a worker that exited (its counts stay in the sum, Prometheus'
multi-process convention) and the fallback for one that does not answer in time; the
answer then says how old the oldest such file was (``lag_s``). The supervisor gives each
run an empty directory.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import select
import socket
import threading
import time
from pathlib import Path
from typing import Any

from .stats import ProxyStats

log = logging.getLogger("headroom.proxy")

PUBLISH_EVERY_S = 0.5
# How long a reader waits for all the other workers together. A worker answers from its
# own thread, so only a worker stuck without the GIL for this long makes a reader fall back
# to its file.
ASK_TIMEOUT_S = 0.5
# Linux limits a Unix socket's path to 107 bytes; a longer stats_dir falls back to files.
_MAX_SOCKET_PATH = 100


class StatsPublisher:
    def __init__(self, stats: ProxyStats, directory: str, extra: Any = None, name: str | None = None):
        self.stats, self.dir = stats, Path(directory)
        self.extra = extra  # () -> dict of per-worker numbers summed too (the memo's)
        self.path = self.dir / f"worker-{name or os.getpid()}.json"  # name: tests run several in one process
        self.socket_path = self.path.with_suffix(".sock")
        self._stop = threading.Event()
        self._wake_r, self._wake_w = os.pipe()  # close() wakes the thread out of select()
        self.dir.mkdir(parents=True, exist_ok=True)
        self._listener = self._listen()  # before the first file: a reader who sees the file can ask
        self.publish()
        self._thread = threading.Thread(target=self._run, name="headroom-stats", daemon=True)
        self._thread.start()

    def _listen(self) -> socket.socket | None:
        if len(os.fsencode(self.socket_path)) > _MAX_SOCKET_PATH:
            log.info("stats directory %s is too long a path for a socket: /stats may trail by up to %.1f s",
                     self.dir, PUBLISH_EVERY_S)
            return None
        try:
            with contextlib.suppress(FileNotFoundError):
                self.socket_path.unlink()
            listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
            listener.bind(str(self.socket_path))
            listener.listen(64)
            return listener
        except OSError as exc:
            log.warning("could not listen on %s (/stats may trail by up to %.1f s): %s",
                        self.socket_path, PUBLISH_EVERY_S, exc)
            return None

    def own(self, final: bool = False) -> dict[str, Any]:
        data = self.stats.raw()
        data["extra"] = self.extra() if self.extra is not None else {}
        data["published_at"] = time.time()
        data["final"] = final
        return data

    def publish(self, final: bool = False) -> None:
        tmp = self.path.with_suffix(".tmp")
        try:
            tmp.write_text(json.dumps(self.own(final)))
            os.replace(tmp, self.path)
        except OSError as exc:  # a full or vanished directory must not break traffic
            log.warning("could not publish this worker's counters to %s: %s", self.dir, exc)

    def _run(self) -> None:
        watch = [self._wake_r] + ([self._listener] if self._listener is not None else [])
        due = time.monotonic() + PUBLISH_EVERY_S
        while not self._stop.is_set():
            wait = due - time.monotonic()
            if wait <= 0:
                self.publish()
                due = time.monotonic() + PUBLISH_EVERY_S
                continue
            ready, _, _ = select.select(watch, [], [], wait)
            if self._listener is not None and self._listener in ready:
                self._answer()

    def _answer(self) -> None:
        """Hand one asking worker this worker's live counters, then close."""
        try:
            conn, _ = self._listener.accept()  # type: ignore[union-attr]
        except OSError:
            return
        with conn:
            conn.settimeout(ASK_TIMEOUT_S)
            with contextlib.suppress(OSError):  # the asker gave up: nothing to do
                conn.sendall(json.dumps(self.own()).encode())

    def close(self) -> None:
        if self._stop.is_set():
            return  # closed already
        self._stop.set()
        os.write(self._wake_w, b"x")
        self._thread.join(timeout=2)
        if self._listener is not None:
            self._listener.close()
            with contextlib.suppress(OSError):
                self.socket_path.unlink()
        for fd in (self._wake_r, self._wake_w):
            os.close(fd)
        self.publish(final=True)  # the final counts of a worker that stops stay in the sum

    def all_raw(self) -> tuple[list[dict[str, Any]], float]:
        """Every worker's counters (this worker's and each other's live ones; the file of a
        worker that exited or did not answer in time), and the age in seconds of the oldest
        file that stood in for a running worker (0.0: every number is as of now)."""
        others = [f for f in self.dir.glob("worker-*.json") if f != self.path]
        asked = {f: _connect(f.with_suffix(".sock")) for f in others}
        out, lag = [self.own()], 0.0
        deadline = time.monotonic() + ASK_TIMEOUT_S
        for f, conn in asked.items():
            live = _read_answer(conn, deadline) if isinstance(conn, socket.socket) else None
            if live is not None:
                out.append(live)
                continue
            try:
                data = json.loads(f.read_text())
            except (OSError, ValueError):
                continue  # replaced between listing and reading, or gone with its worker
            out.append(data)
            # A refused connection is a worker that died: its file is all there is, not a
            # late copy. A timeout (or no socket at all) is a running worker: its file trails.
            if not data.get("final") and conn != "refused":
                lag = max(lag, time.time() - data.get("published_at", 0.0))
        return out, lag


def _connect(path: Path) -> socket.socket | str:
    """A connection to a worker's socket, or why there is none ("refused", "missing")."""
    if not path.exists():
        return "missing"
    conn = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    conn.settimeout(ASK_TIMEOUT_S)
    try:
        conn.connect(str(path))  # completes in the kernel: all workers then answer at once
        return conn
    except (ConnectionRefusedError, FileNotFoundError):
        conn.close()
        return "refused"
    except OSError:
        conn.close()
        return "missing"


def _read_answer(conn: socket.socket, deadline: float) -> dict[str, Any] | None:
    chunks = []
    with conn:
        try:
            while (left := deadline - time.monotonic()) > 0:
                conn.settimeout(left)
                chunk = conn.recv(65536)
                if not chunk:
                    return json.loads(b"".join(chunks))
                chunks.append(chunk)
        except (OSError, ValueError):
            return None
    return None


def whole_proxy(publisher: StatsPublisher) -> tuple[ProxyStats, dict[str, int], int]:
    """(summed counters, summed extras, number of workers counted); the counters carry
    when they were read and how far the oldest stand-in file trailed (``lag_s``)."""
    raws, lag = publisher.all_raw()
    extras: dict[str, int] = {}
    for r in raws:
        for k, v in (r.get("extra") or {}).items():
            extras[k] = extras.get(k, 0) + v
    merged = ProxyStats.merged(raws)
    merged.lag_s = lag
    return merged, extras, len(raws)
