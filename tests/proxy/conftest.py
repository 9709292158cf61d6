"""Shared fixtures: a loopback fake provider, proxies under uvicorn, a deterministic pipeline."""

from __future__ import annotations

import os
import sys
from collections.abc import Iterator
from contextlib import ExitStack
from typing import Any

import pytest

sys.path.insert(0, os.path.dirname(__file__))

from tests.proxy.proxy_fakes import Recorder, ServerThread, make_fake_upstream

from headroom.ccr.store import CompressionStore
from headroom.config import HeadroomConfig
from headroom.pipeline import Pipeline
from headroom.proxy import ProxyConfig, create_app
from headroom.compressors.base import Compressed, CompressInput
from headroom.compressors.detect import ContentType
from headroom.transforms.router import ContentRouter


class HeadLines:
    """Keeps the first 5 lines: lossy, predictable, and enough to exercise CCR end to end."""

    name = "head_lines"

    def compress(self, inp: CompressInput) -> Compressed | None:
        lines = inp.text.splitlines()
        if len(lines) <= 5:
            return None
        return Compressed("\n".join(lines[:5]), len(lines), 5, "head", lossy=True, summary="first 5 lines kept")


def make_pipeline(config: HeadroomConfig | None = None) -> Pipeline:
    return Pipeline(config or HeadroomConfig(), store=CompressionStore(),
                    transforms=[ContentRouter(compressors={ct: HeadLines() for ct in ContentType})])


def wait_for(check, timeout: float = 5.0) -> None:
    """Wait until ``check()`` is true: a streamed request is booked after its last byte is sent."""
    import time

    deadline = time.monotonic() + timeout
    while not check():
        if time.monotonic() > deadline:
            raise AssertionError("condition not met in time")
        time.sleep(0.01)


class Fake:
    def __init__(self, url: str, rec: Recorder):
        self.url, self.rec = url, rec


@pytest.fixture(scope="session")
def _fake_server() -> Iterator[tuple[str, Recorder]]:
    app, rec = make_fake_upstream()
    with ServerThread(app) as server:
        yield server.url, rec


@pytest.fixture
def fake(_fake_server) -> Fake:
    url, rec = _fake_server
    rec.clear()
    return Fake(url, rec)


@pytest.fixture
def start_proxy(fake: Fake, tmp_path) -> Iterator[Any]:
    """start_proxy(pipeline=None, **ProxyConfig fields) -> (base url, app)."""
    with ExitStack() as stack:

        def start(pipeline: Pipeline | None = None, headroom_config: HeadroomConfig | None = None, **overrides: Any):
            fields = {"openai_api_url": fake.url, "anthropic_api_url": fake.url, "metrics_db": str(tmp_path / "metrics.db")}
            fields.update(overrides)
            if pipeline is None and headroom_config is None:
                pipeline = make_pipeline()
            app = create_app(ProxyConfig(**fields), headroom_config, pipeline=pipeline)
            server = stack.enter_context(ServerThread(app))
            return server.url, app

        yield start
