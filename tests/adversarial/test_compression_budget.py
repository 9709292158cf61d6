"""Slow compressors cannot starve later blocks or stall the proxy (issue 12, "a code read")."""

from __future__ import annotations

import threading
import time

import httpx

from headroom.ccr.store import CompressionStore
from headroom.compressors.detect import ContentType
from headroom.config import HeadroomConfig, RouterConfig
from headroom.pipeline import Pipeline
from headroom.transforms import deadline
from headroom.transforms.router import ContentRouter
from tests.adversarial.hostile import HealthProbe
from tests.proxy.conftest import HeadLines


class StuckOnSlow(HeadLines):
    """Hangs (for ``seconds``) on outputs that say SLOW, like a compressor on a hostile input."""

    def __init__(self, seconds: float):
        self.seconds = seconds

    def compress(self, inp):
        if "SLOW" in inp.text:
            end = time.monotonic() + self.seconds
            while time.monotonic() < end:
                time.sleep(0.01)
        return super().compress(inp)


def _pipeline(seconds: float, timeout_ms: int = 200) -> Pipeline:
    return Pipeline(HeadroomConfig(router=RouterConfig(timeout_ms=timeout_ms)), store=CompressionStore(),
                    transforms=[ContentRouter(compressors={ct: StuckOnSlow(seconds) for ct in ContentType})])


def _body(outputs: list[str]) -> dict:
    messages: list[dict] = [{"role": "user", "content": "what happened?"}]
    for k, text in enumerate(outputs):
        messages.append({"role": "assistant", "content": None, "tool_calls": [
            {"id": f"c{k}", "type": "function", "function": {"name": "read", "arguments": "{}"}}]})
        messages.append({"role": "tool", "tool_call_id": f"c{k}", "content": text})
    return {"model": "gpt-4o", "messages": messages}


def _lines(tag: str) -> str:
    return "\n".join(f"{tag} line {i} of the output" for i in range(40))


def test_slow_blocks_do_not_make_later_blocks_time_out():
    # Five stuck blocks used to occupy the 4 shared workers: the last, fast block then
    # waited its whole deadline in the queue and went through uncompressed.
    pipeline = _pipeline(seconds=3)
    result = pipeline.compress_body(_body([_lines(f"SLOW {k}") for k in range(5)] + [_lines("fast")]))
    by_index = {d.message_index: d for d in result.decisions if d.transform == "content_router"}
    assert by_index[12].action == "compressed", by_index[12]
    assert all("timed out" in by_index[2 * k + 2].reason for k in range(5))
    assert result.duration_ms < 5 * 200 + 1500  # each stuck block cost its deadline, no more


def test_the_request_budget_bounds_the_whole_run():
    pipeline = _pipeline(seconds=2, timeout_ms=400)
    t0 = time.perf_counter()
    result = pipeline.compress_body(_body([_lines(f"SLOW {k}") for k in range(10)]), budget_s=1.0)
    assert time.perf_counter() - t0 < 1.8  # ten blocks x 400 ms would be 4 s
    reasons = [d.reason for d in result.decisions if d.transform == "content_router"]
    assert any("budget is spent" in r for r in reasons), reasons


def _drain(timeout: float = 10) -> None:
    t0 = time.monotonic()
    while deadline.stragglers() and time.monotonic() - t0 < timeout:
        time.sleep(0.02)


def test_stragglers_are_capped():
    _drain()  # earlier tests' stuck calls finish by themselves
    before = deadline.stragglers()
    release = threading.Event()
    # 100 ms, not 1: a call its caller gave up on before it started never runs (and is no
    # straggler), so on a loaded machine a 1 ms deadline left fewer stragglers than the cap.
    # release.wait blocks in C, so the overdue calls stay stuck past their deadline.
    for _ in range(deadline.MAX_STRAGGLERS + 2):
        deadline.run_with_deadline(lambda _: release.wait(10), None, 100)
    assert deadline.stragglers() <= max(before, deadline.MAX_STRAGGLERS)
    refused = deadline.run_with_deadline(lambda _: "ran", None, 100)
    assert isinstance(refused, str) and refused.startswith("skipped")
    release.set()
    _drain()
    assert deadline.run_with_deadline(lambda _: "ran", None, 1000) == "ran"


def test_health_answers_while_stuck_compressions_run(fake, start_proxy):
    url, _ = start_proxy(pipeline=_pipeline(seconds=2), compression_timeout_s=1.0)
    body = _body([_lines(f"SLOW {k}") for k in range(4)])
    statuses: list[int] = []

    def hostile() -> None:
        statuses.append(httpx.post(f"{url}/v1/chat/completions", json=body, timeout=30).status_code)

    with HealthProbe(url) as probe:
        workers = [threading.Thread(target=hostile) for _ in range(6)]
        for w in workers:
            w.start()
        for w in workers:
            w.join(timeout=20)
    assert statuses == [200] * 6
    probe.assert_responsive()
