"""The router reports compressions and questions, the CCR store reports retrievals."""

from __future__ import annotations

import json

from headroom.ccr.store import CompressionStore
from headroom.config import HeadroomConfig, ToinConfig
from headroom.pipeline import Pipeline
from headroom.toin import MemoryToinBackend, Toin

from .test_signature import rows


def body(output: str, question: str) -> dict:
    return {"model": "gpt-4o", "messages": [
        {"role": "user", "content": "check the orders"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "list_orders", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": output},
        {"role": "user", "content": question},
    ]}


def pipeline(**toin_cfg) -> Pipeline:
    cfg = HeadroomConfig(toin=ToinConfig(flush_seconds=0, refresh_seconds=0, **toin_cfg))
    toin = Toin(MemoryToinBackend(), cfg.toin)
    return Pipeline(cfg, store=CompressionStore(), toin=toin)


def big_output(offset: int = 0) -> str:
    return json.dumps([{**r, "owner": f"team-{i % 7}", "region": ["eu", "us", "ap"][i % 3]}
                       for i, r in enumerate(rows(300, offset))], indent=2)


def test_compression_question_and_retrieval_are_observed():
    p = pipeline()
    out = big_output()
    r = p.compress_body(body(out, "summary please"), "openai_chat")
    (d,) = [d for d in r.decisions if d.action == "compressed"]
    assert d.ccr_hash and p.store.get(d.ccr_hash).meta["toin"]
    sig = p.store.get(d.ccr_hash).meta["toin"]
    # A later turn asks about a field: a memo hit, counted as a question naming "amount".
    p.compress_body(body(out, "which order has the highest amount?"), "openai_chat")
    got = p.store.retrieve(d.ccr_hash, "ORD-17")
    assert got is not None and not got.full
    pat = p.toin.pattern(sig, fresh=True)
    prof = p.toin.profile(json.loads(out), "json_array", "list_orders")
    assert pat.compressed == 1 and pat.retrieved == 1 and pat.retrievals_query == 1
    assert pat.fields[prof.fields["amount"].hash].named == 1  # the later question
    assert pat.fields[prof.fields["id"].hash].named == 1  # the retrieval query, by value
    p.store.retrieve(d.ccr_hash)
    pat = p.toin.pattern(sig, fresh=True)
    assert pat.retrieved == 1 and pat.whole == 1 and pat.retrievals_full == 1


def test_unrecorded_retrievals_are_not_observed():
    p = pipeline()
    r = p.compress_body(body(big_output(), "summary"), "openai_chat")
    h = r.ccr_hashes[0]
    p.store.retrieve(h, record=False)
    assert p.toin.pattern(p.store.get(h).meta["toin"], fresh=True).retrievals_full == 0


def test_toin_off_builds_nothing_and_changes_nothing():
    cfg = HeadroomConfig(toin=ToinConfig(enabled=False))
    p = Pipeline(cfg, store=CompressionStore())
    assert p.toin is None
    r = p.compress_body(body(big_output(), "summary"), "openai_chat")
    assert "toin" not in p.store.get(r.ccr_hashes[0]).meta
    assert p.store.retrieval_listeners == []


def test_a_failing_backend_never_breaks_compression():
    class Broken(MemoryToinBackend):
        def counts(self, signature):
            raise ConnectionError("redis down")

    cfg = HeadroomConfig(toin=ToinConfig(flush_seconds=0, refresh_seconds=0))
    p = Pipeline(cfg, store=CompressionStore(), toin=Toin(Broken(), cfg.toin))
    r = p.compress_body(body(big_output(), "summary"), "openai_chat")
    assert any(d.action == "compressed" for d in r.decisions)


def test_pipelines_sharing_a_store_and_a_toin_file_count_a_retrieval_once(tmp_path):
    from headroom.toin import SQLiteToinBackend

    store = CompressionStore()
    cfg = HeadroomConfig(toin=ToinConfig(flush_seconds=0, refresh_seconds=0))
    a = Pipeline(cfg, store=store, toin=Toin(SQLiteToinBackend(tmp_path / "t.db"), cfg.toin))
    Pipeline(cfg, store=store, toin=Toin(SQLiteToinBackend(tmp_path / "t.db"), cfg.toin))
    Pipeline(cfg, store=store, toin=Toin(MemoryToinBackend(), cfg.toin))  # another place: listens too
    assert len(store.retrieval_listeners) == 2
    r = a.compress_body(body(big_output(), "summary"), "openai_chat")
    store.retrieve(r.ccr_hashes[0])
    assert a.toin.pattern(store.get(r.ccr_hashes[0]).meta["toin"], fresh=True).retrievals_full == 1
