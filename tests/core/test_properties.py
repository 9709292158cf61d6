"""Property tests for DESIGN §3 invariants over generated conversations in all formats.

One abstract conversation (turns of user text, tool calls with outputs of several kinds,
assistant replies) is rendered into OpenAI Chat, OpenAI Responses and Anthropic bodies
and sent through the full default pipeline.
"""

from __future__ import annotations

import copy
import json
import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from headroom.ccr.markers import find_hashes
from headroom.config import ContextConfig, HeadroomConfig
from headroom.formats import ANTHROPIC, OPENAI_CHAT, OPENAI_RESPONSES, is_retrieve_tool
from headroom.tokens import count_tokens

TOOLS = ["shell", "fetch_metrics", "query_db", "headroom_retrieve", "srv__headroom_retrieve", "secret_vault"]
KINDS = ["json_rows", "log", "text", "search", "diff", "small", "null", "json_object"]


def make_output(kind: str, n: int, seed: int) -> str | None:
    rng = random.Random(seed)
    if kind == "null":
        return None
    if kind == "small":
        return f"ok {seed}"
    if kind == "json_rows":
        rows = [{"id": f"row-{i}", "ts": 1700000000 + i * 60, "status": "ok", "latency_ms": rng.randint(20, 40)}
                for i in range(n)]
        if n:
            rows[rng.randrange(n)].update(status="error", error="connection reset by peer")
        return json.dumps(rows)
    if kind == "json_object":
        return json.dumps({"page": 1, "items": [{"name": f"svc-{i}", "replicas": 3} for i in range(n)], "total": n})
    if kind == "log":
        lines = [f"2026-11-21 10:{i // 60 % 60:02d}:{i % 60:02d} INFO worker: handled job {i}" for i in range(n)]
        if n:
            lines.insert(rng.randrange(n), "2026-11-21 10:30:00 ERROR worker: job 4242 failed: disk full")
        return "\n".join(lines)
    if kind == "search":
        return "\n".join(f"src/pkg/mod_{i % 9}.py:{i + 1}:    value = compute_{i}(x)" for i in range(n))
    if kind == "diff":
        hunks = [f"diff --git a/f{i}.py b/f{i}.py\n--- a/f{i}.py\n+++ b/f{i}.py\n@@ -1,5 +1,5 @@\n ctx\n ctx\n-old {i}\n+new {i}\n ctx\n ctx"
                 for i in range(max(2, n // 10))]
        return "\n".join(hunks)
    words = ["the", "service", "restarted", "after", "config", "change", "and", "latency", "recovered", "quickly"]
    return " ".join(rng.choice(words) for _ in range(n * 8)) + "."


@st.composite
def conversations(draw):
    turns = []
    n_turns = draw(st.integers(1, 4))
    call_no = 0
    for t in range(n_turns):
        calls = []
        for _ in range(draw(st.integers(0, 3))):
            kind = draw(st.sampled_from(KINDS))
            size = draw(st.sampled_from([0, 5, 40, 200]))
            calls.append({
                "id": f"call_{call_no}",
                "name": draw(st.sampled_from(TOOLS)),
                "args": json.dumps({"q": f"target {call_no}", "note": "z" * draw(st.sampled_from([0, 800]))}),
                "output": make_output(kind, size, call_no),
            })
            call_no += 1
        turns.append({"user": f"Turn {t}: what about row-{draw(st.integers(0, 199))}?", "calls": calls,
                      "reply": f"Reply {t}."})
    return turns


def to_chat(turns):
    msgs = [{"role": "system", "content": "You are an agent. Today is 2026-11-22."}]
    for t in turns:
        msgs.append({"role": "user", "content": t["user"]})
        if t["calls"]:
            msgs.append({"role": "assistant", "content": None, "tool_calls": [
                {"id": c["id"], "type": "function", "function": {"name": c["name"], "arguments": c["args"]}}
                for c in t["calls"]]})
            for c in t["calls"]:
                msgs.append({"role": "tool", "tool_call_id": c["id"], "content": c["output"]})
        msgs.append({"role": "assistant", "content": t["reply"]})
    msgs.append({"role": "user", "content": "Summarise."})
    return {"model": "gpt-4o", "messages": msgs}


def to_anthropic(turns):
    msgs = []
    for t in turns:
        msgs.append({"role": "user", "content": t["user"]})
        if t["calls"]:
            msgs.append({"role": "assistant", "content": [
                {"type": "tool_use", "id": c["id"], "name": c["name"], "input": json.loads(c["args"])} for c in t["calls"]]})
            msgs.append({"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": c["id"], "content": c["output"] if c["output"] is not None else []}
                for c in t["calls"]]})
        msgs.append({"role": "assistant", "content": [{"type": "text", "text": t["reply"]}]})
    msgs.append({"role": "user", "content": "Summarise."})
    return {"model": "claude-sonnet-4-5", "max_tokens": 512, "system": "You are an agent. Today is 2026-11-22.",
            "messages": msgs}


def to_responses(turns):
    items = []
    for t in turns:
        items.append({"role": "user", "content": t["user"]})
        for c in t["calls"]:
            items.append({"type": "function_call", "call_id": c["id"], "name": c["name"], "arguments": c["args"]})
        for c in t["calls"]:
            items.append({"type": "function_call_output", "call_id": c["id"],
                          "output": c["output"] if c["output"] is not None else ""})
        items.append({"type": "message", "role": "assistant", "content": [{"type": "output_text", "text": t["reply"]}]})
    items.append({"role": "user", "content": "Summarise."})
    return {"model": "gpt-4.1", "instructions": "You are an agent. Today is 2026-11-22.", "input": items}


RENDER = {OPENAI_CHAT: to_chat, ANTHROPIC: to_anthropic, OPENAI_RESPONSES: to_responses}


def tool_outputs(body, fmt):
    """call id -> output as sent (string or structure)."""
    if fmt == OPENAI_CHAT:
        return {m["tool_call_id"]: m["content"] for m in body["messages"] if m["role"] == "tool"}
    if fmt == ANTHROPIC:
        return {b["tool_use_id"]: b["content"] for m in body["messages"] if isinstance(m["content"], list)
                for b in m["content"] if b.get("type") == "tool_result"}
    return {i["call_id"]: i["output"] for i in body["input"] if i.get("type") == "function_call_output"}


def tool_calls(body, fmt):
    """call id -> (name, arguments as JSON text or object)."""
    if fmt == OPENAI_CHAT:
        return {c["id"]: (c["function"]["name"], c["function"]["arguments"]) for m in body["messages"]
                for c in m.get("tool_calls") or []}
    if fmt == ANTHROPIC:
        return {b["id"]: (b["name"], b["input"]) for m in body["messages"] if isinstance(m["content"], list)
                for b in m["content"] if b.get("type") == "tool_use"}
    return {i["call_id"]: (i["name"], i["arguments"]) for i in body["input"] if i.get("type") == "function_call"}


def human_texts(body, fmt):
    """Every user/assistant text as the human or model wrote it."""
    key = "input" if fmt == OPENAI_RESPONSES else "messages"
    out = []
    for m in body[key]:
        if m.get("role") not in ("user", "assistant"):
            continue
        c = m.get("content")
        if isinstance(c, str):
            out.append(c)
        elif isinstance(c, list):
            out.extend(p["text"] for p in c if p.get("type") in ("text", "output_text", "input_text"))
    return out


def assert_provider_valid(out, fmt):
    outputs, calls = tool_outputs(out, fmt), tool_calls(out, fmt)
    assert set(outputs) == set(calls), "every tool call has its result and vice versa"
    if fmt == ANTHROPIC:
        msgs = out["messages"]
        assert msgs[0]["role"] == "user"
        for a, b in zip(msgs, msgs[1:]):
            assert a["role"] != b["role"], "roles alternate"
            uses = [x["id"] for x in a["content"] if isinstance(a["content"], list) and x.get("type") == "tool_use"]
            if uses:
                results = [x["tool_use_id"] for x in b["content"] if isinstance(b["content"], list) and x.get("type") == "tool_result"]
                assert set(uses) == set(results), "tool_result follows its tool_use"
    if fmt == OPENAI_CHAT:
        seen: set[str] = set()
        for m in out["messages"]:
            seen.update(c["id"] for c in m.get("tool_calls") or [])
            if m["role"] == "tool":
                assert m["tool_call_id"] in seen, "tool message answers an earlier call"


def originals_in(body, fmt):
    """Every string a lossy step could have stored: outputs, arguments, rendered messages."""
    found = set()
    for v in tool_outputs(body, fmt).values():
        if isinstance(v, str):
            found.add(v)
    for _, args in tool_calls(body, fmt).values():
        found.add(args if isinstance(args, str) else json.dumps(args, ensure_ascii=False))
    return found


PROFILES = {
    "default": HeadroomConfig(),
    "tight_budget": HeadroomConfig(context=ContextConfig(max_tokens=1500)),
}


@pytest.mark.parametrize("profile", sorted(PROFILES))
@pytest.mark.parametrize("fmt", [OPENAI_CHAT, ANTHROPIC, OPENAI_RESPONSES])
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture])
@given(turns=conversations())
def test_invariants(fresh_pipeline, fmt, profile, turns):
    body = RENDER[fmt](turns)
    pristine = copy.deepcopy(body)
    cfg = PROFILES[profile]
    p = fresh_pipeline(cfg)
    r = p.compress_body(body)
    out = r.body
    assert body == pristine, "the caller's body is never mutated"

    # 1. provider-valid, ids unchanged, arguments still parse
    assert_provider_valid(out, fmt)
    in_calls, out_calls = tool_calls(pristine, fmt), tool_calls(out, fmt)
    for cid, (name, args) in out_calls.items():
        assert in_calls[cid][0] == name
        if isinstance(args, str) and isinstance(in_calls[cid][1], str):
            json.loads(args)
    if profile == "default":
        assert set(out_calls) == set(in_calls), "nothing dropped without a budget"

    # 2. reversible: every marker's hash returns an exact original (or dropped messages)
    text = json.dumps(out, ensure_ascii=False)
    originals = originals_in(pristine, fmt)
    for h in find_hashes(text):
        got = p.store.retrieve(h, record=False)
        assert got is not None, f"hash {h} not retrievable"
        entry = p.store.get(h)
        assert got.content in originals or entry.meta.get("kind") == "dropped_messages"

    # 3. retrieve outputs are byte-identical; 5. protected text never rewritten
    in_out, out_out = tool_outputs(pristine, fmt), tool_outputs(out, fmt)
    for cid, (name, _) in in_calls.items():
        if is_retrieve_tool(name) and cid in out_out:
            assert out_out[cid] == in_out[cid]
    kept_texts = set(human_texts(pristine, fmt))
    for t in human_texts(out, fmt):
        assert t in kept_texts or "Retrieve more: hash=" in t or t.startswith("[headroom: original items")

    # 4. deterministic: a fresh pipeline gives byte-identical output
    again = fresh_pipeline(cfg).compress_body(copy.deepcopy(pristine)).body
    assert json.dumps(again, sort_keys=True) == json.dumps(out, sort_keys=True)

    # never worse (CacheAligner may spend a few tokens on its trailer to keep the prefix cacheable)
    aligner_cost = sum(d.tokens_after - d.tokens_before for d in r.decisions if d.transform == "cache_aligner")
    assert r.tokens_after <= r.tokens_before + aligner_cost
    assert count_tokens(json.dumps(out)) <= count_tokens(json.dumps(pristine)) + 50
