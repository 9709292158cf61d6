"""A compressor spinning in pure Python past its deadline is stopped, not left running.

Before, an overdue call kept its thread (and a share of the GIL) until it ended, and the
deadline tests used sleeping compressors, which release the GIL; these spin.
"""

from __future__ import annotations

import threading
import time

import pytest

from headroom.compressors.base import CompressInput
from headroom.compressors.detect import ContentType
from headroom.config import HeadroomConfig, RouterConfig
from headroom.pipeline import Pipeline
from headroom.transforms import deadline
from headroom.transforms.router import ContentRouter


@pytest.fixture(autouse=True)
def _no_stragglers():
    t0 = time.monotonic()
    while deadline.stragglers() and time.monotonic() - t0 < 15:
        time.sleep(0.02)


class Spinner:
    """Counts forever in Python (no I/O, no sleep: never releases the GIL on its own)."""

    name = "spinner"

    def __init__(self) -> None:
        self.spins = 0
        self.stopped = threading.Event()
        self.swallowed = 0

    def compress(self, inp: CompressInput):
        try:
            while True:
                try:
                    self.spins += 1
                except Exception:  # noqa: BLE001 - a compressor's broad handler must not swallow the stop
                    self.swallowed += 1
        finally:
            self.stopped.set()


def _stopped_within(spinner: Spinner, seconds: float) -> bool:
    return spinner.stopped.wait(seconds)


def test_an_overdue_spinning_call_is_stopped():
    spinner = Spinner()
    t0 = time.monotonic()
    got = deadline.run_with_deadline(spinner.compress, None, 50)
    waited = time.monotonic() - t0
    assert isinstance(got, str) and got.startswith("timed out")
    assert waited < 2.0  # the caller is not held by the spinning thread
    assert _stopped_within(spinner, 5), "the spinning call kept running"
    spins = spinner.spins
    time.sleep(0.1)
    assert spinner.spins == spins and spinner.swallowed == 0
    t0 = time.monotonic()
    while deadline.stragglers() and time.monotonic() - t0 < 2:
        time.sleep(0.01)
    assert deadline.stragglers() == 0


def test_a_call_in_time_is_never_interrupted_and_its_thread_serves_the_next():
    for _ in range(200):
        assert deadline.run_with_deadline(lambda x: sum(range(x)), 1000, 5000) == 499500
    spinner = Spinner()
    deadline.run_with_deadline(spinner.compress, None, 20)
    assert _stopped_within(spinner, 5)
    # The worker that was interrupted is reusable: later calls still give their results.
    for _ in range(50):
        assert deadline.run_with_deadline(lambda x: x * 2, 21, 5000) == 42


def test_the_router_forwards_the_block_unchanged_and_the_process_gets_its_core_back():
    spinner = Spinner()
    config = HeadroomConfig(router=RouterConfig(timeout_ms=100))
    pipeline = Pipeline(config, transforms=[ContentRouter(compressors={ct: spinner for ct in ContentType})])
    text = "\n".join(f"2024-05-01 12:00:{i % 60:02d} INFO worker {i} finished job {i * 7}" for i in range(300))
    body = {"model": "gpt-4o", "messages": [{"role": "user", "content": "summarise"},
                                            {"role": "tool", "tool_call_id": "t", "content": text}]}
    result = pipeline.compress_body(body, "openai_chat")
    assert result.body["messages"][1]["content"] == text  # the block goes on unchanged
    assert _stopped_within(spinner, 5)
    # A CPU-bound loop in this thread now runs at full speed: no spinner shares the GIL.
    t0 = time.process_time()
    n = sum(1 for _ in range(2_000_000))
    assert n == 2_000_000
    spins = spinner.spins
    time.sleep(0.05)
    assert spinner.spins == spins, f"still spinning after {time.process_time() - t0:.2f}s"
