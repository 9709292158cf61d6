"""ContextTracker: a later question that names compressed items gets them appended."""

from __future__ import annotations

import copy
import json

import pytest

from headroom.ccr import CompressionStore
from headroom.transforms.expansion import HEADER, ContextTracker, expansion_terms
from headroom.config import HeadroomConfig
from headroom.formats import parse
from headroom.pipeline import Pipeline
from headroom.tokens import counter_for
from headroom.transforms.base import TransformContext
from headroom.compressors.base import Compressed
from headroom.compressors.detect import ContentType
from headroom.transforms.router import ContentRouter

ORDERS = [
    {"id": f"ORD-{i:04d}", "customer": f"user_{i}", "status": "lost" if i == 42 else "delivered"}
    for i in range(200)
]
ORDERS_TEXT = json.dumps(ORDERS)


class KeepFirstItems:
    """A deterministic lossy compressor: keeps the first three items of a JSON array."""

    name = "keep_first"

    def compress(self, inp) -> Compressed | None:
        data = json.loads(inp.text)
        return Compressed(json.dumps(data[:3]), len(data), 3, "head")


@pytest.fixture
def pipeline():
    """A router with the lossy test compressor, followed by a ContextTracker."""

    def make(*, tracker: bool = True, **tracker_kw):
        transforms = [ContentRouter({ContentType.JSON_ARRAY: KeepFirstItems()})]
        if tracker:
            transforms.append(ContextTracker(**tracker_kw))
        return Pipeline(HeadroomConfig(), store=CompressionStore(), transforms=transforms)

    return make


def chat(question: str, *, extra: list | None = None) -> dict:
    return {
        "model": "gpt-4o",
        "messages": [
            {"role": "system", "content": "You are helpful."},
            {"role": "user", "content": "List all orders."},
            {
                "role": "assistant",
                "content": None,
                "tool_calls": [
                    {
                        "id": "c1",
                        "type": "function",
                        "function": {"name": "list_orders", "arguments": "{}"},
                    }
                ],
            },
            {"role": "tool", "tool_call_id": "c1", "content": ORDERS_TEXT},
            {"role": "assistant", "content": "There are 200 orders."},
            *(extra or []),
            {"role": "user", "content": question},
        ],
    }


def decisions(result, action=None):
    return [
        d
        for d in result.decisions
        if d.transform == "context_tracker" and (action is None or d.action == action)
    ]


def test_expands_matching_items_into_a_new_block_of_the_last_user_message(pipeline):
    body = chat("What happened to order ORD-0042?")
    result = pipeline().compress_body(copy.deepcopy(body))
    msgs = result.body["messages"]
    # Everything before the last message is exactly what the router alone produces.
    router_only = pipeline(tracker=False).compress_body(copy.deepcopy(body))
    assert json.dumps(msgs[:-1]) == json.dumps(router_only.body["messages"][:-1])
    assert "ORD-0042" not in msgs[3]["content"]  # the compressed output hides it
    last = msgs[-1]
    assert last["role"] == "user"
    assert last["content"][0] == {"type": "text", "text": "What happened to order ORD-0042?"}
    added = last["content"][1]["text"]
    assert added.startswith(HEADER)
    assert json.dumps(ORDERS[42]) in added
    assert "ORD-0041" not in added and "ORD-0043" not in added
    h = result.ccr_hashes[0]
    assert f"hash={h}" in added
    (d,) = decisions(result, "expanded")
    assert d.ccr_hash == h and d.tool_name == "list_orders" and d.message_index == len(msgs) - 1
    assert d.block_index == 1 and d.tokens_after > 0
    assert "context_tracker" in result.transforms_applied


def test_common_words_do_not_fire(pipeline):
    result = pipeline().compress_body(
        chat("Which of them were lost, and why is the status so bad?")
    )
    assert (
        result.body["messages"][-1]["content"]
        == "Which of them were lost, and why is the status so bad?"
    )
    (d,) = decisions(result)
    assert d.action == "skipped" and "no concrete" in d.reason


def test_anchor_that_matches_nothing_is_a_recorded_no_op(pipeline):
    result = pipeline().compress_body(chat("Is ORD-9999 in there?"))
    assert result.body["messages"][-1]["content"] == "Is ORD-9999 in there?"
    (d,) = decisions(result)
    assert d.action == "kept" and "ord-9999" in d.reason


def test_whole_token_matching(pipeline):
    # "user_4" is a prefix of user_42 and user_40..49, but names only user_4.
    result = pipeline().compress_body(chat("Show me user_4 please"))
    added = result.body["messages"][-1]["content"][1]["text"]
    assert json.dumps(ORDERS[4]) in added
    assert "user_42" not in added and "user_40" not in added


def test_small_numbers_are_not_anchors():
    assert expansion_terms("show the last 10 rows of ORD-0042") == ["ord-0042"]
    assert expansion_terms("what about it?") == []


def test_budget_limits_items_and_says_how_many_more(pipeline):
    q = "Compare " + ", ".join(f"ORD-{i:04d}" for i in range(100, 110))
    result = pipeline(max_items=4).compress_body(chat(q))
    added = result.body["messages"][-1]["content"][1]["text"]
    assert sum(f'"ORD-{i:04d}"' in added for i in range(100, 110)) == 4
    assert "6 more matching items" in added
    result = pipeline(max_tokens=40).compress_body(chat(q))
    added = result.body["messages"][-1]["content"][1]["text"]
    assert 1 <= sum(f'"ORD-{i:04d}"' in added for i in range(100, 110)) < 4


def test_items_already_visible_are_not_repeated(pipeline):
    result = pipeline().compress_body(chat("Tell me about ORD-0001"))  # kept by the compressor
    assert isinstance(result.body["messages"][-1]["content"], str)
    assert decisions(result)[0].action == "kept"


def test_retrieve_outputs_are_never_expanded(pipeline):
    p = pipeline()
    first = p.compress_body(chat("List all orders."))
    h = first.ccr_hashes[0]
    marker_text = first.body["messages"][3]["content"]
    # A headroom_retrieve result that happens to contain a marker (and the hash was
    # fetched already): neither may trigger an expansion.
    extra = [
        {"role": "user", "content": "Get the rest."},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "r1",
                    "type": "function",
                    "function": {"name": "headroom_retrieve", "arguments": json.dumps({"hash": h})},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "r1", "content": marker_text},
        {"role": "assistant", "content": "ok"},
    ]
    result = p.compress_body(chat("And ORD-0042?", extra=extra))
    assert result.body["messages"][-1]["content"] == "And ORD-0042?"
    reasons = {d.reason for d in decisions(result)}
    assert "headroom_retrieve output" in reasons
    assert "already retrieved in this conversation" in reasons


def test_only_when_the_last_message_is_a_user_turn(pipeline):
    body = chat("What about ORD-0042?")
    body["messages"].append({"role": "assistant", "content": "Let me check."})
    result = pipeline().compress_body(body)
    assert result.body["messages"][-2]["content"] == "What about ORD-0042?"
    assert decisions(result)[0].reason == "the last message is not a user turn"


def test_not_on_an_agent_loop_step_without_question_text(pipeline):
    body = {
        "model": "claude-sonnet-4",
        "max_tokens": 100,
        "messages": [
            {"role": "user", "content": "List all orders, then check ORD-0042."},
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "t1", "name": "list_orders", "input": {}}],
            },
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "t1", "content": ORDERS_TEXT}],
            },
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "t2", "name": "ping", "input": {}}],
            },
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "t2", "content": "pong"}],
            },
        ],
    }
    result = pipeline().compress_body(copy.deepcopy(body), "anthropic")
    assert result.body["messages"][-1] == body["messages"][-1]
    assert decisions(result)[0].reason == "the last user message holds no question text"


def test_deterministic(pipeline):
    p = pipeline()
    a = p.compress_body(chat("ORD-0042 and ORD-0150?"))
    b = p.compress_body(chat("ORD-0042 and ORD-0150?"))
    assert json.dumps(a.body) == json.dumps(b.body)


def test_expansion_is_not_a_retrieval(pipeline):
    p = pipeline()
    p.compress_body(chat("ORD-0042?"))
    assert p.store.stats()["retrieve_hits"] == 0


def test_anthropic_and_responses_formats(pipeline):
    p = pipeline()
    anthropic = {
        "model": "claude-sonnet-4",
        "max_tokens": 100,
        "messages": [
            {"role": "user", "content": "List all orders."},
            {
                "role": "assistant",
                "content": [{"type": "tool_use", "id": "t1", "name": "list_orders", "input": {}}],
            },
            {
                "role": "user",
                "content": [{"type": "tool_result", "tool_use_id": "t1", "content": ORDERS_TEXT}],
            },
            {"role": "assistant", "content": "200 orders."},
            {
                "role": "user",
                "content": [
                    {
                        "type": "text",
                        "text": "Who owns ORD-0042?",
                        "cache_control": {"type": "ephemeral"},
                    }
                ],
            },
        ],
    }
    out = p.compress_body(copy.deepcopy(anthropic), "anthropic").body["messages"][-1]["content"]
    assert out[0] == {
        "type": "text",
        "text": "Who owns ORD-0042?",
        "cache_control": {"type": "ephemeral"},
    }
    assert out[1]["type"] == "text" and json.dumps(ORDERS[42]) in out[1]["text"]

    responses = {
        "model": "gpt-4o",
        "input": [
            {"role": "user", "content": "List all orders."},
            {"type": "function_call", "call_id": "f1", "name": "list_orders", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "f1", "output": ORDERS_TEXT},
            {"role": "user", "content": "Who owns ORD-0042?"},
        ],
    }
    out = p.compress_body(copy.deepcopy(responses), "openai_responses").body["input"][-1]
    assert out["role"] == "user"
    assert out["content"][0] == {"type": "input_text", "text": "Who owns ORD-0042?"}
    assert (
        out["content"][1]["type"] == "input_text"
        and json.dumps(ORDERS[42]) in out["content"][1]["text"]
    )


def test_no_store_is_a_recorded_skip():
    cfg = HeadroomConfig()
    p = Pipeline(cfg, store=None, transforms=[ContextTracker()])
    p.store = None
    result = p.compress_body(chat("ORD-0042?"))
    assert decisions(result)[0].reason == "no CCR store"


def test_invalid_limits():
    with pytest.raises(ValueError):
        ContextTracker(max_items=0)


def test_with_the_real_compressors_across_turns():
    """Turn 1 compresses a log; turn 2 asks about a line the memoised form dropped."""
    from headroom.transforms.router import CompressionMemo

    log = "\n".join(
        f"2026-11-22 04:{i // 60:02d}:{i % 60:02d} INFO svc-{i % 7} request req-{i:04d} served in {20 + i * 37 % 400} ms"
        if i % 97
        else f"2026-11-22 04:{i // 60:02d}:{i % 60:02d} ERROR svc-{i % 7} request req-{i:04d} failed: timeout"
        for i in range(1, 400)
    )
    history = [
        {"role": "user", "content": "Which services are slow?"},
        {
            "role": "assistant",
            "content": None,
            "tool_calls": [
                {
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "read_log", "arguments": "{}"},
                }
            ],
        },
        {"role": "tool", "tool_call_id": "c1", "content": log},
    ]
    p = Pipeline(
        HeadroomConfig(),
        store=CompressionStore(),
        memo=CompressionMemo(),
        transforms=[ContentRouter(), ContextTracker()],
    )
    turn1 = p.compress_body({"model": "gpt-4o", "messages": history})
    compressed = turn1.body["messages"][2]["content"]
    assert "req-0123" not in compressed and turn1.ccr_hashes
    turn2 = p.compress_body(
        {
            "model": "gpt-4o",
            "messages": history
            + [
                {"role": "assistant", "content": "svc-3 is slowest."},
                {"role": "user", "content": "What happened to req-0123?"},
            ],
        }
    )
    msgs = turn2.body["messages"]
    assert msgs[2]["content"] == compressed  # the cached prefix is byte-identical
    added = msgs[-1]["content"][1]["text"]
    assert log.splitlines()[122] in added and added.count("request req-") == 1


def test_originals_are_read_once_and_expire_with_the_store():
    now = [1000.0]
    store = CompressionStore(ttl_seconds=60, clock=lambda: now[0])
    p = Pipeline(
        HeadroomConfig(),
        store=store,
        transforms=[ContentRouter({ContentType.JSON_ARRAY: KeepFirstItems()}), ContextTracker()],
    )
    reads = []
    get = store.get
    store.get = lambda h: reads.append(h) or get(h)
    first = p.compress_body(chat("ORD-0042?"))
    after_first = len(reads)  # the router's look for a stored compressed form, the tracker's read
    second = p.compress_body(chat("ORD-0042?"))
    assert json.dumps(first.body) == json.dumps(second.body)
    assert len(reads) == after_first  # the second request: the memo and the tracker's cache
    now[0] += 61  # past the TTL, and nothing re-stored the original
    # Run the tracker alone on the compressed conversation (the router would re-store).
    body = {
        **first.body,
        # A new question (the tracker remembers the answer to one it has seen before).
        "messages": first.body["messages"][:-1] + [{"role": "user", "content": "And ORD-0042 once more?"}],
    }
    ctx = TransformContext(
        config=HeadroomConfig(), counter=counter_for("gpt-4o"), store=store, query="ORD-0042?"
    )
    p.transforms[1].apply(parse(body, "openai_chat"), ctx)
    assert [d.action for d in ctx.decisions] == ["kept"]  # expired: nothing to expand


def test_original_cache_is_bounded_by_characters():
    from headroom.transforms.expansion import _OriginalCache

    cache = _OriginalCache(max_chars=10)
    cache.put("a", "12345", 100.0)
    cache.put("b", "12345", 100.0)
    assert cache.get("a", 0.0) == "12345"  # a is now the most recent
    cache.put("c", "123", 100.0)
    assert (
        cache.get("b", 0.0) is None
        and cache.get("a", 0.0) == "12345"
        and cache.get("c", 0.0) == "123"
    )
    cache.put("huge", "x" * 11, 100.0)
    assert cache.get("huge", 0.0) is None
    assert cache.get("a", 100.0) is None  # expired


def test_expansions_are_reported_to_feedback():
    from headroom.config import ToinConfig
    from headroom.toin import MemoryToinBackend, Toin
    from headroom.toin.feedback import ToolFeedback

    store = CompressionStore()
    cfg = HeadroomConfig(toin=ToinConfig(flush_seconds=0, refresh_seconds=0))
    toin = Toin(MemoryToinBackend(), cfg.toin)
    fb = ToolFeedback(toin)
    router = ContentRouter({ContentType.JSON_ARRAY: KeepFirstItems()})
    p = Pipeline(cfg, store=store, toin=toin, transforms=[router, ContextTracker()], feedback=fb)
    result = p.compress_body(chat("What about ORD-0042 and ORD-0043?"))
    assert fb.tool("list_orders")["expansions"] == 1
    assert fb.tool("list_orders")["expanded_items"] == 2
    assert fb.tool("list_orders")["retrieved"] == 0  # an expansion is not a retrieval
    assert fb.tool("list_orders")["stored"] == 1
    assert decisions(result, "expanded")
