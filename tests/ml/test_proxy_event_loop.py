"""The proxy keeps serving while LLMLingua-2 compresses (inference runs off the event loop)."""

import asyncio
import time

import httpx
import pytest

from headroom.ccr.store import CompressionStore
from headroom.config import HeadroomConfig, LLMLinguaConfig, RouterConfig
from headroom.pipeline import Pipeline

PROSE = ("The team spent most of the afternoon discussing whether the migration should wait until after "
         "the holidays, and in the end everyone agreed that waiting was the safer choice for customers. ")


@pytest.mark.slow
def test_health_answers_while_compress_runs(tiny_xlm_dir, ml_device):
    fastapi = pytest.importorskip("fastapi")  # noqa: F841
    from headroom.proxy.app import create_app
    from headroom.proxy.config import ProxyConfig

    cfg = HeadroomConfig(llmlingua=LLMLinguaConfig(enabled=True, device=ml_device, model_path=str(tiny_xlm_dir),
                                                   min_tokens=50, timeout_ms=120_000),
                         router=RouterConfig(timeout_ms=120_000))
    pipeline = Pipeline(cfg, store=CompressionStore())
    app = create_app(ProxyConfig(metrics_db=None, compression_timeout_s=300), pipeline=pipeline)
    body = {"model": "gpt-4o", "messages": [
        {"role": "user", "content": "Summarise the discussion."},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "read_notes", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": PROSE * 80},
        {"role": "user", "content": "What did they decide?"},
    ]}

    async def scenario():
        transport = httpx.ASGITransport(app=app)
        async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1:8787") as client:
            served: list[tuple[float, float]] = []
            start = time.perf_counter()
            task = asyncio.create_task(client.post("/v1/compress", json=body))
            while not task.done():
                t0 = time.perf_counter()
                r = await client.get("/health")
                assert r.status_code == 200
                served.append((t0, time.perf_counter()))
                await asyncio.sleep(0.01)
            resp = await task
            return resp, served, start, time.perf_counter()

    resp, served, start, end = asyncio.run(scenario())
    assert resp.status_code == 200
    data = resp.json()
    assert any((d.get("strategy") or "").startswith("llmlingua2:") for d in data["decisions"]), data["decisions"]
    assert data["tokens_saved"] > 0
    during = [(a, b) for a, b in served if b < end]
    # The compression took a while, and /health kept answering throughout it, promptly.
    # A blocked loop would answer /health once, after the compression finished.
    assert len(during) >= 3
    assert max(b - a for a, b in during) < max(1.0, (end - start) / 2)
