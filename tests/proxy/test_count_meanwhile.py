"""The proxy takes a request's exact token totals on a compression worker while the
upstream answers (issue 34), not on the event loop and not before the request goes out."""

from __future__ import annotations

import asyncio
import threading
from concurrent.futures import ThreadPoolExecutor
from types import SimpleNamespace

from headroom.pipeline import PipelineResult
from headroom.proxy.forward import _count_meanwhile, _counted


def test_totals_are_counted_on_a_worker_thread():
    threads: list[str] = []

    def totals():
        threads.append(threading.current_thread().name)
        return 120, 30

    result = PipelineResult(None, {}, "openai_chat", totals)  # type: ignore[arg-type]
    pool = ThreadPoolExecutor(1, thread_name_prefix="compress")
    state = SimpleNamespace(compress_pool=pool)

    async def run():
        pending = _count_meanwhile(state, SimpleNamespace(result=result))  # type: ignore[arg-type]
        await _counted(pending)
        return threading.current_thread().name

    try:
        loop_thread = asyncio.run(run())
    finally:
        pool.shutdown()
    assert threads and threads[0].startswith("compress") and threads[0] != loop_thread
    assert (result.tokens_before, result.tokens_after) == (120, 30) and len(threads) == 1


def test_a_stopped_pool_leaves_the_totals_to_the_first_read():
    result = PipelineResult(None, {}, "openai_chat", lambda: (7, 3))  # type: ignore[arg-type]
    pool = ThreadPoolExecutor(1)
    pool.shutdown()

    async def run():
        return _count_meanwhile(SimpleNamespace(compress_pool=pool), SimpleNamespace(result=result))  # type: ignore[arg-type]

    assert asyncio.run(run()) is None
    assert result.tokens_saved == 4


def test_no_result_nothing_to_count():
    async def run():
        return _count_meanwhile(SimpleNamespace(compress_pool=None), SimpleNamespace(result=None))  # type: ignore[arg-type]

    assert asyncio.run(run()) is None
