"""Provider cache optimisation: breakpoint rules, the stability report, and a replayed
10-turn agent session whose forwarded prefix stays byte-identical turn to turn."""

from __future__ import annotations

import json
from itertools import pairwise

import anthropic
import openai
from tests.client.conftest import big_tool_output

from headroom import HeadroomClient
from headroom.cache import (
    MAX_BREAKPOINTS,
    AnthropicCacheOptimizer,
    CacheOptimizer,
    PrefixTracker,
    count_breakpoints,
)

SYSTEM = "You are a meticulous site-reliability assistant. " + " ".join(
    f"Rule {i}: always quote the exact file path and line number of every error you cite." for i in range(120))
TOOLS = [{"name": "search", "description": "Search the logs.", "input_schema": {
    "type": "object", "properties": {"q": {"type": "string"}}, "required": ["q"]}}]


def _positions(body):
    """Where cache_control markers sit: ('tools'|'system'|msg index, block index)."""
    out = []
    for i, t in enumerate(body.get("tools") or []):
        if "cache_control" in t:
            out.append(("tools", i))
    if isinstance(body.get("system"), list):
        out += [("system", j) for j, b in enumerate(body["system"]) if "cache_control" in b]
    for i, m in enumerate(body["messages"]):
        if isinstance(m["content"], list):
            out += [(i, j) for j, b in enumerate(m["content"]) if "cache_control" in b]
    return out


def _history(turns: int, words: int = 400):
    msgs = []
    for k in range(turns):
        msgs.append({"role": "user", "content": f"question {k} " + "context " * words})
        msgs.append({"role": "assistant", "content": f"answer {k}"})
    msgs.append({"role": "user", "content": "latest question"})
    return msgs


def test_static_prefix_and_history_breakpoints_within_limit():
    opt = AnthropicCacheOptimizer(min_tokens=1024)
    body = {"model": "claude-sonnet-4-5", "system": SYSTEM, "tools": TOOLS, "messages": _history(12)}
    out = opt.apply(body)
    assert "cache_control" not in json.dumps(body), "the caller's body is never mutated"
    pos = _positions(out)
    assert pos[0] == ("system", 0)  # string system became one text block carrying the marker
    # one history breakpoint per turn, on the turn's last message (new bytes only)
    assert pos == [("system", 0), (len(out["messages"]) - 1, 0)]


def test_breakpoints_never_move_as_the_session_grows():
    opt = AnthropicCacheOptimizer(min_tokens=512)
    msgs = _history(1)
    seen: list = []
    for turn in range(10):
        out = opt.apply({"model": "claude-sonnet-4-5", "system": SYSTEM, "messages": msgs})
        pos = _positions(out)
        assert pos[: len(seen)] == seen, f"turn {turn}: an earlier breakpoint moved"
        assert len(pos) <= MAX_BREAKPOINTS
        seen = pos
        msgs = msgs + [{"role": "assistant", "content": f"a{turn}"},
                       {"role": "user", "content": f"q{turn} " + "more " * 3000}]
    assert len(seen) == MAX_BREAKPOINTS


def test_client_breakpoints_count_against_the_limit_and_are_kept():
    msgs = _history(10)
    for m in msgs[:3]:
        m["content"] = [{"type": "text", "text": m["content"], "cache_control": {"type": "ephemeral"}}]
    body = {"model": "claude-sonnet-4-5", "system": SYSTEM, "messages": msgs}
    assert count_breakpoints(body) == 3
    out = AnthropicCacheOptimizer().apply(body)
    assert count_breakpoints(out) == MAX_BREAKPOINTS
    for m in msgs[:3]:
        m["content"][0]["cache_control"] = {"type": "ephemeral"}
    msgs.append({"role": "assistant", "content": [{"type": "text", "text": "x", "cache_control": {"type": "ephemeral"}}]})
    msgs.append({"role": "user", "content": "y"})
    full = AnthropicCacheOptimizer().apply({"model": "claude-sonnet-4-5", "system": SYSTEM, "messages": msgs})
    assert count_breakpoints(full) == 4 and "cache_control" not in json.dumps(full["system"])


def test_short_prompts_get_no_breakpoints():
    out = AnthropicCacheOptimizer().apply({"model": "claude-sonnet-4-5", "system": "hi",
                                           "messages": [{"role": "user", "content": "a"}]})
    assert count_breakpoints(out) == 0


def test_edited_history_frees_the_breakpoint():
    opt = AnthropicCacheOptimizer(min_tokens=256)
    msgs = _history(6)
    first = _positions(opt.apply({"model": "m", "system": SYSTEM, "messages": msgs}, session_id="s"))
    msgs[3] = {"role": "assistant", "content": "rewritten"}  # history edited (e.g. truncated)
    second = _positions(opt.apply({"model": "m", "system": SYSTEM, "messages": msgs}, session_id="s"))
    assert ("system", 0) in first and ("system", 0) in second
    assert len(second) <= MAX_BREAKPOINTS


def test_prefix_tracker_reports_extension_and_breaks():
    t = PrefixTracker()
    a = {"messages": [{"role": "user", "content": "a"}]}
    b = {"messages": [*a["messages"], {"role": "assistant", "content": "b"}, {"role": "user", "content": "c"}]}
    c = {"messages": [{"role": "user", "content": "CHANGED"}, *b["messages"][1:]]}
    assert t.observe(a).extends_previous is False
    tb = t.observe(b)
    assert tb.extends_previous and tb.stable_elements == 1 and tb.elements == 3
    tc = t.observe(c)
    assert not tc.extends_previous and tc.stable_elements == 0
    assert [x["turn"] for x in t.report()["default"]] == [1, 2, 3]
    assert not t.all_extend()


def test_openai_prompt_cache_key_is_opt_in():
    body = {"model": "gpt-4o", "messages": [{"role": "user", "content": "x"}]}
    assert "prompt_cache_key" not in CacheOptimizer().apply(body, "openai_chat")
    keyed = CacheOptimizer(openai_prompt_cache_key=True).apply(body, "openai_chat")
    assert keyed["prompt_cache_key"].startswith("headroom-")
    mine = CacheOptimizer(openai_prompt_cache_key=True).apply({**body, "prompt_cache_key": "mine"}, "openai_chat")
    assert mine["prompt_cache_key"] == "mine"


def _raw_array(raw: bytes, key: str) -> str:
    """The exact bytes of the JSON array ``key`` in a raw request body."""
    text = raw.decode()
    start = text.index(f'"{key}":') + len(key) + 3
    while text[start] != "[":
        start += 1
    _, end = json.JSONDecoder().raw_decode(text, start)
    return text[start:end]


def _assert_byte_stable(bodies: list[bytes], key: str) -> None:
    for n, (prev, cur) in enumerate(pairwise(bodies), start=2):
        a, b = _raw_array(prev, key), _raw_array(cur, key)
        assert b.startswith(a[:-1]), f"turn {n}: forwarded {key} does not extend turn {n - 1} byte for byte"


def test_replayed_anthropic_session_keeps_the_forwarded_prefix_byte_identical(fake):
    ant = anthropic.Anthropic(base_url=fake.url, api_key="k", max_retries=0)
    client = HeadroomClient(original_client=ant, cache_optimizer=True)
    history: list[dict] = []
    for turn in range(10):
        history += [
            {"role": "user", "content": f"Turn {turn}: look for errors in service {turn}."},
            {"role": "assistant", "content": [{"type": "tool_use", "id": f"toolu_{turn}", "name": "search", "input": {"q": f"svc{turn}"}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"toolu_{turn}", "content": big_tool_output(seed=f"t{turn}")}]},
        ]
        resp = client.messages.create(model="claude-sonnet-4-5", max_tokens=64, system=SYSTEM, tools=TOOLS, messages=history)
        history.append({"role": "assistant", "content": [b.model_dump(exclude_none=True) for b in resp.content]})
    bodies = [r.raw for r in fake.state.requests]
    assert len(bodies) == 10
    parsed = [json.loads(b) for b in bodies]
    # tools and system go out identically every turn, marker included
    assert all(p["system"] == parsed[0]["system"] and p["tools"] == parsed[0]["tools"] for p in parsed)
    assert "cache_control" in json.dumps(parsed[0]["system"])
    _assert_byte_stable(bodies, "messages")
    seen: list = []
    for p in parsed:
        pos = _positions(p)
        assert len(pos) <= MAX_BREAKPOINTS and pos[: len(seen)] == seen
        seen = pos
    assert len(seen) >= 3, "history breakpoints were added as the session grew"
    # every tool output was compressed, and the turn-1 compressed form never changed
    assert all("Retrieve more: hash=" in json.dumps(p["messages"][2]) for p in parsed)
    report = client.cache_report()
    (turns,) = report.values()
    assert [t["extends_previous"] for t in turns] == [False] + [True] * 9
    assert client.get_summary()["totals"]["tokens_saved"] > 0


def test_replayed_openai_session_keeps_the_forwarded_prefix_byte_identical(fake):
    oai = openai.OpenAI(base_url=fake.url + "/v1", api_key="k", max_retries=0)
    client = HeadroomClient(original_client=oai, cache_optimizer=True)
    history: list[dict] = [{"role": "system", "content": SYSTEM}]
    for turn in range(10):
        history += [
            {"role": "user", "content": f"Turn {turn}: look for errors in service {turn}."},
            {"role": "assistant", "content": None, "tool_calls": [
                {"id": f"call_{turn}", "type": "function", "function": {"name": "search", "arguments": json.dumps({"q": turn})}}]},
            {"role": "tool", "tool_call_id": f"call_{turn}", "content": big_tool_output(seed=f"o{turn}")},
        ]
        resp = client.chat.completions.create(model="gpt-4o", messages=history)
        history.append(resp.choices[0].message)  # SDK objects in the history are fine
    bodies = [r.raw for r in fake.state.requests]
    _assert_byte_stable(bodies, "messages")
    (turns,) = client.cache_report().values()
    assert all(t["extends_previous"] for t in turns[1:])
