"""Invariant 4: the same history renders with the same bytes on every later turn."""

from __future__ import annotations

import json
import random

from headroom.formats import ANTHROPIC, OPENAI_CHAT


def metrics(turn: int) -> str:
    rng = random.Random(turn)
    rows = [{"ts": 1700000000 + i * 60, "host": f"web-{turn}", "cpu": round(rng.gauss(40, 2), 1), "status": "ok"}
            for i in range(400)]
    rows[137]["cpu"] = 99.0
    return json.dumps(rows)


def log(turn: int) -> str:
    lines = [f"2026-11-21 10:{i // 60:02d}:{i % 60:02d} INFO api: GET /v1/items/{i} 200 in {20 + i % 7}ms" for i in range(500)]
    lines[311] = f"2026-11-21 10:05:11 ERROR api: turn {turn} request 311 failed: upstream reset"
    return "\n".join(lines)


def session_chat(turns: int):
    msgs = [{"role": "system", "content": "You are an SRE agent. " + "Follow the runbook. " * 80}]
    requests = []
    for t in range(turns):
        msgs.append({"role": "user", "content": f"Turn {t}: check web-{t}; what about request 311 and row {t * 7}?"})
        requests.append(json.loads(json.dumps({"model": "gpt-4o", "messages": msgs})))
        tool = "get_metrics" if t % 2 == 0 else "read_log"
        msgs.append({"role": "assistant", "content": None, "tool_calls": [
            {"id": f"call_{t}", "type": "function", "function": {"name": tool, "arguments": json.dumps({"host": f"web-{t}"})}}]})
        msgs.append({"role": "tool", "tool_call_id": f"call_{t}", "content": metrics(t) if t % 2 == 0 else log(t)})
        msgs.append({"role": "assistant", "content": f"Checked web-{t}."})
    msgs.append({"role": "user", "content": "Final: summarise everything."})
    requests.append(json.loads(json.dumps({"model": "gpt-4o", "messages": msgs})))
    return requests


def session_anthropic(turns: int):
    msgs = []
    requests = []
    for t in range(turns):
        msgs.append({"role": "user", "content": f"Turn {t}: check web-{t}; row {t * 3}?"})
        requests.append(json.loads(json.dumps({"model": "claude-sonnet-4-5", "max_tokens": 1000,
                                               "system": "SRE agent. " + "Runbook. " * 200, "messages": msgs})))
        msgs.append({"role": "assistant", "content": [{"type": "tool_use", "id": f"tu_{t}", "name": "get_metrics",
                                                        "input": {"host": f"web-{t}"}}]})
        msgs.append({"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"tu_{t}", "content": metrics(t)}]})
        msgs.append({"role": "assistant", "content": f"Checked web-{t}."})
    return requests


def _prefix_ok(prev, cur, key):
    a, b = prev[key], cur[key]
    assert len(b) > len(a)
    for i, (x, y) in enumerate(zip(a, b)):
        assert json.dumps(x, sort_keys=True) == json.dumps(y, sort_keys=True), f"message {i} changed between turns"


def test_six_turn_chat_session_output_is_an_exact_prefix(fresh_pipeline):
    p = fresh_pipeline()
    outs = [p.compress_body(req) for req in session_chat(6)]
    assert sum(r.tokens_saved for r in outs) > 0
    assert any(d.reason == "memo hit" for d in outs[-1].decisions)
    for prev, cur in zip(outs, outs[1:]):
        _prefix_ok(prev.body, cur.body, "messages")
        # the wire bytes of the shared part are identical too
        n = len(prev.body["messages"])
        assert json.dumps(prev.body["messages"])[:-1] == json.dumps(cur.body["messages"][:n])[:-1]


def test_six_turn_anthropic_session_output_is_an_exact_prefix(fresh_pipeline):
    p = fresh_pipeline()
    outs = [p.compress_body(req, ANTHROPIC) for req in session_anthropic(6)]
    for prev, cur in zip(outs, outs[1:]):
        _prefix_ok(prev.body, cur.body, "messages")
        assert prev.body["system"] == cur.body["system"]


def test_stable_across_pipeline_restart_with_same_config(fresh_pipeline):
    """Determinism: a new process (fresh memo) renders turn-1 history identically."""
    reqs = session_chat(3)
    a = fresh_pipeline().compress_body(reqs[1], OPENAI_CHAT)
    b = fresh_pipeline().compress_body(reqs[1], OPENAI_CHAT)
    assert a.body == b.body


def test_proactive_expansion_is_replayed_on_later_turns(fresh_pipeline):
    """An expanded question renders with the same bytes in every later turn, and an
    expansion is not repeated for a later question that names nothing."""
    lines = [f"2026-11-21 10:{i // 60 % 60:02d}:{i % 60:02d} INFO worker: handled job-{5000 + i} in {20 + i % 9}ms"
             for i in range(600)]
    msgs = [{"role": "system", "content": "Agent. " + "Rules. " * 300},
            {"role": "user", "content": "show the worker log"},
            {"role": "assistant", "content": None, "tool_calls": [
                {"id": "c1", "type": "function", "function": {"name": "tail_log", "arguments": "{}"}}]},
            {"role": "tool", "tool_call_id": "c1", "content": "\n".join(lines)},
            {"role": "assistant", "content": "done"}]
    p = fresh_pipeline()
    outs = []
    for q in ["summarise please", "How long did job-5321 take?", "thanks, anything else?"]:
        msgs = msgs + [{"role": "user", "content": q}]
        outs.append(p.compress_body({"model": "gpt-4o", "messages": msgs}))
        msgs = msgs + [{"role": "assistant", "content": "ok"}]
    expanded = [d for d in outs[1].decisions if d.transform == "context_tracker" and d.action == "expanded"]
    assert expanded and "job-5321" in json.dumps(outs[1].body["messages"][-1])
    assert "job-5321" not in json.dumps(outs[2].body["messages"][-1])  # not re-expanded for "anything else?"
    for prev, cur in zip(outs, outs[1:]):
        _prefix_ok(prev.body, cur.body, "messages")


def test_restarted_process_renders_old_history_with_the_old_bytes(tmp_path):
    """After a restart (fresh memo) the same history under a different question still
    renders as before: the compressed form is read back from the SQLite CCR entry."""
    from headroom import HeadroomConfig, Pipeline
    from headroom.ccr.backends import SQLiteBackend
    from headroom.ccr.store import CompressionStore

    db = tmp_path / "ccr.db"

    def process(config=None):
        return Pipeline(config or HeadroomConfig(), store=CompressionStore(SQLiteBackend(str(db))))

    reqs = session_chat(4)
    before = process().compress_body(reqs[1])  # turn 1 of the session, in the first process
    history = reqs[1]["messages"]
    # The second process sees the same history and a question naming other rows.
    later = json.loads(json.dumps(reqs[1]))
    later["messages"][-1] = {"role": "user", "content": "Which rows around 250 and 333 spiked?"}
    fresh_question = process().compress_body(later)
    # Without the stored form, the new question alone picks other rows to keep.
    plain = Pipeline(HeadroomConfig(), store=CompressionStore()).compress_body(later)
    tool_idx = next(i for i, m in enumerate(history) if m["role"] == "tool")
    assert plain.body["messages"][tool_idx]["content"] != before.body["messages"][tool_idx]["content"]
    assert fresh_question.body["messages"][tool_idx]["content"] == before.body["messages"][tool_idx]["content"]
    assert any(d.reason == "memo hit (from the CCR store)" for d in fresh_question.decisions)
    # Measurements judge each question on its own form: they opt out of the stored one.
    from headroom.transforms.router import CompressionMemo
    own = Pipeline(HeadroomConfig(), store=CompressionStore(SQLiteBackend(str(db))),
                   memo=CompressionMemo(read_store=False)).compress_body(later)
    assert own.body["messages"][tool_idx]["content"] == plain.body["messages"][tool_idx]["content"]
    # A different compression config never reuses it.
    other = HeadroomConfig(smart_crusher={"max_items_after_crush": 5})
    changed = process(other).compress_body(later)
    assert not any(d.reason.startswith("memo hit") for d in changed.decisions)
