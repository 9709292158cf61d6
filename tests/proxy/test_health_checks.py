"""/health answers from checks made off the event loop (headroom/proxy/health.py): the
handler makes no system call, the store's files and the OCR service still show."""

from __future__ import annotations

import json
import os
import threading

import httpx

from headroom.ccr import CompressionStore, SQLiteBackend
from headroom.image.ocr_service import ENV_SOCKET, STATUS_NAME
from headroom.proxy.health import HealthChecks
from tests.proxy.conftest import make_pipeline, wait_for


def test_the_handler_never_checks_files_itself(start_proxy, tmp_path, monkeypatch):
    backend = SQLiteBackend(tmp_path / "ccr.sqlite3")
    callers: list[str] = []
    real = backend.problem

    def recording_problem():
        callers.append(threading.current_thread().name)
        return real()

    monkeypatch.setattr(backend, "problem", recording_problem)
    pipeline = make_pipeline()
    pipeline.store = CompressionStore(backend)
    url, _ = start_proxy(pipeline=pipeline)
    for _ in range(20):
        assert httpx.get(f"{url}/health", timeout=5).json()["status"] == "ok"
    assert callers and set(callers) <= {"headroom-health", threading.current_thread().name}, set(callers)
    # The first check runs when the app is built (this thread), the rest in the checker.
    assert callers.count(threading.current_thread().name) == 1


def test_store_files_and_faults_show(tmp_path):
    db = tmp_path / "ccr.sqlite3"
    store = CompressionStore(SQLiteBackend(db))
    checks = HealthChecks(store, refresh_s=0.02)
    try:
        assert checks.current_store_problem() is None
        store.fault = "put failed: disk I/O error"  # recorded by a failed write: shown at once
        assert checks.current_store_problem() == "put failed: disk I/O error"
        store.fault = None
        os.remove(db)
        wait_for(lambda: "deleted" in (checks.current_store_problem() or ""), timeout=5)
    finally:
        checks.close()


def test_an_ocr_service_that_failed_makes_health_degraded(start_proxy, tmp_path, monkeypatch):
    socket_path = tmp_path / "ocr.sock"
    (tmp_path / STATUS_NAME).write_text(json.dumps({"state": "failed", "error": "crashed 6 times in 60 s"}))
    monkeypatch.setenv(ENV_SOCKET, str(socket_path))
    url, _ = start_proxy()
    health = httpx.get(f"{url}/health", timeout=5).json()
    assert health["status"] == "degraded" and "crashed 6 times" in health["warm_up_failed"]["ocr"]
    (tmp_path / STATUS_NAME).write_text(json.dumps({"state": "unavailable", "error": "rapidocr is not installed"}))
    wait_for(lambda: "ocr" in httpx.get(f"{url}/health", timeout=5).json().get("unavailable", {}))
    health = httpx.get(f"{url}/health", timeout=5).json()
    assert health["status"] == "ok" and "not installed" in health["unavailable"]["ocr"]
