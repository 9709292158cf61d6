"""Rows F1, F2 and F10 of issue 12: request bodies built to stall, crash or confuse the proxy."""

from __future__ import annotations

import json
import threading
import time

import httpx

from headroom.query.anchors import extract_anchors
from tests.adversarial.hostile import HealthProbe, raw_request
from tests.proxy.test_e2e_sdk import BIG, chat_messages

CHAT = "/v1/chat/completions"


def test_f1_long_path_like_run_in_the_question_does_not_stall_anyone(fake, start_proxy):
    # One run of [\w.-] with no space and no "/": the old _PATH regex was quadratic on it
    # (60 000 characters held the GIL for 22 s, and /health with it).
    url, _ = start_proxy()
    body = {"model": "gpt-4o", "messages": chat_messages("x.y-z_" * 20_000)}
    result: dict[str, object] = {}

    def hostile() -> None:
        t0 = time.perf_counter()
        r = httpx.post(f"{url}{CHAT}", json=body, timeout=60)
        result.update(status=r.status_code, seconds=time.perf_counter() - t0,
                      compression=r.headers.get("x-headroom-compression"))

    with HealthProbe(url) as probe:
        worker = threading.Thread(target=hostile)
        worker.start()
        worker.join(timeout=25)
    assert result.get("status") == 200, result
    assert result.get("compression") != "failed"  # compressed within its deadline, not skipped
    probe.assert_responsive()


def test_f1_anchor_extraction_is_linear_and_still_finds_anchors():
    for hostile in ("a" * 300_000, "a-" * 150_000, "a/" * 150_000, "1." * 150_000, "x.y-z_" * 50_000):
        t0 = time.perf_counter()
        extract_anchors(hostile)
        assert time.perf_counter() - t0 < 0.5
    terms = extract_anchors(("filler " * 50) + "see src/app/main.py on 10.0.0.1:8080, ORD-991 and 'the bad one'").terms
    assert {"src/app/main.py", "10.0.0.1:8080", "ord-991", "the bad one"} <= terms


def _surrogate_body(api: str) -> bytes:
    question = "why \ud83d did it fail?"  # an emoji cut in half: valid JSON, not valid UTF-8
    if api == "chat":
        body = {"model": "gpt-4o", "messages": chat_messages(question)}
    elif api == "responses":
        body = {"model": "gpt-4o", "input": [
            {"role": "user", "content": question},
            {"type": "function_call", "call_id": "c1", "name": "read_logs", "arguments": "{}"},
            {"type": "function_call_output", "call_id": "c1", "output": BIG + "\udc00"}]}
    else:
        body = {"model": "claude", "max_tokens": 10, "messages": [
            {"role": "user", "content": question},
            {"role": "assistant", "content": [{"type": "tool_use", "id": "c1", "name": "read_logs", "input": {}}]},
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "c1", "content": BIG + "\ud800"}]}]}
    return json.dumps(body).encode()  # ensure_ascii: the surrogates travel as \\ud83d escapes


def test_f2_lone_surrogates_are_compressed_and_forwarded(fake, start_proxy):
    url, _ = start_proxy()
    for api, path in (("chat", CHAT), ("responses", "/v1/responses"), ("anthropic", "/v1/messages")):
        fake.rec.clear()
        r = httpx.post(f"{url}{path}", content=_surrogate_body(api), headers={"content-type": "application/json"},
                       timeout=30)
        assert r.status_code == 200, (api, r.text)
        assert r.headers.get("x-headroom-compression") != "failed", api
        assert int(r.headers["x-headroom-tokens-saved"]) > 0, api
        sent = fake.rec.requests[0]["json"]
        assert "\ud83d" in json.dumps(sent, ensure_ascii=False), api  # the question arrived as it was sent


def test_f2_retrieving_an_original_with_lone_surrogates(fake, start_proxy):
    url, _ = start_proxy()
    r = httpx.post(f"{url}/v1/compress", content=_surrogate_body("anthropic"),
                   headers={"content-type": "application/json"}, timeout=30)
    assert r.status_code == 200, r.text
    (h,) = r.json()["ccr_hashes"]
    got = httpx.get(f"{url}/v1/retrieve/{h}", timeout=10)
    assert got.status_code == 200 and got.json()["original_content"].endswith("\ud800")


def test_f10_deeply_nested_json_is_a_400_json_error(fake, start_proxy):
    url, _ = start_proxy()
    deep = b'{"model": "m", "messages": ' + b"[" * 100_000 + b"]" * 100_000 + b"}"
    for path in (CHAT, "/v1/responses", "/v1/messages", "/v1/compress", "/v1/retrieve"):
        status, data = raw_request(url, "POST", path, deep)
        assert status == 400, (path, status, data)
        assert isinstance(data, dict) and "nested" in data["error"]["message"], (path, data)
    assert fake.rec.requests == []


def test_f10_nul_and_control_bytes_in_a_path_are_a_400(fake, start_proxy):
    url, _ = start_proxy()
    for path in ("/v1/models%00", "/v1/mo%00dels", "/v1/models%0d%0aX-Injected:%201", "/v1/files/a%01b"):
        status, data = raw_request(url, "GET", path)
        assert status == 400, (path, status, data)
        assert isinstance(data, dict) and data["error"]["type"] == "invalid_path", (path, data)
    assert fake.rec.requests == []


def test_f2_every_default_stage_tolerates_lone_surrogates(fake, start_proxy):
    from headroom.config import CCRConfig, HeadroomConfig

    url, _ = start_proxy(headroom_config=HeadroomConfig(ccr=CCRConfig(backend="memory")))
    for api in ("chat", "responses", "anthropic"):
        body = json.loads(_surrogate_body(api))
        body["system" if api == "anthropic" else "model"] = "sys \ud83d prompt" if api == "anthropic" else "gpt-4o"
        r = httpx.post(f"{url}/v1/compress", content=json.dumps(body).encode(),
                       headers={"content-type": "application/json"}, timeout=60)
        assert r.status_code == 200, r.text
        failed = [d for d in r.json()["decisions"] if "Error" in d["reason"]]
        assert not failed, failed
