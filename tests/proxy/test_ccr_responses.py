"""headroom.ccr.responses (retrieve calls, answers, continuation bodies) and the stream
accumulator in headroom.exchange.stream."""

from __future__ import annotations

import json

import pytest

from headroom.ccr.responses import (
    RetrieveCall,
    answer,
    continue_body,
    retrieve_calls,
)
from headroom.ccr.store import CompressionStore
from headroom.exchange.stream import StreamAccumulator
from headroom.formats.wire import SSEDecoder


def chat_response(calls, content=None):
    msg = {"role": "assistant", "content": content}
    if calls:
        msg["tool_calls"] = [{"id": cid, "type": "function", "function": {"name": n, "arguments": json.dumps(a)}}
                             for cid, n, a in calls]
    return {"id": "r1", "object": "chat.completion", "choices": [{"index": 0, "message": msg, "finish_reason": "tool_calls"}]}


def responses_response(calls, extra=()):
    out = list(extra) + [{"type": "function_call", "id": f"fc_{cid}", "call_id": cid, "name": n,
                          "arguments": json.dumps(a), "status": "completed"} for cid, n, a in calls]
    return {"id": "resp_1", "object": "response", "output": out}


def anthropic_response(calls, text=None):
    content = [{"type": "text", "text": text}] if text else []
    content += [{"type": "tool_use", "id": cid, "name": n, "input": a} for cid, n, a in calls]
    return {"id": "msg_1", "type": "message", "role": "assistant", "content": content, "stop_reason": "tool_use"}


MAKERS = {"openai_chat": chat_response, "openai_responses": responses_response, "anthropic": anthropic_response}
H = "0123456789abcdef01234567"


@pytest.mark.parametrize("fmt", list(MAKERS))
def test_retrieve_only_turn(fmt):
    resp = MAKERS[fmt]([("c1", "headroom_retrieve", {"hash": H}), ("c2", "srv__headroom_retrieve", {"hash": H, "query": "err"})])
    calls = retrieve_calls(resp, fmt)
    assert calls == [RetrieveCall("c1", "headroom_retrieve", H, None), RetrieveCall("c2", "srv__headroom_retrieve", H, "err")]


@pytest.mark.parametrize("fmt", list(MAKERS))
def test_mixed_or_no_calls_go_back_to_client(fmt):
    mixed = MAKERS[fmt]([("c1", "headroom_retrieve", {"hash": H}), ("c2", "get_weather", {"city": "x"})])
    assert retrieve_calls(mixed, fmt) is None
    assert retrieve_calls(MAKERS[fmt]([]), fmt) is None


def test_text_beside_retrieve_call_is_still_retrieve_only():
    resp = anthropic_response([("t1", "headroom_retrieve", {"hash": H})], text="Let me look.")
    assert [c.id for c in retrieve_calls(resp, "anthropic")] == ["t1"]
    reasoning = {"type": "reasoning", "id": "rs_1", "summary": []}
    assert retrieve_calls(responses_response([("c1", "headroom_retrieve", {"hash": H})], [reasoning]), "openai_responses")


def test_responses_builtin_tool_call_counts_as_mixed():
    web = {"type": "web_search_call", "id": "ws_1", "status": "completed"}
    assert retrieve_calls(responses_response([("c1", "headroom_retrieve", {"hash": H})], [web]), "openai_responses") is None


def test_bad_arguments_give_an_empty_hash():
    resp = chat_response([])
    resp["choices"][0]["message"]["tool_calls"] = [
        {"id": "c1", "type": "function", "function": {"name": "headroom_retrieve", "arguments": "{not json"}}]
    assert retrieve_calls(resp, "openai_chat") == [RetrieveCall("c1", "headroom_retrieve", "", None)]


def test_answer_original_query_and_unknown():
    store = CompressionStore()
    original = "\n".join(f"line {i} {'ERROR disk full' if i == 7 else 'ok'}" for i in range(40))
    h = store.store(original)
    assert answer(store, RetrieveCall("c", "headroom_retrieve", h)) == original
    matches = answer(store, RetrieveCall("c", "headroom_retrieve", h, "disk full"))
    assert "line 7 ERROR disk full" in matches and len(matches) < len(original)
    unknown = answer(store, RetrieveCall("c", "headroom_retrieve", "f" * 24))
    assert "unknown or expired" in unknown and "f" * 24 in unknown
    assert "missing 'hash'" in answer(store, RetrieveCall("c", "headroom_retrieve", ""))


def test_answer_after_expiry():
    now = [1000.0]
    store = CompressionStore(ttl_seconds=10, clock=lambda: now[0])
    h = store.store("x" * 100)
    now[0] += 11
    assert "unknown or expired" in answer(store, RetrieveCall("c", "headroom_retrieve", h))


def test_continue_chat():
    body = {"model": "m", "messages": [{"role": "user", "content": "q"}], "stream": False}
    resp = chat_response([("c1", "headroom_retrieve", {"hash": H})])
    nxt = continue_body(body, resp, "openai_chat", {"c1": "ORIGINAL"})
    assert nxt["messages"][0] == {"role": "user", "content": "q"}
    assert nxt["messages"][1]["role"] == "assistant"
    assert nxt["messages"][1]["tool_calls"][0]["id"] == "c1"
    assert json.loads(nxt["messages"][1]["tool_calls"][0]["function"]["arguments"]) == {"hash": H}
    assert nxt["messages"][2] == {"role": "tool", "tool_call_id": "c1", "content": "ORIGINAL"}
    assert len(body["messages"]) == 1 and nxt["stream"] is False


def test_continue_responses_with_string_input():
    body = {"model": "m", "input": "q"}
    resp = responses_response([("c1", "headroom_retrieve", {"hash": H})])
    nxt = continue_body(body, resp, "openai_responses", {"c1": "ORIGINAL"})
    assert nxt["input"][0] == {"role": "user", "content": "q"}
    assert nxt["input"][1]["type"] == "function_call" and nxt["input"][1]["call_id"] == "c1"
    assert nxt["input"][2] == {"type": "function_call_output", "call_id": "c1", "output": "ORIGINAL"}


def test_continue_anthropic():
    body = {"model": "m", "max_tokens": 5, "messages": [{"role": "user", "content": "q"}]}
    resp = anthropic_response([("t1", "headroom_retrieve", {"hash": H})], text="Looking")
    nxt = continue_body(body, resp, "anthropic", {"t1": "ORIGINAL"})
    assert nxt["messages"][1] == {"role": "assistant", "content": resp["content"]}
    assert nxt["messages"][2] == {"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "t1", "content": "ORIGINAL"}]}


def sse(*events):
    out = b""
    for name, data in events:
        if name:
            out += f"event: {name}\n".encode()
        out += f"data: {data if isinstance(data, str) else json.dumps(data)}\n\n".encode()
    return out


def test_sse_decoder_handles_split_chunks_and_crlf():
    raw = sse(("a", {"x": 1}), (None, "[DONE]")).replace(b"\n", b"\r\n") + b": comment\n\n"
    dec = SSEDecoder()
    events = []
    for i in range(len(raw)):
        events += dec.feed(raw[i:i + 1])
    assert [(e.event, e.data) for e, _ in events] == [("a", '{"x": 1}'), (None, "[DONE]")]
    assert b"".join(r for _, r in events) + b": comment\n\n" == raw
    assert dec.flush() == b""


def accumulate(fmt, raw):
    acc = StreamAccumulator(fmt)
    for ev, _ in SSEDecoder().feed(raw):
        acc.feed_event(ev)
    return acc.response()


def test_accumulate_chat_tool_call_stream():
    chunks = [
        {"id": "c", "model": "m", "choices": [{"index": 0, "delta": {"role": "assistant", "content": None}}]},
        {"id": "c", "choices": [{"index": 0, "delta": {"tool_calls": [
            {"index": 0, "id": "call_1", "type": "function", "function": {"name": "headroom_retrieve", "arguments": ""}}]}}]},
        {"id": "c", "choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": '{"hash": '}}]}}]},
        {"id": "c", "choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": f'"{H}"}}'}}]}}]},
        {"id": "c", "choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]},
    ]
    resp = accumulate("openai_chat", sse(*[(None, c) for c in chunks], (None, "[DONE]")))
    assert resp["choices"][0]["finish_reason"] == "tool_calls"
    assert retrieve_calls(resp, "openai_chat") == [RetrieveCall("call_1", "headroom_retrieve", H)]


def test_accumulate_chat_text_stream():
    chunks = [{"id": "c", "choices": [{"index": 0, "delta": {"content": p}}]} for p in ("Hel", "lo")]
    resp = accumulate("openai_chat", sse(*[(None, c) for c in chunks]))
    assert resp["choices"][0]["message"]["content"] == "Hello"
    assert retrieve_calls(resp, "openai_chat") is None


def test_accumulate_responses_without_completed_event():
    item = {"type": "function_call", "id": "fc_1", "call_id": "c1", "name": "headroom_retrieve", "arguments": ""}
    raw = sse(
        ("response.created", {"type": "response.created", "response": {"id": "resp_1", "output": []}}),
        ("response.output_item.added", {"type": "response.output_item.added", "output_index": 0, "item": item}),
        ("response.function_call_arguments.delta", {"type": "response.function_call_arguments.delta", "output_index": 0, "delta": '{"hash":'}),
        ("response.function_call_arguments.delta", {"type": "response.function_call_arguments.delta", "output_index": 0, "delta": f'"{H}"}}'}),
    )
    resp = accumulate("openai_responses", raw)
    assert resp["id"] == "resp_1"
    assert retrieve_calls(resp, "openai_responses") == [RetrieveCall("c1", "headroom_retrieve", H)]


def test_accumulate_responses_prefers_completed_event():
    final = {"id": "resp_1", "output": [{"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "hi"}]}]}
    raw = sse(("response.completed", {"type": "response.completed", "response": final}))
    assert accumulate("openai_responses", raw) == final


def test_accumulate_anthropic_stream():
    raw = sse(
        ("message_start", {"type": "message_start", "message": {"id": "msg_1", "role": "assistant", "content": [], "usage": {"input_tokens": 5}}}),
        ("content_block_start", {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}}),
        ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Look"}}),
        ("content_block_stop", {"type": "content_block_stop", "index": 0}),
        ("content_block_start", {"type": "content_block_start", "index": 1, "content_block": {"type": "tool_use", "id": "t1", "name": "headroom_retrieve", "input": {}}}),
        ("content_block_delta", {"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": '{"hash": "'}}),
        ("content_block_delta", {"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": f'{H}", "query": "disk"}}'}}),
        ("message_delta", {"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 9}}),
        ("message_stop", {"type": "message_stop"}),
    )
    resp = accumulate("anthropic", raw)
    assert resp["content"][0] == {"type": "text", "text": "Look"}
    assert resp["content"][1]["input"] == {"hash": H, "query": "disk"}
    assert resp["stop_reason"] == "tool_use" and resp["usage"] == {"input_tokens": 5, "output_tokens": 9}
    assert retrieve_calls(resp, "anthropic") == [RetrieveCall("t1", "headroom_retrieve", H, "disk")]


def test_accumulator_records_stream_errors():
    acc = StreamAccumulator("anthropic")
    acc.feed({"type": "error", "error": {"type": "overloaded_error"}})
    assert acc.error["error"]["type"] == "overloaded_error"


def test_foreign_call_detection_per_format():
    chat = StreamAccumulator("openai_chat")
    chat.feed({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "id": "a", "function": {"name": "headroom_retrieve"}}]}}]})
    assert not chat.saw_foreign_call
    chat.feed({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 1, "id": "b", "function": {"name": "get_weather"}}]}}]})
    assert chat.saw_foreign_call
    resp = StreamAccumulator("openai_responses")
    resp.feed({"type": "response.output_item.added", "output_index": 0, "item": {"type": "reasoning"}})
    resp.feed({"type": "response.output_item.added", "output_index": 1, "item": {"type": "function_call", "name": "x__headroom_retrieve"}})
    assert not resp.saw_foreign_call
    resp.feed({"type": "response.output_item.added", "output_index": 2, "item": {"type": "web_search_call"}})
    assert resp.saw_foreign_call
    anth = StreamAccumulator("anthropic")
    anth.feed({"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}})
    anth.feed({"type": "content_block_start", "index": 1, "content_block": {"type": "tool_use", "name": "headroom_retrieve"}})
    assert not anth.saw_foreign_call
    anth.feed({"type": "content_block_start", "index": 2, "content_block": {"type": "tool_use", "name": "bash"}})
    assert anth.saw_foreign_call


def test_continue_responses_chained_by_previous_response_id():
    body = {"model": "m", "previous_response_id": "resp_0", "input": [{"role": "user", "content": "q"}]}
    resp = responses_response([("c1", "headroom_retrieve", {"hash": H})])
    nxt = continue_body(body, resp, "openai_responses", {"c1": "ORIGINAL"})
    assert nxt["previous_response_id"] == "resp_1"
    assert nxt["input"] == [{"type": "function_call_output", "call_id": "c1", "output": "ORIGINAL"}]
