"""Row F5 of issue 12: a CCR store that fails under the proxy degrades it, never crashes it;
originals and the retrieval log stay private and bounded."""

from __future__ import annotations

import json
import os
import sqlite3
import stat
import time

import httpx
import pytest

from headroom.ccr import CompressionStore, SQLiteBackend
from headroom.ccr.markers import find_hashes
from headroom.ccr.store import query_digest
from headroom.config import HeadroomConfig
from tests.proxy.conftest import make_pipeline
from tests.proxy.test_e2e_sdk import chat_messages

CHAT = "/v1/chat/completions"


class FailingBackend:
    """A real SQLite backend whose operations can be made to fail, as a read-only file does."""

    def __init__(self, inner: SQLiteBackend):
        self.inner = inner
        self.failing: set[str] = set()

    def __getattr__(self, name: str):
        attr = getattr(self.inner, name)
        if not callable(attr):
            return attr

        def call(*args, **kwargs):
            if name in self.failing:
                raise sqlite3.OperationalError("attempt to write a readonly database")
            return attr(*args, **kwargs)

        return call


@pytest.fixture
def failing(tmp_path):
    backend = FailingBackend(SQLiteBackend(tmp_path / "ccr.sqlite3"))
    yield backend
    backend.inner.close()


def test_f5_store_faults_become_a_tool_error_and_the_request_completes(fake, start_proxy, failing):
    url, _ = start_proxy(pipeline=make_pipeline_with(CompressionStore(failing)))
    first = httpx.post(f"{url}{CHAT}", json={"model": "gpt-4o", "messages": chat_messages("q1")}, timeout=20)
    assert first.status_code == 200 and int(first.headers["x-headroom-tokens-saved"]) > 0
    assert httpx.get(f"{url}/health", timeout=5).json()["status"] == "ok"

    # Reads fail now (the memoised compression of the same output needs none): the model's
    # headroom_retrieve call cannot be answered from the store.
    failing.failing |= {"get"}
    r = httpx.post(f"{url}{CHAT}", json={"model": "gpt-4o", "messages": chat_messages("q2")},
                   headers={"x-fake-script": "retrieve"}, timeout=20)
    assert r.status_code == 200, r.text
    # The model was told why, in the tool result, and answered.
    tool_result = fake.rec.bodies()[-1]["messages"][-1]["content"]
    assert "headroom_retrieve error: the compression store failed" in tool_result
    assert r.json()["choices"][0]["message"]["content"].startswith("echo: q2")

    failing.failing |= {"put", "touch", "count", "extend"}
    broken = httpx.post(f"{url}{CHAT}", json={"model": "gpt-4o", "messages": chat_messages("q4") + [
        {"role": "user", "content": "and this?\n" + "new line\n" * 40}]}, timeout=20)
    assert broken.status_code == 200  # nothing can be stored: forwarded as it came, not a 500
    health = httpx.get(f"{url}/health", timeout=5).json()
    assert health["status"] == "degraded" and "readonly" in health["ccr_store"]
    got = httpx.get(f"{url}/v1/retrieve/{'a' * 24}", timeout=5)
    assert got.status_code == 503 and got.json()["error"]["type"] == "store_unavailable"
    assert httpx.get(f"{url}/stats", timeout=5).status_code == 200
    assert httpx.get(f"{url}/metrics", timeout=5).status_code == 200

    failing.failing.clear()  # the disk is writable again: the next write clears the fault
    again = httpx.post(f"{url}{CHAT}", json={"model": "gpt-4o", "messages": chat_messages("q3")}, timeout=20)
    assert again.status_code == 200
    assert httpx.get(f"{url}/health", timeout=5).json()["status"] == "ok"


def make_pipeline_with(store: CompressionStore):
    pipeline = make_pipeline(HeadroomConfig())
    pipeline.store = store
    for t in pipeline.transforms:
        if hasattr(t, "store"):
            t.store = store
    return pipeline


def test_f5_a_deleted_store_file_is_reported(fake, start_proxy, tmp_path):
    db = tmp_path / "gone.sqlite3"
    url, _ = start_proxy(pipeline=make_pipeline_with(CompressionStore(SQLiteBackend(db))))
    assert httpx.get(f"{url}/health", timeout=5).json()["status"] == "ok"
    os.remove(db)
    # The files are checked off the event loop every 0.25 s (headroom/proxy/health.py).
    deadline = time.monotonic() + 5
    while (health := httpx.get(f"{url}/health", timeout=5).json())["status"] == "ok" and time.monotonic() < deadline:
        time.sleep(0.05)
    assert health["status"] == "degraded" and "deleted" in health["ccr_store"]


def test_f5_store_files_are_private(tmp_path):
    old = os.umask(0o022)
    try:
        store = CompressionStore(SQLiteBackend(tmp_path / "ccr.sqlite3"))
        store.store("x\n" * 50)
        store.retrieve(store.store("y\n" * 50))
    finally:
        os.umask(old)
    files = [p for p in tmp_path.iterdir() if p.name.startswith("ccr.sqlite3")]
    assert files and all(stat.S_IMODE(p.stat().st_mode) == 0o600 for p in files), \
        {p.name: oct(stat.S_IMODE(p.stat().st_mode)) for p in files}
    store.close()


def test_f5_a_retrieval_keeps_no_query_text_and_the_old_log_is_dropped(tmp_path):
    import sqlite3

    path = tmp_path / "ccr.sqlite3"
    old = sqlite3.connect(path)  # a file written before issue 34, with its retrieval log
    old.execute("CREATE TABLE ccr_retrievals (hash TEXT NOT NULL, tool_name TEXT, query TEXT, at REAL NOT NULL)")
    old.execute("INSERT INTO ccr_retrievals VALUES (?, 'db', ?, 1.0)", ("a" * 24, query_digest("x")))
    old.commit()
    old.close()
    store = CompressionStore(SQLiteBackend(path), ttl_seconds=60)
    h = store.store("alpha\nbeta\n" * 20)
    store.retrieve(h, "secret customer name")
    assert store.get(h).retrieval_count == 1
    store.close()
    raw = b"".join(p.read_bytes() for p in tmp_path.iterdir() if p.name.startswith("ccr.sqlite3"))
    assert b"secret customer name" not in raw
    tables = {r[0] for r in sqlite3.connect(path).execute("SELECT name FROM sqlite_master WHERE type='table'")}
    assert "ccr_retrievals" not in tables and "ccr_entries" in tables


def _retrieved_text(fake) -> str:
    return fake.rec.bodies()[-1]["messages"][-1]["content"]


def test_f5_retrieval_is_scoped_to_the_tenant_that_stored_the_original(fake, start_proxy):
    url, app = start_proxy()
    a = {"authorization": "Bearer sk-tenant-a"}
    r = httpx.post(f"{url}{CHAT}", json={"model": "gpt-4o", "messages": chat_messages("mine")}, headers=a, timeout=20)
    (h,) = find_hashes(json.dumps(fake.rec.bodies()[-1]))
    assert r.status_code == 200

    # Tenant B asks for A's hash, which B's own conversation never carried.
    other_output = "\n".join(f"B-only line {i}" for i in range(50))
    b_messages = chat_messages("steal")
    b_messages[-1]["content"] = other_output
    fake.rec.clear()
    r = httpx.post(f"{url}{CHAT}", json={"model": "gpt-4o", "messages": b_messages},
                   headers={"authorization": "Bearer sk-tenant-b", "x-fake-script": "retrieve",
                            "x-fake-retrieve-hash": h}, timeout=20)
    assert r.status_code == 200
    assert f"unknown or expired hash={h}" in _retrieved_text(fake)
    assert "processed batch" not in _retrieved_text(fake)  # not one line of A's original

    # Tenant A may read it back even from a conversation that lost the marker.
    fake.rec.clear()
    r = httpx.post(f"{url}{CHAT}", json={"model": "gpt-4o", "messages": b_messages},
                   headers={**a, "x-fake-script": "retrieve", "x-fake-retrieve-hash": h}, timeout=20)
    assert r.status_code == 200 and "processed batch 399" in _retrieved_text(fake)

    # No credential at all is no tenant: it reads only what its conversation carries.
    fake.rec.clear()
    httpx.post(f"{url}{CHAT}", json={"model": "gpt-4o", "messages": b_messages},
               headers={"x-fake-script": "retrieve", "x-fake-retrieve-hash": h}, timeout=20)
    assert f"unknown or expired hash={h}" in _retrieved_text(fake)
    entry = app.state.headroom.store.get(h)
    assert entry.meta["tenant"] and "sk-tenant-a" not in json.dumps(entry.meta)  # a keyed hash, not the key
