"""RollingWindow: over budget -> oldest tool units then turns dropped, atomically, to CCR."""

from __future__ import annotations

import json

import pytest

from headroom.config import ContextConfig, HeadroomConfig, RollingWindowConfig
from headroom.formats import parse
from headroom.transforms.rolling_window import RollingWindow
from headroom.ccr.markers import find_hashes


def chat_session(turns=8):
    msgs = [{"role": "system", "content": "sys"}]
    for t in range(turns):
        msgs.append({"role": "user", "content": f"question {t}"})
        msgs.append({"role": "assistant", "content": None, "tool_calls": [
            {"id": f"a{t}", "type": "function", "function": {"name": "fetch", "arguments": "{}"}},
            {"id": f"b{t}", "type": "function", "function": {"name": "grep", "arguments": "{}"}}]})
        msgs.append({"role": "tool", "tool_call_id": f"a{t}", "content": f"fact-{t} " + "data " * 300})
        msgs.append({"role": "tool", "tool_call_id": f"b{t}", "content": "more " * 100})
        msgs.append({"role": "assistant", "content": f"answer {t}"})
    msgs.append({"role": "user", "content": "final question"})
    return {"model": "gpt-4o", "messages": msgs}


def anthropic_session(turns=8):
    msgs = []
    for t in range(turns):
        msgs.append({"role": "user", "content": f"question {t}"})
        msgs.append({"role": "assistant", "content": [{"type": "tool_use", "id": f"t{t}", "name": "fetch", "input": {}}]})
        msgs.append({"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"t{t}",
                                                   "content": f"fact-{t} " + "data " * 300}]})
        msgs.append({"role": "assistant", "content": f"answer {t}"})
    msgs.append({"role": "user", "content": "final question"})
    return {"model": "claude-sonnet-4-5", "max_tokens": 50, "system": "sys", "messages": msgs}


def responses_session(turns=8):
    items = []
    for t in range(turns):
        items.append({"role": "user", "content": f"question {t}"})
        items.append({"type": "function_call", "call_id": f"c{t}", "name": "fetch", "arguments": "{}"})
        items.append({"type": "function_call", "call_id": f"d{t}", "name": "grep", "arguments": "{}"})
        items.append({"type": "function_call_output", "call_id": f"c{t}", "output": f"fact-{t} " + "data " * 300})
        items.append({"type": "function_call_output", "call_id": f"d{t}", "output": "more " * 100})
    items.append({"role": "user", "content": "final question"})
    return {"model": "gpt-4.1", "instructions": "sys", "input": items}


def cfg(budget, keep=2):
    return HeadroomConfig(context=ContextConfig(max_tokens=budget, rolling_window=RollingWindowConfig(keep_last_turns=keep)))


def assert_tool_pairs_intact(body):
    conv = parse(body)
    calls = {b.tool_call_id for _, _, b in conv.blocks() if b.kind.value == "tool_call"}
    results = {b.tool_call_id for _, _, b in conv.tool_results()}
    assert calls == results


@pytest.mark.parametrize("make", [chat_session, anthropic_session, responses_session])
def test_drops_oldest_tool_units_first_and_stays_valid(fresh_pipeline, make):
    body = make()
    p = fresh_pipeline(cfg(2500), transforms=[RollingWindow()])
    r = p.compress_body(body)
    assert r.tokens_after <= 2500 < r.tokens_before
    assert_tool_pairs_intact(r.body)
    text = json.dumps(r.body)
    assert "final question" in text and "fact-7" in text and "fact-6" in text  # last 2 turns kept
    assert "fact-0" not in text
    [h] = find_hashes(text)
    dropped = json.loads(p.store.retrieve(h).content)
    assert "fact-0" in json.dumps(dropped)
    if make is anthropic_session:
        roles = [m["role"] for m in r.body["messages"]]
        assert roles[0] == "user" and all(a != b for a, b in zip(roles, roles[1:]))
        assert r.body["system"] == "sys"
    if make is chat_session:
        assert r.body["messages"][0] == {"role": "system", "content": "sys"}


def test_within_budget_is_untouched(fresh_pipeline):
    body = chat_session(2)
    r = fresh_pipeline(transforms=[RollingWindow()]).compress_body(body)
    assert r.body == body
    assert any(d.action == "kept" and "within budget" in d.reason for d in r.decisions)


def test_reports_when_protected_content_cannot_fit(fresh_pipeline):
    r = fresh_pipeline(cfg(50, keep=8), transforms=[RollingWindow()]).compress_body(chat_session(3))
    assert any(d.action == "skipped" and "still over budget" in d.reason for d in r.decisions)


def test_output_room_comes_from_max_tokens(fresh_pipeline):
    body = chat_session(3)
    body["model"] = "gpt-4"  # 8 192-token window
    body["max_tokens"] = 7000
    r = fresh_pipeline(transforms=[RollingWindow()]).compress_body(body)
    assert r.tokens_after <= 8192 - 7000 or any("still over budget" in d.reason for d in r.decisions)
    assert any(d.action == "dropped" for d in r.decisions)


def test_small_drop_that_would_cost_a_larger_marker_message_is_skipped():
    """Found by hypothesis: two small old units (59 tokens) replaced by a 58-token marker
    in a message of its own (+4 tokens of message overhead) made the request bigger."""
    import random

    from headroom import Pipeline
    from tests.core.test_properties import to_chat

    vocab = ["restarted", "quickly", "service", "config", "latency", "the", "and", "after", "recovered", "change"]
    words = " ".join(random.Random(7).choice(vocab) for _ in range(1600)) + "."
    turns = [
        {"user": "Turn 0: what about row-1?", "reply": "Reply 0.", "calls": [
            {"id": "call_0", "name": "shell", "args": '{"q": "target 0", "note": ""}',
             "output": '{"page": 1, "items": [], "total": 0}'}]},
        {"user": "Turn 1: what about row-0?", "reply": "Reply 1.", "calls": [
            {"id": "call_1", "name": "shell", "args": '{"q": "target 1", "note": ""}', "output": words}]},
    ]
    r = Pipeline(HeadroomConfig(context=ContextConfig(max_tokens=1500))).compress_body(to_chat(turns))
    aligner_cost = sum(d.tokens_after - d.tokens_before for d in r.decisions if d.transform == "cache_aligner")
    assert r.tokens_after <= r.tokens_before + aligner_cost
    assert not [d for d in r.decisions if d.transform == "rolling_window" and d.action == "dropped"]
