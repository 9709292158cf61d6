"""/v1/compress, /v1/retrieve*, /health, /stats, /metrics and the SQLite metrics rows."""

from __future__ import annotations

import httpx
import pytest
from tests.proxy.conftest import wait_for
from test_e2e_sdk import BIG, chat_messages, last_tool_text, oa

from headroom.ccr.markers import find_hashes
from headroom.metrics import MetricsStore

CHAT = "/v1/chat/completions"


def test_compress_then_retrieve(fake, start_proxy):
    url, _ = start_proxy()
    r = httpx.post(f"{url}/v1/compress", json={"model": "gpt-4o", "messages": chat_messages()})
    data = r.json()
    assert r.status_code == 200 and data["format"] == "openai_chat"
    assert data["tokens_saved"] == data["tokens_before"] - data["tokens_after"] > 0
    [h] = data["ccr_hashes"]
    assert find_hashes(last_tool_text(CHAT, data["body"])) == [h]
    assert any(d["action"] == "compressed" for d in data["decisions"])
    got = httpx.get(f"{url}/v1/retrieve/{h}").json()
    assert got["content"] == BIG and got["full"] is True
    q = httpx.post(f"{url}/v1/retrieve", json={"hash": h, "query": "batch 123"}).json()
    assert q["full"] is False and "processed batch 123 " in q["content"]
    assert httpx.get(f"{url}/v1/retrieve/{'f' * 24}").status_code == 404
    assert httpx.post(f"{url}/v1/retrieve", json={"query": "x"}).status_code == 400
    stats = httpx.get(f"{url}/v1/retrieve/stats").json()
    assert stats["entries"] == 1 and stats["retrieve_hits"] == 2 and stats["retrieve_misses"] == 1
    assert fake.rec.requests == []  # nothing went upstream


def test_health(start_proxy):
    url, _ = start_proxy(mode="audit")
    assert httpx.get(f"{url}/health").json()["mode"] == "audit"


def test_stats_metrics_and_sqlite_rows(fake, start_proxy, tmp_path):
    db = str(tmp_path / "rows.db")
    url, _ = start_proxy(metrics_db=db)
    client = oa(url)
    client.chat.completions.create(model="gpt-4o", messages=chat_messages())
    for _ in client.chat.completions.create(model="gpt-4o", messages=chat_messages(), stream=True):
        pass
    client.chat.completions.create(model="gpt-4o", messages=chat_messages(), extra_headers={"x-headroom-bypass": "1"})
    wait_for(lambda: httpx.get(f"{url}/stats").json()["requests"]["total"] == 3)
    stats = httpx.get(f"{url}/stats").json()
    assert stats["requests"]["by_api"] == {"openai_chat": 3} and stats["requests"]["bypassed"] == 1
    tokens = stats["tokens"]
    assert tokens["saved"] == tokens["before"] - tokens["after"] > 0
    assert sum(stats["by_transform"].values()) == tokens["saved"]
    assert stats["ccr_store"]["entries"] == 1 and stats["latency"]["count"] == 3

    text = httpx.get(f"{url}/metrics").text
    assert '# TYPE headroom_requests_total counter' in text
    assert 'headroom_requests_total{api="openai_chat",mode="optimize",status="200"} 2' in text
    assert f"headroom_tokens_saved_total {tokens['saved']}" in text
    assert 'headroom_request_latency_ms_bucket{le="+Inf"} 3' in text
    assert "headroom_ccr_entries 1" in text

    store = MetricsStore(db)
    wait_for(lambda: len(store.query()) == 3)
    rows = sorted(store.query(), key=lambda r: r.timestamp)
    assert [r.stream for r in rows] == [False, True, False]
    assert [r.mode for r in rows] == ["optimize", "optimize", "passthrough"]
    assert rows[0].tokens_saved > 0 and rows[0].provider == "openai" and rows[0].model == "gpt-4o"
    assert rows[0].status_code == 200 and rows[0].output_tokens == 5 and rows[0].ccr_hashes
    assert rows[0].transforms_applied == ["content_router:head_lines:head"]
    store.close()


def test_feedback_sees_retrievals_the_proxy_answered(fake, start_proxy):
    url, _ = start_proxy()
    oa(url).chat.completions.create(model="gpt-4o", messages=chat_messages(), extra_headers={"x-fake-script": "retrieve"})
    summary = httpx.get(f"{url}/v1/feedback").json()
    assert summary["tools"]["read_logs"]["retrieved"] == 1
    tool = httpx.get(f"{url}/v1/feedback/read_logs").json()
    assert tool["retrieval_rate"] == 1.0 and tool["aggressiveness"] < 0.5
    assert httpx.get(f"{url}/v1/feedback/never_seen_tool").status_code == 404


def test_default_pipeline_sqlite_store_survives_a_restart(fake, start_proxy, tmp_path):
    from headroom.ccr.backends import SQLiteBackend
    from headroom.config import CCRConfig, HeadroomConfig

    hc = HeadroomConfig(ccr=CCRConfig(backend="sqlite", sqlite_path=str(tmp_path / "ccr.sqlite3")))
    url, app = start_proxy(headroom_config=hc)
    state = app.state.headroom
    assert isinstance(state.store.backend, SQLiteBackend)
    assert state.feedback is not None and state.pipeline._hints == state.feedback.hints  # feedback feeds hints
    data = httpx.post(f"{url}/v1/compress", json={"model": "gpt-4o", "messages": chat_messages()}).json()
    assert data["tokens_saved"] > 0
    hashes = data["ccr_hashes"]
    assert hashes
    url2, _ = start_proxy(headroom_config=hc)  # a second proxy on the same file: a restart
    for h in hashes:
        assert httpx.get(f"{url2}/v1/retrieve/{h}").json()["content"] == BIG


def test_retrieve_answers_in_the_documented_shape(start_proxy):
    """DESIGN §4: full -> hash, original_content, original_item_count, tool_name;
    with a query -> hash, query, results, count (issue 13, bug 4)."""
    url, _ = start_proxy()
    [h] = httpx.post(f"{url}/v1/compress", json={"model": "gpt-4o", "messages": chat_messages()}).json()["ccr_hashes"]
    for full in (httpx.get(f"{url}/v1/retrieve/{h}").json(), httpx.post(f"{url}/v1/retrieve", json={"hash": h}).json()):
        assert full["hash"] == h and full["original_content"] == BIG
        assert full["original_item_count"] == 400 and full["tool_name"] == "read_logs"
    q = httpx.post(f"{url}/v1/retrieve", json={"hash": h, "query": "batch 123"}).json()
    assert q["hash"] == h and q["query"] == "batch 123"
    assert q["count"] == len(q["results"]) >= 1 and any("processed batch 123 " in r for r in q["results"])
    assert q == httpx.get(f"{url}/v1/retrieve/{h}", params={"query": "batch 123"}).json()


def test_proxy_metrics_rows_carry_the_cost_saved(fake, start_proxy, tmp_path):
    """`headroom report` on a proxy's database shows money saved, not $0 (issue 13, bug 8)."""
    from headroom.providers import OpenAIProvider

    db = str(tmp_path / "cost.db")
    url, _ = start_proxy(metrics_db=db)
    oa(url).chat.completions.create(model="gpt-4o", messages=chat_messages())
    store = MetricsStore(db)
    wait_for(lambda: len(store.query()) == 1)
    [row] = store.query()
    assert row.tokens_saved > 0
    assert row.cost_saved_usd == pytest.approx(OpenAIProvider().savings_usd("gpt-4o", row.tokens_saved))
    assert row.cost_saved_usd > 0
    store.close()
