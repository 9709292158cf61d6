"""``/stats`` and ``/metrics`` for the whole proxy when several workers serve it.

Each worker keeps its own :class:`ProxyStats` (no lock shared between processes on the
request path) and publishes it as ``<stats_dir>/worker-<pid>.json`` twice a second and
when it stops (written to a temporary file and renamed, so a reader never sees half a
file). Whichever worker answers ``/stats`` or ``/metrics`` sums every file in the
directory, its own live counters in place of its file: Prometheus' multi-process
convention (one file per process, summed at scrape time, counters of exited workers kept),
without memory-mapped files. The supervisor gives each run an empty directory.
"""

from __future__ import annotations

import json
import logging
import os
import threading
from pathlib import Path
from typing import Any

from .stats import ProxyStats

log = logging.getLogger("headroom.proxy")

PUBLISH_EVERY_S = 0.5


class StatsPublisher:
    def __init__(self, stats: ProxyStats, directory: str, extra: Any = None):
        self.stats, self.dir = stats, Path(directory)
        self.extra = extra  # () -> dict of per-worker numbers summed too (the memo's)
        self.path = self.dir / f"worker-{os.getpid()}.json"
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="headroom-stats", daemon=True)
        self.dir.mkdir(parents=True, exist_ok=True)
        self.publish()
        self._thread.start()

    def own(self) -> dict[str, Any]:
        data = self.stats.raw()
        data["extra"] = self.extra() if self.extra is not None else {}
        return data

    def publish(self) -> None:
        tmp = self.path.with_suffix(".tmp")
        try:
            tmp.write_text(json.dumps(self.own()))
            os.replace(tmp, self.path)
        except OSError as exc:  # a full or vanished directory must not break traffic
            log.warning("could not publish this worker's counters to %s: %s", self.dir, exc)

    def _run(self) -> None:
        while not self._stop.wait(PUBLISH_EVERY_S):
            self.publish()

    def close(self) -> None:
        self._stop.set()
        self._thread.join(timeout=2)
        self.publish()  # the final counts of a worker that stops stay in the sum

    def all_raw(self) -> list[dict[str, Any]]:
        """Every worker's counters: the others' files, and this worker's live ones."""
        out = [self.own()]
        for f in self.dir.glob("worker-*.json"):
            if f == self.path:
                continue
            try:
                out.append(json.loads(f.read_text()))
            except (OSError, ValueError):
                continue  # replaced between listing and reading: next scrape has it
        return out


def whole_proxy(publisher: StatsPublisher) -> tuple[ProxyStats, dict[str, int], int]:
    """(summed counters, summed extras, number of workers that published)."""
    raws = publisher.all_raw()
    extras: dict[str, int] = {}
    for r in raws:
        for k, v in (r.get("extra") or {}).items():
            extras[k] = extras.get(k, 0) + v
    return ProxyStats.merged(raws), extras, len(raws)
