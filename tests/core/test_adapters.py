"""Every wire adapter implements the whole contract, both directions (issue 13)."""

from __future__ import annotations

import copy
import inspect
import json

import pytest

from headroom import compress
from headroom.ccr.responses import retrieve_calls
from headroom.ccr.tool import inject_retrieve_tool, retrieve_tool_definition
from headroom.exchange.stream import StreamAccumulator
from headroom.formats import ADAPTERS, GEMINI, adapter, parse, provider_of, render
from headroom.formats.adapter import Adapter
from headroom.formats.wire import Usage

CONTRACT = [name for name in dir(Adapter) if not name.startswith("_")] + list(Adapter.__annotations__)


@pytest.mark.parametrize("fmt", sorted(ADAPTERS))
def test_every_adapter_implements_the_contract(fmt):
    a = adapter(fmt)
    missing = [name for name in CONTRACT if not hasattr(a, name)]
    assert missing == []
    assert a.FORMAT == fmt and a.PROVIDER in ("openai", "anthropic", "google")
    for name in ("parse", "render", "tool_definition", "tool_calls", "continue_body", "usage", "error_event"):
        proto = inspect.signature(getattr(Adapter, name))
        assert len(inspect.signature(getattr(a, name)).parameters) == len(proto.parameters) - 1, name


def test_provider_comes_from_the_adapter():
    assert [provider_of(f) for f in ("openai_chat", "openai_responses", "anthropic", "gemini")] == \
        ["openai", "openai", "anthropic", "google"]


# --- Gemini ----------------------------------------------------------------------------

LOG = "\n".join(f"2026-11-21 10:00:{i % 60:02d} INFO api: request {i} ok in {10 + i % 9}ms" for i in range(500)) \
    + "\n2026-11-21 10:10:00 ERROR api: request 9999 failed: database is locked"


def gemini_body():
    return {
        "systemInstruction": {"parts": [{"text": "You are terse."}]},
        "contents": [
            {"role": "user", "parts": [{"text": "Why did request 9999 fail?"}]},
            {"role": "model", "parts": [{"functionCall": {"name": "read_log", "args": {"path": "/var/log/api"}}}]},
            {"role": "user", "parts": [{"functionResponse": {"name": "read_log", "response": {"content": LOG}}}]},
        ],
        "generationConfig": {"temperature": 0},
    }


def test_gemini_round_trip_is_untouched():
    body = gemini_body()
    conv = parse(body)
    assert conv.format == GEMINI and conv.system[0].text == "You are terse."
    [(_, _, result)] = list(conv.tool_results())
    assert result.tool_name == "read_log" and json.loads(result.tool_arguments) == {"path": "/var/log/api"}
    assert render(conv) == body


def test_gemini_tool_output_is_compressed_through_the_pipeline():
    body = gemini_body()
    snapshot = copy.deepcopy(body)
    r = compress(body, model="gemini-2.5-flash")
    assert body == snapshot and r.format == GEMINI
    part = r.body["contents"][2]["parts"][0]["functionResponse"]
    assert part["name"] == "read_log" and list(part["response"]) == ["content"]
    assert "database is locked" in part["response"]["content"] and r.tokens_saved > 0
    assert r.body["contents"][:2] == snapshot["contents"][:2] and r.body["generationConfig"] == {"temperature": 0}
    with_tool = inject_retrieve_tool(r.body, GEMINI)
    assert with_tool["tools"][-1] == retrieve_tool_definition(GEMINI)
    assert with_tool["tools"][-1]["functionDeclarations"][0]["name"] == "headroom_retrieve"


def test_gemini_retrieve_turn_continues_and_streams():
    h = "a" * 24
    turn = {"candidates": [{"content": {"role": "model", "parts": [
        {"functionCall": {"name": "headroom_retrieve", "args": {"hash": h}}}]}}],
        "usageMetadata": {"promptTokenCount": 120, "candidatesTokenCount": 7, "cachedContentTokenCount": 100}}
    [call] = retrieve_calls(turn, GEMINI)
    assert call.hash == h
    nxt = adapter(GEMINI).continue_body(gemini_body(), turn, {call.id: "the original"})
    assert nxt["contents"][-2] == turn["candidates"][0]["content"]
    assert nxt["contents"][-1] == {"role": "user", "parts": [
        {"functionResponse": {"name": "headroom_retrieve", "response": {"content": "the original"}}}]}
    assert adapter(GEMINI).usage(turn) == Usage(120, 7, 100)

    acc = StreamAccumulator(GEMINI)
    acc.feed({"candidates": [{"content": {"role": "model", "parts": [{"text": "Let me "}]}}]})
    acc.feed({"candidates": [{"content": {"role": "model", "parts": [{"text": "look."}]}}]})
    acc.feed({"candidates": [{"content": {"role": "model", "parts": [{"functionCall": {"name": "run_sql", "args": {}}}]},
                              "finishReason": "STOP"}]})
    assert acc.saw_foreign_call
    parts = acc.response()["candidates"][0]["content"]["parts"]
    assert parts == [{"text": "Let me look."}, {"functionCall": {"name": "run_sql", "args": {}}}]


# --- usage, one shape for every provider -------------------------------------------------


def test_usage_counts_cache_reads_and_writes_everywhere():
    chat = {"usage": {"prompt_tokens": 1000, "completion_tokens": 20, "prompt_tokens_details": {"cached_tokens": 800}}}
    assert adapter("openai_chat").usage(chat) == Usage(1000, 20, 800)
    resp = {"usage": {"input_tokens": 1000, "output_tokens": 20, "input_tokens_details": {"cached_tokens": 640}}}
    assert adapter("openai_responses").usage(resp) == Usage(1000, 20, 640)
    claude = {"usage": {"input_tokens": 50, "output_tokens": 20, "cache_read_input_tokens": 900,
                        "cache_creation_input_tokens": 50}}
    assert adapter("anthropic").usage(claude) == Usage(1000, 20, 900, 50)
    # LiteLLM answers for Claude in the Chat shape with Anthropic's cache fields.
    litellm = {"usage": {"prompt_tokens": 1000, "completion_tokens": 20, "cache_read_input_tokens": 900,
                         "cache_creation_input_tokens": 50}}
    assert adapter("openai_chat").usage(litellm) == Usage(1000, 20, 900, 50)
    assert adapter("anthropic").usage({}) == Usage()


@pytest.mark.parametrize("fmt", sorted(ADAPTERS))
def test_error_events_are_sse(fmt):
    raw = adapter(fmt).error_event("boom", "upstream_error", 502)
    assert raw.endswith(b"\n\n") and b'"message": "boom"' in raw and b'"status": 502' in raw


def test_prompt_cache_policy_comes_from_the_adapter():
    from headroom.cache import CacheOptimizer

    opt = CacheOptimizer(openai_prompt_cache_key=True)
    chat = opt.apply({"model": "gpt-4o", "messages": [{"role": "user", "content": "hi"}]}, "openai_chat", "s1")
    assert chat["prompt_cache_key"] == "headroom-s1"
    # Gemini caches by prefix on its own and has no such field: nothing is added.
    gem = {"contents": [{"role": "user", "parts": [{"text": "hi"}]}]}
    assert opt.apply(gem, "gemini", "s1") == gem
    assert [f for f in sorted(ADAPTERS) if adapter(f).CACHE_BREAKPOINTS] == ["anthropic"]
