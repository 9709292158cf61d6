"""Seed 003: shrinking old tool-call arguments keeps them valid JSON of the same shape."""

from __future__ import annotations

import json

from hypothesis import given, settings
from hypothesis import strategies as st

from headroom.transforms.tool_args import ToolArgsShrinker, shrink_strings


def patch_session(n_calls=11):
    msgs = [{"role": "system", "content": "You edit code."}, {"role": "user", "content": "Refactor the parser."}]
    for i in range(n_calls):
        patch = "".join(f'-    old_line_{k} = "value \\"{k}\\" \\\\ tab\\t"\n+    new_line_{k} = \'ünï {k}\'\n' for k in range(12))
        args = json.dumps({"path": f"src/mod_{i}.py", "patch": patch, "hunks": [1, 2, 3], "dry_run": False,
                           "meta": {"reason": "x" * 700, "n": i}})
        assert len(args) > 500
        msgs.append({"role": "assistant", "content": None, "tool_calls": [
            {"id": f"call_{i}", "type": "function", "function": {"name": "patch", "arguments": args}}]})
        msgs.append({"role": "tool", "tool_call_id": f"call_{i}", "content": "applied"})
    msgs.append({"role": "user", "content": "Now run the tests."})
    return {"model": "gpt-4o", "messages": msgs}


def shape(v):
    if isinstance(v, dict):
        return {k: shape(x) for k, x in v.items()}
    if isinstance(v, list):
        return [shape(x) for x in v]
    return type(v).__name__


def test_seed_003_replay_every_forwarded_argument_parses(fresh_pipeline):
    body = patch_session()
    p = fresh_pipeline(transforms=[ToolArgsShrinker()])
    r = p.compress_body(body)
    shrunk = [d for d in r.decisions if d.action == "shrunk"]
    assert len(shrunk) >= 5  # old calls were shortened …
    for before, after in zip(body["messages"], r.body["messages"]):
        for cb, ca in zip(before.get("tool_calls") or [], after.get("tool_calls") or []):
            a = json.loads(ca["function"]["arguments"])  # … and every one still parses
            b = json.loads(cb["function"]["arguments"])
            assert shape(a) == shape(b)
            assert ca["id"] == cb["id"]
    for d in shrunk:  # the exact original is retrievable
        original = p.store.retrieve(d.ccr_hash).content
        assert original in [c["function"]["arguments"] for m in body["messages"] for c in m.get("tool_calls") or []]
    # the most recent calls are untouched
    assert r.body["messages"][-3] == body["messages"][-3]


def test_anthropic_tool_use_input_stays_an_object(fresh_pipeline):
    msgs = []
    for i in range(8):
        msgs.append({"role": "user", "content": f"step {i}"})
        msgs.append({"role": "assistant", "content": [{"type": "tool_use", "id": f"t{i}", "name": "write",
                                                         "input": {"file": "a.txt", "body": "y" * 2000}}]})
        msgs.append({"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"t{i}", "content": "ok"}]})
    msgs.append({"role": "user", "content": "done?"})
    body = {"model": "claude-sonnet-4-5", "max_tokens": 100, "messages": msgs}
    r = fresh_pipeline(transforms=[ToolArgsShrinker()]).compress_body(body)
    first = r.body["messages"][1]["content"][0]
    assert isinstance(first["input"], dict) and len(first["input"]["body"]) < 600
    assert first["input"]["file"] == "a.txt"


def test_non_json_arguments_are_left_alone(fresh_pipeline):
    body = patch_session(8)
    body["messages"][2]["tool_calls"][0]["function"]["arguments"] = "{not json " + "z" * 900
    r = fresh_pipeline(transforms=[ToolArgsShrinker()]).compress_body(body)
    assert r.body["messages"][2] == body["messages"][2]
    assert any(d.reason == "arguments are not valid JSON" for d in r.decisions)


json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=1500),
    lambda children: st.lists(children, max_size=5) | st.dictionaries(st.text(max_size=10), children, max_size=5),
    max_leaves=20,
)


@settings(max_examples=150, deadline=None)
@given(json_values)
def test_shrink_keeps_shape_and_validity(value):
    new, _ = shrink_strings(value, 100, "hash=abc")
    text = json.dumps(new, ensure_ascii=False)
    assert shape(json.loads(text)) == shape(value)
    assert len(text) <= len(json.dumps(value, ensure_ascii=False)) + 60 * 20
