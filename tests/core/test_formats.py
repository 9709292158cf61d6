"""Adapters: parse -> render is the identity for untouched content, in all three formats."""

from __future__ import annotations

import copy
import json

import pytest

from headroom.formats import (
    ANTHROPIC,
    OPENAI_CHAT,
    OPENAI_RESPONSES,
    BlockKind,
    Role,
    detect_format,
    parse,
    render,
)

CHAT = {
    "model": "gpt-4o",
    "temperature": 0.2,
    "x_unknown_field": {"kept": True},
    "messages": [
        {"role": "developer", "content": "Be terse."},
        {"role": "user", "content": [{"type": "text", "text": "look"},
                                      {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA", "detail": "high"}}]},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "read", "arguments": "{\"path\": \"a.py\"}"}},
            {"id": "c2", "type": "function", "function": {"name": "weird", "arguments": None}},
            {"id": "c3", "type": "function", "function": {"name": "dictargs", "arguments": {"a": 1}}}]},
        {"role": "tool", "tool_call_id": "c1", "content": "print('hi')", "x_extra": 1},
        {"role": "tool", "tool_call_id": "c2", "content": None},
        {"role": "tool", "tool_call_id": "c3", "content": [{"type": "text", "text": "part one"}, {"type": "text", "text": "part two"}]},
        {"role": "assistant", "content": "done", "refusal": None},
    ],
}

ANTHROPIC_BODY = {
    "model": "claude-sonnet-4-5",
    "max_tokens": 1024,
    "system": [{"type": "text", "text": "You are careful.", "cache_control": {"type": "ephemeral"}}],
    "messages": [
        {"role": "user", "content": "hi"},
        {"role": "assistant", "content": [
            {"type": "thinking", "thinking": "let me think", "signature": "sig=="},
            {"type": "redacted_thinking", "data": "opaque"},
            {"type": "tool_use", "id": "tu1", "name": "grep", "input": {"pattern": "TODO", "n": [1, 2]}}]},
        {"role": "user", "content": [
            {"type": "tool_result", "tool_use_id": "tu1", "content": [{"type": "text", "text": "a.py:1:TODO"}],
             "cache_control": {"type": "ephemeral"}},
            {"type": "text", "text": "and?"},
            {"type": "document", "source": {"type": "text", "data": "doc"}}]},
    ],
}

RESPONSES_BODY = {
    "model": "gpt-4.1",
    "instructions": "Use tools.",
    "store": False,
    "input": [
        {"role": "user", "content": "find it"},
        {"type": "reasoning", "id": "rs_1", "summary": []},
        {"type": "function_call", "call_id": "fc1", "name": "search", "arguments": "{\"q\": \"x\"}", "id": "fc_1"},
        {"type": "function_call_output", "call_id": "fc1", "output": "result text"},
        {"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": "ok", "annotations": []}]},
        {"type": "custom_tool_call", "call_id": "ct1", "name": "patch", "input": "*** raw ***"},
        {"type": "custom_tool_call_output", "call_id": "ct1", "output": "applied"},
    ],
}


@pytest.mark.parametrize("body,fmt", [(CHAT, OPENAI_CHAT), (ANTHROPIC_BODY, ANTHROPIC), (RESPONSES_BODY, OPENAI_RESPONSES)])
def test_roundtrip_is_identity(body, fmt):
    before = copy.deepcopy(body)
    assert detect_format(body) == fmt
    out = render(parse(body, fmt))
    assert out == before
    assert json.dumps(out, sort_keys=True) == json.dumps(before, sort_keys=True)
    assert body == before  # parsing never mutates the input


def test_chat_links_tool_results_and_tolerates_odd_types():
    conv = parse(CHAT)
    results = [b for _, _, b in conv.tool_results()]
    assert [r.tool_name for r in results] == ["read", "weird", "dictargs"]
    assert results[0].tool_arguments == '{"path": "a.py"}'
    assert results[1].text is None  # null content: never rewritten
    assert results[2].text == "part one\npart two"
    calls = [b for _, _, b in conv.blocks() if b.kind is BlockKind.TOOL_CALL]
    assert calls[1].text is None and calls[2].text is None


def test_chat_changed_tool_result_keeps_other_fields():
    conv = parse(CHAT)
    _, _, b = next(iter(conv.tool_results()))
    b.text = "short"
    out = render(conv)
    assert out["messages"][3] == {"role": "tool", "tool_call_id": "c1", "content": "short", "x_extra": 1}
    assert out["messages"][0] is CHAT["messages"][0]  # untouched messages pass through as-is


def test_chat_list_content_tool_result_rendered_as_one_text_part():
    conv = parse(CHAT)
    b = [b for _, _, b in conv.tool_results()][2]
    b.text = "joined"
    assert render(conv)["messages"][5]["content"] == [{"type": "text", "text": "joined"}]


def test_anthropic_thinking_and_cache_control_survive_edits():
    conv = parse(ANTHROPIC_BODY)
    b = next(b for _, _, b in conv.tool_results())
    assert b.tool_name == "grep" and json.loads(b.tool_arguments) == {"pattern": "TODO", "n": [1, 2]}
    b.text = "compressed"
    call = next(b for _, _, b in conv.blocks() if b.kind is BlockKind.TOOL_CALL)
    call.text = json.dumps({"pattern": "T", "n": [1, 2]})
    out = render(conv)
    assistant = out["messages"][1]["content"]
    assert assistant[0] == ANTHROPIC_BODY["messages"][1]["content"][0]  # signed thinking untouched
    assert assistant[1] == {"type": "redacted_thinking", "data": "opaque"}
    assert assistant[2]["input"] == {"pattern": "T", "n": [1, 2]}
    tr = out["messages"][2]["content"][0]
    assert tr["cache_control"] == {"type": "ephemeral"}
    assert tr["content"] == [{"type": "text", "text": "compressed"}]
    assert out["messages"][2]["content"][2]["type"] == "document"
    assert out["system"] == ANTHROPIC_BODY["system"]


def test_anthropic_system_edit_keeps_cache_control():
    conv = parse(ANTHROPIC_BODY)
    conv.system[0].text = "You are careful. [x]"
    out = render(conv)
    assert out["system"] == [{"type": "text", "text": "You are careful. [x]", "cache_control": {"type": "ephemeral"}}]


def test_responses_items_map_to_roles():
    conv = parse(RESPONSES_BODY)
    roles = [m.role for m in conv.messages]
    assert roles == [Role.USER, Role.OTHER, Role.ASSISTANT, Role.TOOL, Role.ASSISTANT, Role.ASSISTANT, Role.TOOL]
    outputs = [b for _, _, b in conv.tool_results()]
    assert outputs[0].tool_name == "search"
    assert conv.messages[5].blocks[0].text is None  # custom tool input is free text, not JSON
    outputs[0].text = "short"
    conv.system[0].text = "Use tools!"
    out = render(conv)
    assert out["input"][3] == {"type": "function_call_output", "call_id": "fc1", "output": "short"}
    assert out["instructions"] == "Use tools!"
    assert out["input"][1] is RESPONSES_BODY["input"][1]


def test_responses_string_input_roundtrip():
    body = {"model": "gpt-4o", "input": "hello"}
    assert render(parse(body)) == body


def test_image_edit_renders_per_provider():
    conv = parse(CHAT)
    img = next(b for _, _, b in conv.blocks() if b.kind is BlockKind.IMAGE)
    assert img.image.media_type == "image/png" and img.image.data == "AAAA"
    img.image.detail = "low"
    out = render(conv)
    assert out["messages"][1]["content"][1] == {"type": "image_url", "image_url": {"url": "data:image/png;base64,AAAA", "detail": "low"}}


@pytest.mark.parametrize("body", [{"messages": "nope"}, {"input": 3}, {}])
def test_bad_bodies_raise_value_error(body):
    with pytest.raises(ValueError):
        parse(body)


def test_non_dict_messages_are_carried():
    body = {"model": "gpt-4o", "messages": ["junk", {"role": "user", "content": "hi"}, 7]}
    assert render(parse(body, OPENAI_CHAT)) == body
    assert render(parse(body, ANTHROPIC)) == body
