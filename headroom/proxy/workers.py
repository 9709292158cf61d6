"""Several proxy processes on one port (``headroom proxy --workers N``).

uvicorn's supervisor binds the port once and starts N worker processes that accept on
it; it restarts a worker that dies, and on SIGINT/SIGTERM each worker stops accepting and
lets in-flight requests and streams finish (``drain_timeout_s``). Each worker builds its
own app from the configs the parent serialised into ``HEADROOM_PROXY_WORKER_CONFIG``.

What the workers share, and how: the CCR store (its SQLite file, or Redis), so a hash
stored through one worker is retrievable through any, and the compressed-output memo,
whose lossy entries live in that store (``stored_memo``); TOIN's counts and the
retrieval feedback (the store's and TOIN's files or Redis); the metrics DB (one SQLite
file); ``/stats`` and ``/metrics`` (headroom.proxy.shared_stats). Per worker: its
in-process memo cache, its loaded models (with ``--llmlingua``, one LLMLingua-2 per
worker: see docs/proxy.md for the memory), its upstream connection pool.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from typing import Any

from uvicorn.supervisors.multiprocess import Multiprocess

ENV = "HEADROOM_PROXY_WORKER_CONFIG"


def usable_cores() -> int:
    """Cores this process may run on (its CPU affinity, not the machine's count)."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def worker_app() -> Any:
    """The app of one worker (uvicorn calls this factory in each worker process)."""
    from ..config import HeadroomConfig
    from .app import create_app
    from .config import ProxyConfig
    from .process import setup_process

    data = json.loads(os.environ[ENV])
    proxy = ProxyConfig.model_validate(data["proxy"])
    setup_process(proxy)
    return create_app(proxy, HeadroomConfig.model_validate(data["headroom"]))


class Supervisor(Multiprocess):
    """uvicorn's supervisor, which lets go of the listening socket once it has told its
    workers to stop. It kept its copy open until it exited: after the workers had stopped
    accepting, the kernel still completed connections to the port, and they waited,
    unanswered, until the supervisor exited (in-flight streams get ``drain_timeout_s``) and
    were reset, with the balancer's POST in them. Without its copy, the socket closes with
    the last worker's (which first accepts what is queued: proxy/drain.py), and a later
    connection is refused, which a balancer resends to another replica."""

    def terminate_all(self) -> None:
        super().terminate_all()  # only on the way out: nothing is restarted after it
        for sock in self.sockets:
            sock.close()


def serve_workers(proxy: Any, headroom: Any, uvicorn_options: dict[str, Any]) -> None:
    import uvicorn

    ours = proxy.stats_dir is None  # a directory of this run only: removed when it ends
    stats_dir = proxy.stats_dir or tempfile.mkdtemp(prefix="headroom-stats-")
    proxy = proxy.model_copy(update={"stats_dir": stats_dir})
    os.environ[ENV] = json.dumps({"proxy": proxy.model_dump(mode="json"),
                                  "headroom": headroom.model_dump(mode="json")})
    try:
        config = uvicorn.Config(f"{__name__}:worker_app", factory=True, workers=proxy.workers, **uvicorn_options)
        Supervisor(config, sockets=[config.bind_socket()]).run()
    finally:
        os.environ.pop(ENV, None)
        if ours:
            shutil.rmtree(stats_dir, ignore_errors=True)
