"""Rows F3, F6, F7 and F9 of issue 12: an upstream that hangs, answers nonsense, never stops
asking for originals, or ends its stream untidily; a client that goes away mid-request.

Black-box: a real HTTP client against the proxy under uvicorn, the scripted fake provider
on loopback (tests/proxy/proxy_fakes.py). Nothing here calls the proxy's internals.
"""

from __future__ import annotations

import json
import time

import httpx
import pytest

from headroom.formats import is_retrieve_tool
from tests.proxy.conftest import wait_for
from tests.proxy.test_e2e_sdk import anthropic_messages, chat_messages, responses_input

APIS = {
    "chat": ("/v1/chat/completions", lambda q: {"model": "gpt-4o", "messages": chat_messages(q)}),
    "responses": ("/v1/responses", lambda q: {"model": "gpt-4o", "input": responses_input(q)}),
    "anthropic": ("/v1/messages", lambda q: {"model": "claude", "max_tokens": 50, "messages": anthropic_messages(q)}),
}


def _post(url: str, api: str, question: str, headers: dict[str, str], *, stream: bool = False,
          timeout: float = 20) -> httpx.Response:
    path, build = APIS[api]
    body = {**build(question), "stream": stream}
    return httpx.post(f"{url}{path}", json=body, headers=headers, timeout=timeout)


def _called_tools(api: str, r: httpx.Response, stream: bool) -> list[str]:
    """Names of the tool calls in an answer (streamed or not)."""
    text = r.text
    if stream:
        names = []
        for line in text.splitlines():
            if line.startswith("data:") and line[5:].strip() not in ("", "[DONE]"):
                try:
                    ev = json.loads(line[5:])
                except ValueError:
                    continue
                for obj in (ev, ev.get("item") or {}, ev.get("content_block") or {}):
                    if isinstance(obj, dict) and obj.get("name"):
                        names.append(obj["name"])
                for ch in ev.get("choices") or []:
                    for tc in (ch.get("delta") or {}).get("tool_calls") or []:
                        if (tc.get("function") or {}).get("name"):
                            names.append(tc["function"]["name"])
        return names
    data = r.json()
    if api == "chat":
        return [tc["function"]["name"] for c in data.get("choices", []) for tc in c["message"].get("tool_calls") or []]
    if api == "responses":
        return [i["name"] for i in data.get("output", []) if i.get("type") == "function_call"]
    return [b["name"] for b in data.get("content", []) if b.get("type") == "tool_use"]


# --------------------------------------------------------------------------- F3


@pytest.mark.parametrize("stream", [False, True])
def test_f3_client_disconnect_cancels_a_waiting_upstream_call(fake, start_proxy, stream):
    url, _ = start_proxy()
    tag = f"gone-{stream}"
    with pytest.raises(httpx.ReadTimeout):  # the client gives up before the upstream answers
        _post(url, "chat", "q", {"x-fake-hang-s": "30", "x-fake-tag": tag}, stream=stream, timeout=0.5)
    wait_for(lambda: tag in fake.rec.cancelled, timeout=5)


@pytest.mark.parametrize("stream", [False, True])
def test_f3_client_disconnect_cancels_the_ccr_continuation(fake, start_proxy, stream):
    url, _ = start_proxy()
    tag = f"gone-ccr-{stream}"
    headers = {"x-fake-script": "retrieve", "x-fake-hang-continuation-s": "30", "x-fake-tag": tag}
    with pytest.raises(httpx.ReadTimeout):
        _post(url, "chat", "q", headers, stream=stream, timeout=1.5)
    wait_for(lambda: tag in fake.rec.cancelled, timeout=5)
    assert len(fake.rec.requests) == 2  # the first round answered, the continuation was dropped


@pytest.mark.parametrize("stream", [False, True])
def test_f3_hung_upstream_is_a_504_within_the_configured_time(fake, start_proxy, stream):
    url, _ = start_proxy(upstream_read_timeout_s=1.0)
    t0 = time.perf_counter()
    r = _post(url, "chat", "q", {"x-fake-hang-s": "30"}, stream=stream)
    assert r.status_code == 504 and r.json()["error"]["type"] == "upstream_timeout"
    assert time.perf_counter() - t0 < 5


def test_f3_hung_continuation_ends_the_stream_with_an_error_in_time(fake, start_proxy):
    url, _ = start_proxy(upstream_read_timeout_s=1.0)
    t0 = time.perf_counter()
    r = _post(url, "anthropic", "q", {"x-fake-script": "retrieve", "x-fake-hang-continuation-s": "30"}, stream=True)
    assert r.status_code == 200 and "event: error" in r.text and "ReadTimeout" in r.text
    assert time.perf_counter() - t0 < 5


def test_f3_upstream_timeout_flags_reach_the_config():
    from headroom.cli import build_parser
    from headroom.cli.cmd_proxy import build_configs

    args = build_parser().parse_args(["proxy", "--upstream-timeout", "7.5", "--upstream-connect-timeout", "2"])
    cfg, _ = build_configs(args)
    assert cfg.upstream_read_timeout_s == 7.5 and cfg.upstream_connect_timeout_s == 2


# --------------------------------------------------------------------------- F6


@pytest.mark.parametrize("api", list(APIS))
@pytest.mark.parametrize("stream", [False, True])
def test_f6_malformed_upstream_200_is_relayed_not_a_500_or_a_reset(fake, start_proxy, api, stream):
    url, _ = start_proxy()
    r = _post(url, api, "q", {"x-fake-script": "malformed"}, stream=stream)  # a reset would raise here
    assert r.status_code == 200
    if stream:
        assert r.text.count("[DONE]") == 1 and "{not json" in r.text  # the upstream's bytes, whole, once
    else:
        assert r.json()["choices"] == "nope"  # what the provider said, unchanged


@pytest.mark.parametrize("api", list(APIS))
@pytest.mark.parametrize("stream", [False, True])
def test_f6_retrieve_call_without_an_id_is_a_clear_error(fake, start_proxy, api, stream):
    url, _ = start_proxy()
    r = _post(url, api, "q", {"x-fake-script": "retrieve-noid"}, stream=stream)
    assert "headroom_retrieve" in r.text and "without an id" in r.text
    if stream:
        assert r.status_code == 200 and "error" in r.text
    else:
        assert r.status_code == 502 and r.json()["error"]["type"] == "upstream_error"
    assert "headroom_retrieve" not in _called_tools(api, r, stream) if not stream else True


# --------------------------------------------------------------------------- F7


@pytest.mark.parametrize("api", list(APIS))
@pytest.mark.parametrize("stream", [False, True])
def test_f7_after_the_round_limit_the_client_never_sees_a_retrieve_call(fake, start_proxy, api, stream):
    url, app = start_proxy()
    limit = app.state.headroom.headroom_config.ccr.max_retrieve_rounds
    r = _post(url, api, "why?", {"x-fake-script": "retrieve-always"}, stream=stream)
    assert r.status_code == 200, r.text
    assert not any(is_retrieve_tool(n) for n in _called_tools(api, r, stream)), r.text
    assert "echo: why?" in r.text  # the last round, without the tool, answered in text
    sent = fake.rec.bodies()
    assert len(sent) == limit + 2  # first call, `limit` retrieve rounds, one round without the tool
    assert sent[-1].get("tool_choice") in ("none", {"type": "none"})


# --------------------------------------------------------------------------- F9


@pytest.mark.parametrize("api", list(APIS))
def test_f9_held_stream_without_the_final_blank_line_is_not_duplicated(fake, start_proxy, api):
    url, _ = start_proxy()
    r = _post(url, api, "q", {"x-fake-no-final-blank": "1"}, stream=True)
    assert r.status_code == 200
    last = {"chat": "data: [DONE]", "responses": "event: response.completed", "anthropic": "event: message_stop"}[api]
    assert r.text.count(last) == 1, r.text[-400:]
    assert r.text.endswith("\n\n")  # the client gets a properly terminated last event
