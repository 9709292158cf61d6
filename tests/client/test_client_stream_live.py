"""Bug 6 (issue 13), client side: with headroom_retrieve injected, HeadroomClient streams
the answer live through the real SDKs; only the retrieve call is held back, and the
retrieve round continues the same iterator (sync and async, OpenAI and Anthropic)."""

from __future__ import annotations

import threading

import anthropic
import openai
import pytest

from headroom import AnthropicProvider, HeadroomClient, OpenAIProvider
from headroom.metrics import MetricsStore

PREAMBLE = "Let me look that up. "
MODEL = "claude-sonnet-4-5"


@pytest.fixture
def paced(fake):
    """The fake's first turn says PREAMBLE, then waits for the caller to have seen it
    before it sends its headroom_retrieve call."""
    fake.state.retrieve_first = True
    fake.state.preamble = PREAMBLE
    fake.state.caller_saw_text = threading.Event()
    return fake


def _collect(paced, pieces):
    """Join text pieces as they arrive, telling the upstream once the preamble is in."""
    text = ""
    for piece in pieces:
        text += piece or ""
        if PREAMBLE in text:
            paced.state.caller_saw_text.set()
    return text


def _assert_live_then_retrieved(paced, text, client):
    assert paced.state.released_by_caller is True  # the text arrived before the turn was over
    assert len(paced.state.requests) == 2  # the retrieve call was answered by the client
    assert text.startswith(PREAMBLE)
    assert text[len(PREAMBLE):].strip().startswith("retrieved ")  # round 2, same iterator
    (row,) = client.metrics.query()
    assert row.retrievals == 1 and row.stream is True


def _chat_text(chunks):
    return (c.choices[0].delta.content for c in chunks if c.choices)


def _anthropic_text(events):
    return (e.delta.text for e in events if e.type == "content_block_delta" and e.delta.type == "text_delta")


def test_openai_chat_stream_is_live(paced, openai_messages):
    oai = openai.OpenAI(base_url=paced.url + "/v1", api_key="k", max_retries=0)
    client = HeadroomClient(original_client=oai, provider=OpenAIProvider(), metrics=MetricsStore(":memory:"))
    with client.chat.completions.create(model="gpt-4o", messages=openai_messages, stream=True) as stream:
        chunks = []
        text = _collect(paced, (t for c in stream if chunks.append(c) is None for t in _chat_text([c])))
    assert all(type(c) is openai.types.chat.ChatCompletionChunk for c in chunks)
    # the held retrieve call never reaches the caller, nor does round 1's finish chunk
    assert not any(c.choices and c.choices[0].delta.tool_calls for c in chunks)
    assert [c.choices[0].finish_reason for c in chunks if c.choices and c.choices[0].finish_reason] == ["stop"]
    _assert_live_then_retrieved(paced, text, client)


async def test_openai_chat_async_stream_is_live(paced, openai_messages):
    aoai = openai.AsyncOpenAI(base_url=paced.url + "/v1", api_key="k", max_retries=0)
    client = HeadroomClient(original_client=aoai, provider=OpenAIProvider(), metrics=MetricsStore(":memory:"))
    stream = await client.chat.completions.create(model="gpt-4o", messages=openai_messages, stream=True)
    text = "".join(p or "" for p in await _agen_text(stream, paced, _chat_text))
    _assert_live_then_retrieved(paced, text, client)
    await aoai.close()


async def _agen_text(stream, paced, texts):
    """Read an async stream to its end, signalling the preamble as soon as it is seen."""
    out = []
    async for chunk in stream:
        out.extend(texts([chunk]))
        if PREAMBLE in "".join(p or "" for p in out):
            paced.state.caller_saw_text.set()
    return out


@pytest.fixture
def ant_client(paced):
    ant = anthropic.Anthropic(base_url=paced.url, api_key="k", max_retries=0)
    return HeadroomClient(original_client=ant, provider=AnthropicProvider(), metrics=MetricsStore(":memory:"))


def test_anthropic_create_stream_is_live(paced, ant_client, anthropic_messages):
    events = []
    stream = ant_client.messages.create(model=MODEL, max_tokens=64, messages=anthropic_messages, stream=True)
    text = _collect(paced, (t for e in stream if events.append(e) is None for t in _anthropic_text([e])))
    # one message: a single message_start, the retrieve block dropped, round 2's block follows on
    assert [e.type for e in events].count("message_start") == 1
    assert [e.index for e in events if e.type == "content_block_start"] == [0, 1]
    assert not any(e.type == "content_block_start" and e.content_block.type == "tool_use" for e in events)
    _assert_live_then_retrieved(paced, text, ant_client)


def test_anthropic_stream_helper_is_live(paced, ant_client, anthropic_messages):
    with ant_client.messages.stream(model=MODEL, max_tokens=64, messages=anthropic_messages) as stream:
        text = _collect(paced, stream.text_stream)
        final = stream.get_final_message()
    assert [b.type for b in final.content] == ["text", "text"] and final.stop_reason == "end_turn"
    _assert_live_then_retrieved(paced, text, ant_client)


async def test_anthropic_async_stream_helper_is_live(paced, anthropic_messages):
    ant = anthropic.AsyncAnthropic(base_url=paced.url, api_key="k", max_retries=0)
    client = HeadroomClient(original_client=ant, provider=AnthropicProvider(), metrics=MetricsStore(":memory:"))
    async with client.messages.stream(model=MODEL, max_tokens=64, messages=anthropic_messages) as stream:
        text = "".join(await _agen_text(stream.text_stream, paced, lambda ts: ts))
        final = await stream.get_final_message()
    assert final.stop_reason == "end_turn"
    _assert_live_then_retrieved(paced, text, client)
    await ant.close()
