"""End to end with the real openai and anthropic SDKs: proxy under uvicorn, fake provider on loopback."""

from __future__ import annotations

import hashlib
import json

import anthropic
import openai
import pytest

from headroom.ccr.markers import find_hashes

BIG = "\n".join(f"2026-11-22T04:00:{i % 60:02d} INFO worker-{i % 7} processed batch {i} in {i % 13} ms" for i in range(400))
BIG_TAG = hashlib.sha256(BIG.encode()).hexdigest()[:16]


def oa(url: str) -> openai.OpenAI:
    return openai.OpenAI(base_url=f"{url}/v1", api_key="sk-test-secret-openai-key", max_retries=0)


def an(url: str) -> anthropic.Anthropic:
    return anthropic.Anthropic(base_url=url, api_key="sk-ant-test-secret-key", max_retries=0)


def chat_messages(question: str = "what failed?") -> list[dict]:
    return [
        {"role": "user", "content": question},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "read_logs", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": BIG},
    ]


def responses_input(question: str = "what failed?") -> list[dict]:
    return [
        {"role": "user", "content": question},
        {"type": "function_call", "call_id": "c1", "name": "read_logs", "arguments": "{}"},
        {"type": "function_call_output", "call_id": "c1", "output": BIG},
    ]


def anthropic_messages(question: str = "what failed?") -> list[dict]:
    return [
        {"role": "user", "content": question},
        {"role": "assistant", "content": [{"type": "tool_use", "id": "c1", "name": "read_logs", "input": {}}]},
        {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c1", "content": BIG}]},
    ]


def last_tool_text(path: str, body: dict) -> str:
    if path == "/v1/chat/completions":
        return [m for m in body["messages"] if m.get("role") == "tool"][-1]["content"]
    if path == "/v1/responses":
        return [i for i in body["input"] if i.get("type") == "function_call_output"][-1]["output"]
    return [p for m in body["messages"] if isinstance(m["content"], list) for p in m["content"]
            if p.get("type") == "tool_result"][-1]["content"]


def call_api(api: str, url: str, *, stream: bool, script: str | None = None, question: str = "what failed?"):
    """Send the big-log conversation through the proxy; return (answer text, raw response headers)."""
    headers = {"x-fake-script": script} if script else {}
    if api == "chat":
        client = oa(url)
        if stream:
            with client.chat.completions.with_streaming_response.create(
                    model="gpt-4o", messages=chat_messages(question), stream=True, extra_headers=headers) as resp:
                text = ""
                for chunk in resp.parse():
                    if chunk.choices and chunk.choices[0].delta.content:
                        text += chunk.choices[0].delta.content
                return text, resp.headers
        raw = client.chat.completions.with_raw_response.create(model="gpt-4o", messages=chat_messages(question),
                                                                extra_headers=headers)
        return raw.parse().choices[0].message.content, raw.headers
    if api == "responses":
        client = oa(url)
        if stream:
            with client.responses.with_streaming_response.create(
                    model="gpt-4o", input=responses_input(question), stream=True, extra_headers=headers) as resp:
                text = ""
                for ev in resp.parse():
                    if ev.type == "response.output_text.delta":
                        text += ev.delta
                return text, resp.headers
        raw = client.responses.with_raw_response.create(model="gpt-4o", input=responses_input(question),
                                                         extra_headers=headers)
        return raw.parse().output_text, raw.headers
    client = an(url)
    if stream:
        with client.messages.stream(model="claude-sonnet-4-5", max_tokens=100, messages=anthropic_messages(question),
                                    extra_headers=headers) as s:
            text = "".join(s.text_stream)
            return text, s.response.headers
    raw = client.messages.with_raw_response.create(model="claude-sonnet-4-5", max_tokens=100,
                                                    messages=anthropic_messages(question), extra_headers=headers)
    return raw.parse().content[0].text, raw.headers


PATHS = {"chat": "/v1/chat/completions", "responses": "/v1/responses", "anthropic": "/v1/messages"}
APIS = list(PATHS)


@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
@pytest.mark.parametrize("api", APIS)
def test_compressed_request_reaches_upstream(api, stream, fake, start_proxy):
    url, _ = start_proxy()
    text, headers = call_api(api, url, stream=stream)
    [got] = fake.rec.requests
    assert got["path"] == PATHS[api]
    sent = last_tool_text(got["path"], got["json"])
    assert sent.startswith("2026-11-22T04:00:00 INFO worker-0") and len(sent) < len(BIG) / 10
    [h] = find_hashes(sent)
    # The answer is the upstream's, and it saw the compressed output.
    assert text.startswith("echo: what failed? | tool=") and BIG_TAG not in text
    before, after = int(headers["x-headroom-tokens-before"]), int(headers["x-headroom-tokens-after"])
    assert before > after > 0 and int(headers["x-headroom-tokens-saved"]) == before - after
    # Markers present, so the retrieve tool was injected.
    assert "headroom_retrieve" in json.dumps(got["json"].get("tools"))
    # Provider headers and keys went through unchanged.
    auth = got["headers"].get("authorization") or got["headers"].get("x-api-key")
    assert "test-secret" in auth
    if api == "anthropic":
        assert got["headers"]["anthropic-version"]
    assert h


@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
@pytest.mark.parametrize("api", APIS)
def test_ccr_loop_is_invisible_to_the_client(api, stream, fake, start_proxy):
    url, app = start_proxy()
    text, _ = call_api(api, url, stream=stream, script="retrieve")
    # The client sees only the final answer, built on the full original.
    assert text == f"echo: what failed? | tool={BIG_TAG} len={len(BIG)}"
    first, second = fake.rec.requests
    assert last_tool_text(PATHS[api], second["json"]) == BIG  # upstream got the original back
    assert find_hashes(last_tool_text(PATHS[api], first["json"]))
    from tests.proxy.conftest import wait_for

    stats = app.state.headroom.stats
    wait_for(lambda: stats.snapshot()["requests"]["total"] == 1)
    assert stats.snapshot()["ccr"] == {"retrieve_rounds": 1, "retrieve_calls_answered": 1}


@pytest.mark.parametrize("stream", [False, True], ids=["json", "sse"])
def test_mixed_tool_calls_go_back_to_the_client(stream, fake, start_proxy):
    url, _ = start_proxy()
    client = oa(url)
    if stream:
        calls: dict[int, str] = {}
        for chunk in client.chat.completions.create(model="gpt-4o", messages=chat_messages(), stream=True,
                                                    extra_headers={"x-fake-script": "mixed"}):
            for tc in chunk.choices[0].delta.tool_calls or []:
                if tc.function and tc.function.name:
                    calls[tc.index] = tc.function.name
        names = list(calls.values())
    else:
        resp = client.chat.completions.create(model="gpt-4o", messages=chat_messages(),
                                              extra_headers={"x-fake-script": "mixed"})
        names = [tc.function.name for tc in resp.choices[0].message.tool_calls]
    assert names == ["headroom_retrieve", "get_weather"]
    assert len(fake.rec.requests) == 1


def test_retrieve_rounds_are_bounded(fake, start_proxy):
    from headroom.config import CCRConfig, HeadroomConfig
    from tests.proxy.conftest import make_pipeline

    url, _ = start_proxy(pipeline=make_pipeline(HeadroomConfig(ccr=CCRConfig(max_retrieve_rounds=0))))
    resp = oa(url).chat.completions.create(model="gpt-4o", messages=chat_messages(),
                                           extra_headers={"x-fake-script": "retrieve"})
    # With no rounds allowed the proxy answers the call and asks once more with tool calls
    # forbidden: the client never sees a headroom_retrieve call it did not declare.
    assert resp.choices[0].message.tool_calls is None and resp.choices[0].message.content.startswith("echo:")
    assert len(fake.rec.requests) == 2 and fake.rec.bodies()[1]["tool_choice"] == "none"
