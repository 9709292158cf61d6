"""The IO-free call core: prepare -> next round -> finish, with no network anywhere."""

from __future__ import annotations

import json

import pytest

from headroom.ccr.markers import find_hashes
from headroom.ccr.store import CompressionStore
from headroom.config import CCRConfig, HeadroomConfig
from headroom.exchange import ExchangeCore, Unanswerable
from headroom.pipeline import Pipeline

LOG = "\n".join(f"2026-11-21 10:00:{i % 60:02d} INFO api: request {i} ok in {10 + i % 9}ms" for i in range(500)) \
    + "\n2026-11-21 10:10:00 ERROR api: request 9999 failed: database is locked"


def body():
    return {"model": "gpt-4o", "messages": [
        {"role": "user", "content": "Why did request 9999 fail?"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "read_log", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": LOG}]}


def core(max_rounds: int = 3) -> ExchangeCore:
    cfg = HeadroomConfig(ccr=CCRConfig(max_retrieve_rounds=max_rounds))
    return ExchangeCore(Pipeline(cfg, store=CompressionStore()))


def prepared(c: ExchangeCore, mode: str = "optimize"):
    b = body()
    result, error = c.compress(b, "openai_chat", copy_body=True)
    assert error is None
    return b, c.prepare(b, "openai_chat", mode, result=result)


def retrieve_turn(send: dict, call_id: str = "r1") -> dict:
    [h] = find_hashes(json.dumps(send))[:1]
    return {"choices": [{"index": 0, "finish_reason": "tool_calls", "message": {"role": "assistant", "content": None,
            "tool_calls": [{"id": call_id, "type": "function",
                            "function": {"name": "headroom_retrieve", "arguments": json.dumps({"hash": h})}}]}}],
            "usage": {"prompt_tokens": 300, "completion_tokens": 9, "prompt_tokens_details": {"cached_tokens": 128}}}


ANSWER = {"choices": [{"index": 0, "finish_reason": "stop", "message": {"role": "assistant", "content": "locked db"}}],
          "usage": {"prompt_tokens": 900, "completion_tokens": 3}}


def test_prepare_per_mode():
    c = core()
    original, ex = prepared(c)
    assert ex.compressed and ex.injected and ex.send["tools"][-1]["function"]["name"] == "headroom_retrieve"
    assert ex.result.tokens_saved > 0 and original == body()  # the caller's body is untouched
    _, audit = prepared(c, "audit")
    assert audit.send is audit.original and not audit.injected and audit.result is not None
    fallback = c.prepare(body(), "openai_chat", "optimize", result=None, error="boom")
    assert fallback.send is fallback.original and fallback.compression_error == "boom" and not fallback.compressed


def test_a_retrieve_turn_is_answered_from_the_store_and_the_answer_is_the_clients():
    c = core()
    _, ex = prepared(c)
    nxt = c.next_round(ex, retrieve_turn(ex.send))
    assert nxt is ex.send and nxt["messages"][-1] == {"role": "tool", "tool_call_id": "r1", "content": LOG}
    assert (ex.rounds, ex.retrievals) == (1, 1) and "tool_choice" not in nxt
    assert c.next_round(ex, ANSWER) is None  # a text answer goes to the client
    ex.usage = None
    row = c.finish(ex, status_code=200, stream=False)
    assert row.retrievals == 1 and row.provider == "openai" and row.model == "gpt-4o"
    assert row.transform_savings == ex.result.savings.by_transform and sum(row.transform_savings.values()) > 0
    assert row.cost_saved_usd and row.cost_saved_usd > 0


def test_after_the_round_limit_tool_calls_are_forbidden_and_never_handed_over():
    c = core(max_rounds=1)
    _, ex = prepared(c)
    c.next_round(ex, retrieve_turn(ex.send))
    last = c.next_round(ex, retrieve_turn(ex.send, "r2"))
    assert last["tool_choice"] == "none" and ex.final and ex.rounds == 2
    with pytest.raises(Unanswerable, match="after the retrieve-round limit"):
        c.next_round(ex, retrieve_turn(ex.send, "r3"))


def test_a_retrieve_call_without_an_id_cannot_be_answered():
    c = core()
    _, ex = prepared(c)
    with pytest.raises(Unanswerable, match="without an id"):
        c.next_round(ex, retrieve_turn(ex.send, call_id=""))


def test_turns_headroom_did_not_ask_for_stay_the_clients():
    c = core()
    _, audit = prepared(c, "audit")
    assert c.next_round(audit, retrieve_turn(prepared(c)[1].send)) is None  # no tool injected
    _, ex = prepared(c)
    assert c.next_round(ex, {"choices": "garbage"}) is None  # unreadable: relayed as it came
    assert c.next_round(ex, "not a dict") is None


def test_markers_the_pipeline_knows_are_not_parsed_again(monkeypatch):
    import headroom.ccr.tool as tool

    def no_reparse(*a, **k):
        raise AssertionError("the rendered body was parsed again to find markers")

    monkeypatch.setattr(tool, "carries_markers", no_reparse)
    _, ex = prepared(core())
    assert ex.injected and ex.result.carries_markers
