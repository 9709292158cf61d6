"""headroom.token_accounting: one walk from a conversation to its counts, each text
counted once."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from headroom.formats import parse
from headroom.token_accounting import (
    COUNT_ALONGSIDE_CHARS,
    RequestTokens,
    block_tokens,
    conversation_tokens,
    model_counter,
    original_tokens,
    set_block_text,
    tokens_at_least,
)
from headroom.tokens import MESSAGE_OVERHEAD, TokenCounter

texts = st.text(alphabet=st.characters(codec="utf-8", categories=("L", "N", "P", "Zs")), max_size=80)


def chat(system: str, turns: list[str], tool_output: str) -> dict:
    msgs = [{"role": "system", "content": system}] if system else []
    for i, t in enumerate(turns):
        msgs.append({"role": "user" if i % 2 == 0 else "assistant", "content": t})
    msgs.append({"role": "assistant", "content": None, "tool_calls": [
        {"id": "c1", "type": "function", "function": {"name": "cat", "arguments": "{}"}}]})
    msgs.append({"role": "tool", "tool_call_id": "c1", "content": tool_output})
    return {"model": "gpt-4o", "messages": msgs}


class Counting(TokenCounter):
    """A counter that records every text it is asked to count."""

    def __init__(self):
        super().__init__("gpt-4o")
        self.asked: list[str] = []

    def count(self, text):
        self.asked.append(text)
        return super().count(text)


@settings(max_examples=40, deadline=None)
@given(texts, st.lists(texts, max_size=5), st.sampled_from(["short output", "x = 1\n" * 400]))
def test_the_totals_of_an_untouched_request_are_its_count(system, turns, tool_output):
    conv = parse(chat(system, turns, tool_output), "openai_chat")
    counter = model_counter("gpt-4o")
    expected = sum(counter.count(b.text) if b.text else 0 for _, _, b in conv.blocks()) \
        + MESSAGE_OVERHEAD * len(conv.messages)
    tokens = RequestTokens(conv, counter)
    assert tokens.totals(conv) == (expected, expected) == (expected, conversation_tokens(conv, counter))
    assert tokens_at_least(conv, counter, expected) and not tokens_at_least(conv, counter, expected + 1)


def test_a_long_text_is_left_for_later_and_counted_once():
    long = "2026-11-21 worker-3 processed job 17 in 40 ms\n" * 60
    assert len(long) >= COUNT_ALONGSIDE_CHARS
    conv = parse(chat("be brief", ["why?"], long), "openai_chat")
    counter = Counting()
    tokens = RequestTokens(conv, counter)
    assert long not in counter.asked  # deferred: the router counts it alongside compression
    [(_, _, out)] = list(conv.tool_results())
    n = block_tokens(out, counter)  # what the router does
    set_block_text(out, "[compressed]", 3, counter)  # a stage replaces it, knowing its count
    before, after = tokens.totals(conv)
    assert counter.asked.count(long) == 1  # the before-total read the router's count
    assert original_tokens(out, long, counter) == n and before - after == n - 3
