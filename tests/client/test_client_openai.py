"""HeadroomClient around the real ``openai`` SDK, against the fake upstream on 127.0.0.1."""

from __future__ import annotations

import json

import openai
import pytest

from headroom import HeadroomClient, OpenAIProvider
from headroom.ccr.markers import find_hashes
from headroom.client import SimulationResult
from headroom.metrics import MetricsStore


@pytest.fixture
def oai(fake):
    return openai.OpenAI(base_url=fake.url + "/v1", api_key="test-key", max_retries=0)


@pytest.fixture
def client(oai):
    return HeadroomClient(original_client=oai, provider=OpenAIProvider(), metrics=MetricsStore(":memory:"))


def test_optimize_compresses_and_returns_the_sdk_response_unchanged(fake, client, openai_messages):
    resp = client.chat.completions.create(model="gpt-4o", messages=openai_messages)
    assert type(resp) is openai.types.chat.ChatCompletion
    assert resp.model_dump(mode="json", exclude_unset=True) == fake.state.responses[-1]
    (sent,) = fake.state.requests
    body = sent.json
    tool_out = body["messages"][-1]["content"]
    assert find_hashes(tool_out), "the compressed tool output carries a retrieval marker"
    assert len(sent.raw) < len(json.dumps(openai_messages)) / 3
    # the retrieve tool is offered because the request now carries a marker
    assert [t["function"]["name"] for t in body["tools"]] == ["headroom_retrieve"]
    # user/system text untouched
    assert body["messages"][:2] == openai_messages[:2]
    (row,) = client.metrics.query()
    assert row.provider == "openai" and row.model == "gpt-4o" and row.mode == "optimize"
    assert row.tokens_before > row.tokens_after > 0 and row.tokens_saved == row.tokens_before - row.tokens_after
    assert row.cached_tokens == 7 and row.output_tokens == 3 and row.status_code == 200
    assert row.tool_names == ["search"] and row.tool_savings["search"] > 0
    assert row.cost_saved_usd == pytest.approx(row.tokens_saved * 2.5 / 1e6)
    assert row.ccr_hashes == find_hashes(tool_out)


def test_audit_sends_the_original_bytes(fake, oai, client, openai_messages):
    oai.chat.completions.create(model="gpt-4o", messages=openai_messages, temperature=0)
    direct = fake.state.requests[-1].raw
    resp = client.chat.completions.create(model="gpt-4o", messages=openai_messages, temperature=0, headroom_mode="audit")
    assert fake.state.requests[-1].raw == direct
    assert resp.choices[0].message.content.startswith("answer")
    (row,) = client.metrics.query()
    assert row.mode == "audit" and row.tokens_saved > 0  # what optimize would have saved
    s = client.get_summary()["totals"]
    assert s["tokens_saved"] == 0 and s["potential_saved"] == row.tokens_saved


def test_default_mode_audit_and_per_call_override(fake, oai, openai_messages):
    c = HeadroomClient(original_client=oai, default_mode="audit")
    c.chat.completions.create(model="gpt-4o", messages=openai_messages)
    assert "tools" not in fake.state.requests[-1].json
    c.chat.completions.create(model="gpt-4o", messages=openai_messages, headroom_mode="optimize")
    assert "tools" in fake.state.requests[-1].json
    assert [r.mode for r in c.metrics.query()] == ["audit", "optimize"]
    with pytest.raises(ValueError, match="headroom_mode"):
        c.chat.completions.create(model="gpt-4o", messages=openai_messages, headroom_mode="bogus")
    with pytest.raises(ValueError, match="default_mode"):
        HeadroomClient(original_client=oai, default_mode="fast")


def test_simulate_calls_nothing_and_reports(fake, client, openai_messages):
    sim = client.chat.completions.create(model="gpt-4o", messages=openai_messages, headroom_mode="simulate")
    assert isinstance(sim, SimulationResult)
    assert fake.state.requests == []
    assert sim.tokens_saved > 0 and sim.tokens_after < sim.tokens_before
    assert sim.cost_after_usd < sim.cost_before_usd
    assert find_hashes(sim.body["messages"][-1]["content"])
    assert client.metrics.query()[0].mode == "simulate"


def test_retrieval_loop_is_invisible(fake, client, openai_messages):
    fake.state.retrieve_first = True
    resp = client.chat.completions.create(model="gpt-4o", messages=openai_messages)
    original = openai_messages[-1]["content"]
    assert resp.choices[0].message.tool_calls is None
    assert resp.choices[0].message.content == f"retrieved {len(original)} chars"
    _, second = fake.state.requests
    # the second request answers the retrieve call with the exact original
    assert second.json["messages"][-1]["content"] == original
    assert second.json["messages"][-2]["tool_calls"][0]["function"]["name"] == "headroom_retrieve"
    assert client.metrics.query()[0].retrievals == 1


def test_stream_without_markers_returns_the_sdk_stream(fake, client):
    stream = client.chat.completions.create(model="gpt-4o", messages=[{"role": "user", "content": "hi"}], stream=True)
    assert isinstance(stream, openai.Stream)
    text = "".join(c.choices[0].delta.content or "" for c in stream if c.choices)
    assert text.strip() == "answer 1"
    assert client.metrics.query()[0].stream is True


def test_stream_with_retrieval_loop_replays_the_final_turn(fake, client, openai_messages):
    fake.state.retrieve_first = True
    with client.chat.completions.create(model="gpt-4o", messages=openai_messages, stream=True) as stream:
        chunks = list(stream)
    assert all(type(c).__name__ == "ChatCompletionChunk" for c in chunks)
    text = "".join(c.choices[0].delta.content or "" for c in chunks if c.choices)
    assert text.strip() == f"retrieved {len(openai_messages[-1]['content'])} chars"
    assert len(fake.state.requests) == 2
    assert client.metrics.query()[0].retrievals == 1


def test_responses_api_with_retrieval_loop(fake, client):
    from tests.client.conftest import big_tool_output

    out = big_tool_output(seed="r")
    items = [
        {"role": "user", "content": "find errors"},
        {"type": "function_call", "call_id": "call_x", "name": "search", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "call_x", "output": out},
    ]
    fake.state.retrieve_first = True
    resp = client.responses.create(model="gpt-4o", input=items)
    assert type(resp).__name__ == "Response"
    assert resp.output_text == f"retrieved {len(out)} chars"
    first = fake.state.requests[0].json
    assert find_hashes(first["input"][-1]["output"])
    assert first["tools"][0]["name"] == "headroom_retrieve"


def test_errors_propagate_and_are_recorded(fake, client):
    with pytest.raises(openai.BadRequestError):
        client.chat.completions.create(model="fail-model", messages=[{"role": "user", "content": "x"}])
    (row,) = client.metrics.query()
    assert row.status_code == 400 and "BadRequestError" in row.error


def test_everything_else_is_the_original_client(fake, client, oai):
    assert [m.id for m in client.models.list()] == ["gpt-4o"]
    assert client.original_client is oai
    assert client.chat.completions.with_raw_response is not None


def test_summary_by_model_and_transform(fake, client, openai_messages):
    client.chat.completions.create(model="gpt-4o", messages=openai_messages)
    client.chat.completions.create(model="gpt-4o-mini", messages=openai_messages)
    s = client.get_summary()
    assert set(s["by_model"]) == {"gpt-4o", "gpt-4o-mini"}
    assert s["totals"]["tokens_saved"] == sum(m["tokens_saved"] for m in s["by_model"].values()) > 0
    # per-transform savings are measured per block by the transforms; the totals are
    # whole-conversation counts, so they agree closely but not to the token
    by_transform = sum(t["tokens_saved"] for t in s["by_transform"].values())
    assert by_transform == pytest.approx(s["totals"]["tokens_saved"], rel=0.05)


async def test_async_openai_create_and_stream(fake, openai_messages):
    aoai = openai.AsyncOpenAI(base_url=fake.url + "/v1", api_key="k", max_retries=0)
    c = HeadroomClient(original_client=aoai)
    resp = await c.chat.completions.create(model="gpt-4o", messages=openai_messages)
    assert type(resp) is openai.types.chat.ChatCompletion
    assert find_hashes(fake.state.requests[-1].json["messages"][-1]["content"])
    fake.state.retrieve_first = True
    stream = await c.chat.completions.create(model="gpt-4o", messages=openai_messages, stream=True)
    text = "".join([ch.choices[0].delta.content or "" async for ch in stream if ch.choices])
    assert text.strip().startswith("retrieved ")
    assert [r.retrievals for r in c.metrics.query()] == [0, 1]
    await aoai.close()


def test_a_request_headroom_cannot_compress_goes_out_unchanged(fake, oai, openai_messages, monkeypatch):
    oai.chat.completions.create(model="gpt-4o", messages=openai_messages)
    direct = fake.state.requests[-1].raw
    c = HeadroomClient(original_client=oai)

    def broken(*a, **k):
        raise ValueError("unparseable")

    monkeypatch.setattr(c.engine.pipeline, "compress_body", broken)
    resp = c.chat.completions.create(model="gpt-4o", messages=openai_messages)
    assert resp.choices[0].message.content.startswith("answer")
    assert fake.state.requests[-1].raw == direct
    (row,) = c.metrics.query()
    assert row.mode == "passthrough" and "unparseable" in row.error and row.status_code == 200
    with pytest.raises(ValueError, match="unparseable"):
        c.chat.completions.create(model="gpt-4o", messages=openai_messages, headroom_mode="simulate")


def test_responses_stream_with_retrieval_loop(fake, client):
    from tests.client.conftest import big_tool_output

    out = big_tool_output(seed="rs")
    items = [
        {"role": "user", "content": "find errors"},
        {"type": "function_call", "call_id": "call_y", "name": "search", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "call_y", "output": out},
    ]
    fake.state.retrieve_first = True
    events = list(client.responses.create(model="gpt-4o", input=items, stream=True))
    assert events[-1].type == "response.completed"
    assert events[-1].response.output_text == f"retrieved {len(out)} chars"
    assert len(fake.state.requests) == 2
    assert fake.state.requests[1].json["input"][-1] == {"type": "function_call_output", "call_id": "call_1", "output": out}


def test_concurrent_calls_share_one_client(fake, client, openai_messages):
    from concurrent.futures import ThreadPoolExecutor

    def call(i):
        r = client.chat.completions.create(model="gpt-4o", messages=[*openai_messages, {"role": "user", "content": f"q{i}"}])
        return r.choices[0].message.content

    with ThreadPoolExecutor(max_workers=6) as pool:
        answers = list(pool.map(call, range(18)))
    assert all(a.startswith("answer ") for a in answers)
    assert client.metrics.count() == 18 and len(fake.state.requests) == 18
    # every forwarded copy of the same tool output is byte-identical (shared memo)
    assert len({r.json["messages"][3]["content"] for r in fake.state.requests}) == 1


def test_import_headroom_stays_light():
    import subprocess
    import sys

    code = ("import headroom, sys; heavy = [m for m in ('headroom.client', 'openai', 'anthropic', 'langchain_core', "
            "'headroom.report', 'headroom.cache') if m in sys.modules]; print(heavy); "
            "headroom.HeadroomClient; assert 'headroom.client' in sys.modules")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert out.stdout.strip() == "[]"
