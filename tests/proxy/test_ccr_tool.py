"""headroom.ccr.tool: the retrieve tool definition and when it is injected."""

from __future__ import annotations

import copy

import pytest

from headroom.ccr.markers import format_marker
from headroom.ccr.tool import inject_retrieve_tool, retrieve_tool_definition

MARKER = format_marker(100, 10, "a" * 24, 1800, "kept errors")


def chat_body(tool_text: str, tools=None):
    body = {
        "model": "gpt-4o",
        "messages": [
            {"role": "user", "content": "find it"},
            {"role": "assistant", "content": None, "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "search", "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": "c1", "content": tool_text},
        ],
    }
    if tools is not None:
        body["tools"] = tools
    return body


def responses_body(tool_text: str):
    return {"model": "gpt-4o", "input": [
        {"role": "user", "content": "find it"},
        {"type": "function_call", "call_id": "c1", "name": "search", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c1", "output": tool_text},
    ]}


def anthropic_body(tool_text: str):
    return {"model": "claude-x", "max_tokens": 10, "messages": [
        {"role": "user", "content": "find it"},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "c1", "name": "search", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c1", "content": tool_text}]},
    ]}


BODIES = {"openai_chat": chat_body, "openai_responses": responses_body, "anthropic": anthropic_body}


def tool_names(body, fmt):
    out = []
    for t in body.get("tools", []):
        out.append(t["function"]["name"] if fmt == "openai_chat" else t["name"])
    return out


def test_definitions_have_the_provider_shape():
    chat = retrieve_tool_definition("openai_chat")
    assert chat["type"] == "function" and chat["function"]["name"] == "headroom_retrieve"
    assert chat["function"]["parameters"]["required"] == ["hash"]
    assert set(chat["function"]["parameters"]["properties"]) == {"hash", "query"}
    resp = retrieve_tool_definition("openai_responses")
    assert resp["type"] == "function" and resp["name"] == "headroom_retrieve" and "function" not in resp
    assert resp["parameters"]["properties"]["query"]["type"] == "string"
    anth = retrieve_tool_definition("anthropic")
    assert anth["name"] == "headroom_retrieve" and anth["input_schema"]["required"] == ["hash"]
    assert "type" not in anth
    gem = retrieve_tool_definition("gemini")
    assert gem["functionDeclarations"][0]["parameters"]["required"] == ["hash"]
    with pytest.raises(ValueError):
        retrieve_tool_definition("cohere")


def test_definitions_are_independent_copies():
    a = retrieve_tool_definition("anthropic")
    a["input_schema"]["required"].append("query")
    assert retrieve_tool_definition("anthropic")["input_schema"]["required"] == ["hash"]


@pytest.mark.parametrize("fmt", list(BODIES))
def test_injected_when_markers_present(fmt):
    body = BODIES[fmt](f"row 1\nrow 2\n{MARKER}")
    before = copy.deepcopy(body)
    out = inject_retrieve_tool(body, fmt)
    assert tool_names(out, fmt) == ["headroom_retrieve"]
    assert out["tools"][0] == retrieve_tool_definition(fmt)
    assert body == before  # caller's body untouched


@pytest.mark.parametrize("fmt", list(BODIES))
def test_not_injected_without_markers(fmt):
    body = BODIES[fmt]("plain output, hash=abc but no marker")
    assert inject_retrieve_tool(body, fmt) is body


def test_an_agent_with_tools_gets_it_from_its_first_request_so_the_tool_list_never_changes():
    # The tool list heads every provider's cached prefix: adding the tool only when the
    # first marker appears would invalidate the whole cached conversation at that turn.
    existing = [{"type": "function", "function": {"name": "search", "parameters": {"type": "object"}}}]
    before = inject_retrieve_tool(chat_body("plain output, nothing compressed yet", tools=existing), "openai_chat")
    after = inject_retrieve_tool(chat_body(f"row 1\n{MARKER}", tools=existing), "openai_chat")
    assert before["tools"] == after["tools"]
    assert tool_names(before, "openai_chat") == ["search", "headroom_retrieve"]


def test_appended_after_existing_tools():
    existing = [{"type": "function", "function": {"name": "search", "parameters": {"type": "object"}}}]
    out = inject_retrieve_tool(chat_body(MARKER, tools=existing), "openai_chat")
    assert tool_names(out, "openai_chat") == ["search", "headroom_retrieve"]
    assert existing == [{"type": "function", "function": {"name": "search", "parameters": {"type": "object"}}}]


@pytest.mark.parametrize("name", ["headroom_retrieve", "myserver__headroom_retrieve"])
def test_not_injected_when_client_defines_it(name):
    tools = [{"type": "function", "function": {"name": name, "parameters": {"type": "object"}}}]
    body = chat_body(MARKER, tools=tools)
    assert inject_retrieve_tool(body, "openai_chat") is body
    anth = anthropic_body(MARKER)
    anth["tools"] = [{"name": name, "input_schema": {"type": "object"}}]
    assert inject_retrieve_tool(anth, "anthropic") is anth


def test_marker_in_system_prompt_counts():
    body = {"model": "claude-x", "system": f"context {MARKER}", "messages": [{"role": "user", "content": "hi"}]}
    assert tool_names(inject_retrieve_tool(body, "anthropic"), "anthropic") == ["headroom_retrieve"]
