"""HeadroomClient around the real ``anthropic`` SDK, against the fake upstream."""

from __future__ import annotations

import anthropic
import pytest

from headroom import AnthropicProvider, HeadroomClient
from headroom.ccr.markers import find_hashes
from headroom.metrics import MetricsStore


@pytest.fixture
def ant(fake):
    return anthropic.Anthropic(base_url=fake.url, api_key="test-key", max_retries=0)


@pytest.fixture
def client(ant):
    return HeadroomClient(original_client=ant, provider=AnthropicProvider(), metrics=MetricsStore(":memory:"))


MODEL = "claude-sonnet-4-5"


def test_messages_create_optimize(fake, client, anthropic_messages):
    resp = client.messages.create(model=MODEL, max_tokens=64, system="Be brief.", messages=anthropic_messages)
    assert type(resp) is anthropic.types.Message
    assert resp.model_dump(mode="json", exclude_unset=True) == fake.state.responses[-1]
    body = fake.state.requests[-1].json
    result = body["messages"][-1]["content"][0]["content"]
    assert find_hashes(result)
    assert body["system"] == "Be brief."
    assert body["tools"][0]["name"] == "headroom_retrieve"
    (row,) = client.metrics.query()
    assert row.provider == "anthropic" and row.cached_tokens == 7 and row.tokens_saved > 0


def test_audit_sends_the_original_bytes(fake, ant, client, anthropic_messages):
    ant.messages.create(model=MODEL, max_tokens=64, messages=anthropic_messages)
    direct = fake.state.requests[-1].raw
    client.messages.create(model=MODEL, max_tokens=64, messages=anthropic_messages, headroom_mode="audit")
    assert fake.state.requests[-1].raw == direct


def test_retrieval_loop_is_invisible(fake, client, anthropic_messages):
    fake.state.retrieve_first = True
    resp = client.messages.create(model=MODEL, max_tokens=64, messages=anthropic_messages)
    original = anthropic_messages[-1]["content"][0]["content"]
    assert [b.type for b in resp.content] == ["text"]
    assert resp.content[0].text == f"retrieved {len(original)} chars"
    assert len(fake.state.requests) == 2
    assert fake.state.requests[1].json["messages"][-1]["content"][0]["content"] == original


def test_stream_helper_without_markers_is_the_sdks(fake, client):
    with client.messages.stream(model=MODEL, max_tokens=64, messages=[{"role": "user", "content": "hi"}]) as stream:
        text = "".join(stream.text_stream)
        final = stream.get_final_message()
    assert text.strip() == "answer 1" and final.content[0].text.strip() == "answer 1"
    assert client.metrics.query()[0].stream is True


def test_stream_helper_with_retrieval_loop(fake, client, anthropic_messages):
    fake.state.retrieve_first = True
    original = anthropic_messages[-1]["content"][0]["content"]
    with client.messages.stream(model=MODEL, max_tokens=64, messages=anthropic_messages) as stream:
        text = "".join(stream.text_stream)
        final = stream.get_final_message()
    assert text.strip() == f"retrieved {len(original)} chars"
    assert final.stop_reason == "end_turn" and final.content[0].type == "text"
    assert len(fake.state.requests) == 2
    assert client.metrics.query()[0].retrievals == 1


def test_create_stream_true_with_retrieval_loop(fake, client, anthropic_messages):
    fake.state.retrieve_first = True
    events = list(client.messages.create(model=MODEL, max_tokens=64, messages=anthropic_messages, stream=True))
    types = [e.type for e in events]
    assert types[0] == "message_start" and types[-1] == "message_stop"
    text = "".join(e.delta.text for e in events if e.type == "content_block_delta")
    assert text.strip().startswith("retrieved ")
    assert not any(e.type == "content_block_start" and e.content_block.type == "tool_use" for e in events)


async def test_async_anthropic_create_and_stream(fake, anthropic_messages):
    aant = anthropic.AsyncAnthropic(base_url=fake.url, api_key="k", max_retries=0)
    c = HeadroomClient(original_client=aant)
    assert isinstance(c.provider, AnthropicProvider)  # picked from the SDK client
    resp = await c.messages.create(model=MODEL, max_tokens=64, messages=anthropic_messages)
    assert type(resp) is anthropic.types.Message
    fake.state.retrieve_first = True
    async with c.messages.stream(model=MODEL, max_tokens=64, messages=anthropic_messages) as stream:
        text = "".join([t async for t in stream.text_stream])
    assert text.strip().startswith("retrieved ")
    async with c.messages.stream(model=MODEL, max_tokens=64, messages=[{"role": "user", "content": "hi"}]) as stream:
        final = await stream.get_final_message()
    assert final.content[0].text.strip().startswith("answer")
    await aant.close()
