"""Dropped turns: the lines the question names stay in view under the drop marker."""

from __future__ import annotations

import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from headroom.ccr.markers import find_hashes
from headroom.formats import Block, BlockKind, Message, Role, parse
from headroom.query.anchors import extract_anchors
from headroom.tokens import counter_for
from headroom.transforms.dropped_excerpts import (
    HEADER,
    MAX_HITS_PER_TERM,
    MAX_LINE_CHARS,
    MAX_LINES,
    MAX_TOKENS,
    SHARE_OF_FREED,
    dropped_excerpts,
)
from headroom.transforms.rolling_window import RollingWindow
from tests.core.test_rolling_window import assert_tool_pairs_intact, cfg

PINNED = 'RETRY_QUEUE = "orders-dlq-eu"  # set by ticket OPS-4471'


def filler(t: int) -> str:
    return "\n".join(f"{k:4d}  value_{k} = load_{(k * 7 + t) % 97}(ctx)" for k in range(60))


def chat(question: str, turns: int = 8) -> dict:
    msgs = [{"role": "system", "content": "sys"}]
    for t in range(turns):
        body = filler(t)
        if t == 1:
            lines = body.split("\n")
            lines.insert(30, PINNED)
            body = "\n".join(lines)
        msgs.append({"role": "user", "content": f"step {t}: keep refactoring"})
        msgs.append({"role": "assistant", "content": None, "tool_calls": [
            {"id": f"a{t}", "type": "function", "function": {"name": "read_file", "arguments": "{}"}}]})
        msgs.append({"role": "tool", "tool_call_id": f"a{t}", "content": body})
        msgs.append({"role": "assistant", "content": f"done with step {t}"})
    msgs.append({"role": "user", "content": question})
    return {"model": "gpt-4o", "messages": msgs}


def anthropic(question: str, turns: int = 8) -> dict:
    msgs = []
    for t in range(turns):
        body = filler(t) + ("\n" + PINNED if t == 1 else "")
        msgs.append({"role": "user", "content": f"step {t}: keep refactoring"})
        msgs.append({"role": "assistant", "content": [{"type": "tool_use", "id": f"t{t}", "name": "read_file", "input": {}}]})
        msgs.append({"role": "user", "content": [{"type": "tool_result", "tool_use_id": f"t{t}", "content": body}]})
        msgs.append({"role": "assistant", "content": f"done with step {t}"})
    msgs.append({"role": "user", "content": question})
    return {"model": "claude-sonnet-4-5", "max_tokens": 50, "system": "sys", "messages": msgs}


# Paraphrases naming the pinned line by different kinds of anchor: an identifier in
# backticks, a bare identifier, a ticket id, a quoted value.
QUESTIONS = [
    "Which queue does `RETRY_QUEUE` point at?",
    "remind me what RETRY_QUEUE was set to earlier",
    "What did ticket OPS-4471 change?",
    "Is 'orders-dlq-eu' still the dead-letter queue?",
]


@pytest.mark.parametrize("question", QUESTIONS)
@pytest.mark.parametrize("make", [chat, anthropic])
def test_named_line_of_a_dropped_turn_stays_in_view(fresh_pipeline, make, question):
    p = fresh_pipeline(cfg(2500), transforms=[RollingWindow()])
    r = p.compress_body(make(question))
    assert r.tokens_after <= 2500 < r.tokens_before
    assert_tool_pairs_intact(r.body)
    text = json.dumps(r.body, ensure_ascii=False)
    seen = "\n".join(b.text for _, _, b in parse(r.body).blocks() if b.text and b.text != question)
    assert PINNED in seen  # verbatim, outside the question
    assert HEADER in seen
    # ... and still only one copy, under the marker: the turn itself was dropped to CCR.
    [h] = find_hashes(text)
    assert "OPS-4471" in p.store.retrieve(h).content


def test_question_naming_nothing_dropped_leaves_the_marker_alone(fresh_pipeline):
    p = fresh_pipeline(cfg(2500), transforms=[RollingWindow()])
    r = p.compress_body(chat("Summarise the refactor so far."))
    text = json.dumps(r.body)
    assert HEADER not in text and "RETRY_QUEUE" not in text


def _msg(text: str, role: Role = Role.TOOL, name: str = "read_file") -> Message:
    return Message(role, [Block(BlockKind.TOOL_RESULT if role is Role.TOOL else BlockKind.TEXT, text=text,
                                tool_name=name if role is Role.TOOL else None)], raw=None)


def test_common_terms_name_nothing_and_rare_terms_rank_first():
    common = "\n".join(f"cache_hit key={k} node=web-7" for k in range(MAX_HITS_PER_TERM + 1))
    removed = [_msg(common), _msg("x = 1\nnode=web-7 evicted key=rare_key_99\ny = 2")]
    counter = counter_for("gpt-4o")
    out = dropped_excerpts(removed, extract_anchors("why was rare_key_99 evicted from web-7?"), counter, 10_000)
    lines = out.split("\n")
    assert lines[0] == HEADER and len(lines) == 2
    assert lines[1] == "  [read_file] node=web-7 evicted key=rare_key_99"
    # Only the common term: nothing selective, no excerpt.
    assert dropped_excerpts(removed, extract_anchors("what happened on web-7?"), counter, 10_000) == ""


def test_long_lines_are_cut_around_the_hit_and_allowance_holds():
    line = "a" * 2000 + " ERR_CODE_7781 " + "b" * 2000
    counter = counter_for("gpt-4o")
    out = dropped_excerpts([_msg(line)], extract_anchors("what is ERR_CODE_7781?"), counter, 10_000)
    body = out.split("\n")[1]
    assert "ERR_CODE_7781" in body and body.startswith("  [read_file] …") and body.endswith("…")
    assert len(body) <= len("  [read_file] ") + MAX_LINE_CHARS + 2
    # A drop that frees little leaves no room for excerpts.
    assert dropped_excerpts([_msg(line)], extract_anchors("what is ERR_CODE_7781?"), counter, 50) == ""


_word = st.sampled_from(["alpha", "beta_7", "gamma", "ORD-991", "delta", "x", "42", "key=ab12", "  ", "é"])
_line = st.lists(_word, min_size=0, max_size=12).map(" ".join)
_text = st.lists(_line, min_size=1, max_size=40).map("\n".join)


@settings(max_examples=150, deadline=None)
@given(texts=st.lists(_text, min_size=1, max_size=4), question=st.lists(_word, min_size=1, max_size=6).map(" ".join),
       freed=st.integers(min_value=0, max_value=5000))
def test_excerpts_are_verbatim_bounded_and_in_order(texts, question, freed):
    counter = counter_for("gpt-4o")
    removed = [_msg(t) for t in texts]
    out = dropped_excerpts(removed, extract_anchors(question), counter, freed)
    if not out:
        return
    lines = out.split("\n")
    assert lines[0] == HEADER
    assert 1 <= len(lines) - 1 <= MAX_LINES
    assert counter.count(out) <= min(MAX_TOKENS, int(freed * SHARE_OF_FREED)) + len(lines)
    for ln in lines[1:]:
        assert ln.startswith("  [read_file] ")
        piece = ln[len("  [read_file] "):].strip("…")
        assert any(piece in t for t in texts)
