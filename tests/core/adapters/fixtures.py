"""One conversation in every shipped wire format, for the adapter contract suite: a
system prompt, a question, a tool call, its (long, compressible) output, and a response
that calls a tool and reports usage. A new provider adds its own fixture beside its
adapter (see acme.py / acme_fixtures.py)."""

from __future__ import annotations

from headroom.formats.wire import Usage

SYSTEM = "You are terse."
QUESTION = "Why did request 9999 fail?"
LOG = "\n".join(f"2026-11-21 10:00:{i % 60:02d} INFO api: request {i} ok in {10 + i % 9}ms" for i in range(500)) \
    + "\n2026-11-21 10:10:00 ERROR api: request 9999 failed: database is locked"
ARGS = {"path": "/var/log/api"}

FIXTURES = {
    "openai_chat": {
        "request": {"model": "gpt-4o", "messages": [
            {"role": "system", "content": SYSTEM},
            {"role": "user", "content": QUESTION},
            {"role": "assistant", "content": None, "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "read_log", "arguments": '{"path": "/var/log/api"}'}}]},
            {"role": "tool", "tool_call_id": "c1", "content": LOG}]},
        "response": {"choices": [{"index": 0, "message": {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c2", "type": "function", "function": {"name": "grep", "arguments": '{"q": "9999"}'}}]},
            "finish_reason": "tool_calls"}], "usage": {"prompt_tokens": 900, "completion_tokens": 12}},
        "usage": Usage(900, 12),
    },
    "openai_responses": {
        "request": {"model": "gpt-4o", "instructions": SYSTEM, "input": [
            {"role": "user", "content": QUESTION},
            {"type": "function_call", "call_id": "c1", "name": "read_log", "arguments": '{"path": "/var/log/api"}'},
            {"type": "function_call_output", "call_id": "c1", "output": LOG}]},
        "response": {"id": "resp_1", "output": [
            {"type": "function_call", "call_id": "c2", "name": "grep", "arguments": '{"q": "9999"}'}],
            "usage": {"input_tokens": 900, "output_tokens": 12}},
        "usage": Usage(900, 12),
    },
    "anthropic": {
        "request": {"model": "claude-sonnet-4-5", "max_tokens": 512, "system": SYSTEM, "messages": [
            {"role": "user", "content": QUESTION},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "c1", "name": "read_log", "input": ARGS}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c1", "content": LOG}]}]},
        "response": {"role": "assistant", "content": [{"type": "tool_use", "id": "c2", "name": "grep", "input": {"q": "9999"}}],
                     "stop_reason": "tool_use", "usage": {"input_tokens": 900, "output_tokens": 12}},
        "usage": Usage(900, 12),
    },
    "gemini": {
        "request": {"systemInstruction": {"parts": [{"text": SYSTEM}]}, "contents": [
            {"role": "user", "parts": [{"text": QUESTION}]},
            {"role": "model", "parts": [{"functionCall": {"name": "read_log", "args": ARGS}}]},
            {"role": "user", "parts": [{"functionResponse": {"name": "read_log", "response": {"content": LOG}}}]}]},
        "response": {"candidates": [{"content": {"role": "model", "parts": [
            {"functionCall": {"name": "grep", "args": {"q": "9999"}}}]}}],
            "usageMetadata": {"promptTokenCount": 900, "candidatesTokenCount": 12}},
        "usage": Usage(900, 12),
    },
}
