"""Modes, the bypass header, pass-through routes, upstream errors, compression failures, disconnects."""

from __future__ import annotations

import json
import logging
import time

import anthropic
import httpx
import openai
import pytest
from test_e2e_sdk import BIG, an, chat_messages, last_tool_text, oa

from headroom.ccr.store import CompressionStore
from headroom.config import HeadroomConfig
from headroom.formats import ANTHROPIC, OPENAI_CHAT, OPENAI_RESPONSES, adapter
from headroom.pipeline import Pipeline
from tests.proxy.conftest import wait_for

CHAT = "/v1/chat/completions"


def post_chat(url: str, headers: dict | None = None, **body) -> httpx.Response:
    payload = {"model": "gpt-4o", "messages": chat_messages(), **body}
    return httpx.post(f"{url}{CHAT}", json=payload, headers={"authorization": "Bearer sk-x", **(headers or {})}, timeout=30)


def test_bypass_header_forwards_bytes_unchanged(fake, start_proxy):
    url, _ = start_proxy()
    raw = json.dumps({"model": "gpt-4o", "messages": chat_messages()}, indent=1).encode()
    r = httpx.post(f"{url}{CHAT}", content=raw, headers={"x-headroom-bypass": "true", "content-type": "application/json"})
    assert r.status_code == 200 and r.headers["x-headroom-mode"] == "bypass"
    assert "x-headroom-tokens-saved" not in r.headers
    assert fake.rec.requests[0]["raw"] == raw
    assert "x-headroom-bypass" not in fake.rec.requests[0]["headers"]  # our headers stay here


def test_passthrough_mode(fake, start_proxy):
    url, _ = start_proxy(mode="passthrough")
    r = post_chat(url)
    assert r.status_code == 200 and r.headers["x-headroom-mode"] == "passthrough"
    assert last_tool_text(CHAT, fake.rec.requests[0]["json"]) == BIG


def test_audit_mode_measures_but_forwards_the_original(fake, start_proxy):
    url, app = start_proxy(mode="audit")
    r = post_chat(url)
    assert r.headers["x-headroom-mode"] == "audit"
    assert int(r.headers["x-headroom-tokens-saved"]) > 0
    got = fake.rec.requests[0]["json"]
    assert last_tool_text(CHAT, got) == BIG and "tools" not in got
    snap = app.state.headroom.stats.snapshot()["tokens"]
    assert snap["saved"] == 0 and snap["potential_saved_audit"] > 0


def test_unchanged_request_is_forwarded_byte_for_byte(fake, start_proxy):
    url, _ = start_proxy()
    raw = b'{"model": "gpt-4o",   "messages": [{"role": "user", "content": "hi \\u00e9"}]}'
    r = httpx.post(f"{url}{CHAT}", content=raw, headers={"content-type": "application/json"})
    assert r.status_code == 200 and r.headers["x-headroom-tokens-saved"] == "0"
    assert fake.rec.requests[0]["raw"] == raw


@pytest.mark.parametrize("status", [400, 429, 500, 503])
def test_upstream_errors_pass_through_with_their_status(status, fake, start_proxy):
    url, _ = start_proxy()
    for stream in (False, True):
        r = post_chat(url, {"x-fake-status": str(status)}, stream=stream)
        assert r.status_code == status
        assert r.json()["error"]["message"] == f"fake {status}"


def test_sdk_sees_upstream_errors(fake, start_proxy):
    url, _ = start_proxy()
    with pytest.raises(openai.RateLimitError):
        oa(url).chat.completions.create(model="gpt-4o", messages=chat_messages(), extra_headers={"x-fake-status": "429"})
    with pytest.raises(anthropic.InternalServerError):
        an(url).messages.create(model="claude-x", max_tokens=5, messages=[{"role": "user", "content": "hi"}],
                                extra_headers={"x-fake-status": "500"})


@pytest.mark.parametrize("with_markers", [False, True], ids=["relayed", "buffered"])
def test_midstream_error_events_reach_the_sdk(with_markers, fake, start_proxy):
    url, _ = start_proxy()
    msgs = chat_messages() if with_markers else [{"role": "user", "content": "hi"}]
    with pytest.raises(openai.APIError, match="fake overload mid-stream"):
        for _ in oa(url).chat.completions.create(model="gpt-4o", messages=msgs, stream=True,
                                                 extra_headers={"x-fake-midstream-error": "1"}):
            pass
    with pytest.raises(anthropic.APIStatusError, match="fake overload mid-stream"), \
            an(url).messages.stream(model="claude-x", max_tokens=5, messages=[{"role": "user", "content": "hi"}],
                                    extra_headers={"x-fake-midstream-error": "1"}) as s:
        for _ in s.text_stream:
            pass


def test_upstream_dropping_the_stream_ends_with_an_error_event(fake, start_proxy):
    url, _ = start_proxy()
    with httpx.stream("POST", f"{url}{CHAT}", json={"model": "m", "stream": True, "messages": [{"role": "user", "content": "hi"}]},
                      headers={"x-fake-abort": "1"}) as r:
        body = r.read().decode()
    assert r.status_code == 200
    assert body.count("chat.completion.chunk") == 3
    assert body.rstrip().endswith('"upstream_error", "message": "upstream stream failed: RemoteProtocolError"}}')


PASSTHROUGH_STREAMS = [
    pytest.param("GET", "/v1/responses/resp_fake?stream=true", {}, OPENAI_RESPONSES, id="responses"),
    pytest.param("POST", "/v1/completions", {}, OPENAI_CHAT, id="openai-completions"),
    pytest.param("POST", "/v1/complete", {"anthropic-version": "2023-06-01"}, ANTHROPIC, id="anthropic-complete"),
]


@pytest.mark.parametrize(("method", "path", "headers", "fmt"), PASSTHROUGH_STREAMS)
def test_broken_passthrough_stream_ends_with_its_own_apis_error_event(method, path, headers, fmt, fake, start_proxy):
    url, _ = start_proxy()
    body = {"model": "m", "prompt": "hi", "stream": True} if method == "POST" else None
    with httpx.stream(method, f"{url}{path}", json=body, headers={"x-fake-abort": "1", **headers}, timeout=30) as r:
        got = r.read()
    assert r.status_code == 200 and r.headers["x-headroom-mode"] == "passthrough"
    events = [e for e in got.split(b"\n\n") if e.strip()]
    assert len(events) == 3  # the two relayed events, then the error event
    assert got.endswith(adapter(fmt).error_event("upstream stream failed: RemoteProtocolError", "upstream_error"))
    last = events[-1].decode()
    # Chat Completions has no event names: its SDKs read ``error`` in an unnamed event.
    assert last.startswith("event: error\n") == (fmt != OPENAI_CHAT)
    assert json.loads(last.rpartition("data: ")[2])["error"]["message"] == "upstream stream failed: RemoteProtocolError"


def test_sdks_raise_on_a_broken_passthrough_stream(fake, start_proxy):
    url, _ = start_proxy()
    with pytest.raises(openai.APIError, match="upstream stream failed"):
        for _ in oa(url).completions.create(model="gpt-3.5-turbo-instruct", prompt="hi", stream=True,
                                            extra_headers={"x-fake-abort": "1"}):
            pass
    with pytest.raises(openai.APIError, match="upstream stream failed"):
        for _ in oa(url).responses.retrieve("resp_fake", stream=True, extra_headers={"x-fake-abort": "1"}):
            pass


def test_unreachable_upstream_is_502(fake, start_proxy):
    url, _ = start_proxy(openai_api_url="http://127.0.0.1:9")
    r = post_chat(url)
    assert r.status_code == 502 and "upstream unreachable" in r.json()["error"]["message"]


class SlowTransform:
    name = "slow"

    def apply(self, conv, ctx):
        time.sleep(1.5)
        return conv


def test_compression_timeout_forwards_original_and_logs(fake, start_proxy, caplog):
    slow = Pipeline(HeadroomConfig(), store=CompressionStore(), transforms=[SlowTransform()])
    url, app = start_proxy(pipeline=slow, compression_timeout_s=0.2)
    with caplog.at_level(logging.WARNING, logger="headroom.proxy"):
        r = post_chat(url)
    assert r.status_code == 200 and r.headers["x-headroom-compression"] == "failed"
    assert last_tool_text(CHAT, fake.rec.requests[0]["json"]) == BIG
    assert any("timed out after 0.2 s" in rec.getMessage() and "forwarding the original" in rec.getMessage()
               for rec in caplog.records)
    assert app.state.headroom.stats.snapshot()["compression"]["failures"] == 1


def test_unparseable_conversation_is_forwarded_not_rejected(fake, start_proxy):
    url, _ = start_proxy()
    # A Responses body without "input": the adapter cannot parse it, the provider decides.
    r = httpx.post(f"{url}/v1/responses", json={"model": "gpt-4o", "prompt": {"id": "pmpt_1"}})
    assert r.status_code == 200 and r.headers["x-headroom-compression"] == "failed"
    assert fake.rec.requests[0]["json"] == {"model": "gpt-4o", "prompt": {"id": "pmpt_1"}}


def test_count_tokens_and_other_v1_routes_pass_through(fake, start_proxy):
    url, _ = start_proxy()
    body = {"model": "claude-x", "messages": [{"role": "user", "content": "hi"}]}
    r = httpx.post(f"{url}/v1/messages/count_tokens", json=body, headers={"x-api-key": "k", "anthropic-version": "2023-06-01"})
    assert r.json() == {"input_tokens": 42}
    assert fake.rec.requests[0]["json"] == body and fake.rec.requests[0]["headers"]["x-api-key"] == "k"
    assert [m.id for m in oa(url).models.list()] == ["fake-model"]


@pytest.mark.parametrize("with_markers", [False, True], ids=["relayed", "buffered"])
def test_client_disconnect_cancels_upstream(with_markers, fake, start_proxy):
    url, _ = start_proxy()
    tag = f"disconnect-{with_markers}"
    msgs = chat_messages(tag) if with_markers else [{"role": "user", "content": tag}]
    headers = {"x-fake-chunks": "400", "x-fake-delay-ms": "20"}
    with httpx.stream("POST", f"{url}{CHAT}", json={"model": "m", "stream": True, "messages": msgs},
                      headers=headers, timeout=30) as r:
        assert r.status_code == 200
        if not with_markers:
            next(r.iter_raw())  # relayed as it comes: the first chunk is already here
    # 400 chunks x 20 ms = 8 s if nobody cancelled; the proxy must drop the upstream at once.
    wait_for(lambda: tag in fake.rec.cancelled, timeout=3)
    assert tag not in fake.rec.completed


def test_large_body_is_parsed_and_serialised_off_the_loop(fake, start_proxy):
    url, _ = start_proxy()
    msgs = chat_messages()
    msgs[-1]["content"] = BIG * 30  # ~2 MB: above the inline JSON threshold
    r = httpx.post(f"{url}{CHAT}", json={"model": "gpt-4o", "messages": msgs}, timeout=60)
    assert r.status_code == 200 and int(r.headers["x-headroom-tokens-saved"]) > 0
    sent = last_tool_text(CHAT, fake.rec.requests[0]["json"])
    assert sent.startswith(BIG[:50]) and len(sent) < 10_000
    bad = b'{"model": "m", "messages": "' + b"x" * 400_000 + b'"'
    r = httpx.post(f"{url}{CHAT}", content=bad, headers={"content-type": "application/json"})
    assert r.status_code == 400 and "not valid JSON" in r.json()["error"]["message"]


def test_large_body_in_audit_mode_and_unchanged_forwards_the_same_json(fake, start_proxy):
    url, _ = start_proxy(mode="audit")
    msgs = chat_messages()
    msgs[-1]["content"] = BIG * 30
    r = httpx.post(f"{url}{CHAT}", json={"model": "gpt-4o", "messages": msgs}, timeout=60)
    assert r.status_code == 200 and int(r.headers["x-headroom-tokens-saved"]) > 0
    assert fake.rec.requests[0]["json"] == {"model": "gpt-4o", "messages": msgs}
    url2, _ = start_proxy()
    plain = {"model": "gpt-4o", "messages": [{"role": "user", "content": "é " * 200_000}]}  # nothing to compress
    r = httpx.post(f"{url2}{CHAT}", json=plain, timeout=60)
    assert r.status_code == 200 and r.headers["x-headroom-tokens-saved"] == "0"
    assert fake.rec.requests[1]["json"] == plain
