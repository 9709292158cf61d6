"""retrieve(): a KeyError naming the hash and TTL, query results that say what matched."""

from __future__ import annotations

import json

import pytest

from headroom import (
    CompressionStore,
    HeadroomConfig,
    QueryResult,
    RetrievalNotFound,
    compress,
    retrieve,
)


def _rows(n: int = 300) -> str:
    return json.dumps([{"order": f"ORD-{80000 + i}", "status": "ok" if i != 231 else "failed", "ms": 30 + i % 9}
                       for i in range(n)])


def _body(text: str) -> list[dict]:
    return [{"role": "user", "content": "how are the orders?"},
            {"role": "assistant", "content": None, "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "orders", "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": "c1", "content": text}]


@pytest.fixture
def stored():
    store = CompressionStore(ttl_seconds=900)
    h = store.store(_rows(), tool_name="orders", item_count=300)
    return store, h


def test_unknown_hash_raises_a_keyerror_naming_hash_and_ttl(stored):
    store, _ = stored
    with pytest.raises(KeyError) as info:
        retrieve("feedfacefeedfacefeedface", store=store)
    assert isinstance(info.value, RetrievalNotFound)
    text = str(info.value)
    assert "feedfacefeedfacefeedface" in text and "900 s" in text and "HEADROOM_CCR_TTL_SECONDS" in text


def test_expired_hash_raises_too():
    now = [1000.0]
    store = CompressionStore(ttl_seconds=60, clock=lambda: now[0])
    h = store.store("x" * 50)
    assert retrieve(h, store=store).content == "x" * 50
    now[0] += 61
    with pytest.raises(RetrievalNotFound, match="60 s"):
        retrieve(h, store=store)


def test_a_query_says_how_many_items_matched(stored):
    store, h = stored
    found = retrieve(h, query="ORD-80231", store=store)
    assert isinstance(found, QueryResult) and not found.no_match and not found.full
    assert found.matches == 1 == len(found.results) and "ORD-80231" in found.content
    assert found.item_count == 300 and found.query == "ORD-80231"


def test_no_match_is_a_marked_empty_result_unless_the_original_is_asked_for(stored):
    store, h = stored
    empty = retrieve(h, query="kubernetes pod", store=store)
    assert empty.no_match and empty.matches == 0 and empty.results == [] and empty.content == "" and not empty.full
    whole = retrieve(h, query="kubernetes pod", store=store, if_no_match="original")
    assert whole.no_match and whole.full and whole.content == _rows()
    with pytest.raises(ValueError, match="if_no_match"):
        retrieve(h, query="x", store=store, if_no_match="all")


def test_without_a_query_the_exact_original(stored):
    store, h = stored
    found = retrieve(h, store=store)
    assert found.full and found.content == _rows() and not isinstance(found, QueryResult)


def test_through_compress_and_the_default_stores():
    cfg = HeadroomConfig(ccr={"store_ttl_seconds": 1234})
    r = compress(_body(_rows()), config=cfg)
    [h] = r.ccr_hashes
    assert retrieve(h).content == _rows()
    assert retrieve(h, query="ORD-80231").matches == 1
    with pytest.raises(RetrievalNotFound, match="1234 s"):
        retrieve("0" * 24, config=cfg)
