"""Hypothesis fuzz of request bodies over the three APIs, through the real proxy.

Asserted for every body: no 500 (the proxy answers 2xx/4xx, or relays the provider's
status), no hang past the configured timeouts, /health answers in time meanwhile, and
concurrent clients never see a byte of each other's answers.
"""

from __future__ import annotations

import concurrent.futures
import json
import time

import httpx
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from tests.adversarial.hostile import HealthProbe
from tests.proxy.test_e2e_sdk import BIG

PATHS = ["/v1/chat/completions", "/v1/responses", "/v1/messages"]
# Bounded by the proxy's own limits below: compression 2 s, upstream 3 s, plus slack.
CLIENT_TIMEOUT_S = 12

hostile_text = st.one_of(
    st.text(max_size=200),
    st.sampled_from(["\ud83d", "a\udc00b", "x.y-z_" * 3000, "a-" * 5000, "%00", "\x00", "{{{{", BIG]),
    st.builds(lambda s, n: s * n, st.sampled_from(["ab/", "1.", "é", " "]), st.integers(1, 3000)),
)
json_leaf = st.one_of(st.none(), st.booleans(), st.integers(), st.floats(allow_nan=False), hostile_text)
json_value = st.recursive(json_leaf, lambda kids: st.lists(kids, max_size=4) | st.dictionaries(
    st.sampled_from(["role", "content", "type", "text", "tool_call_id", "id", "name", "input", "output",
                     "arguments", "function", "tool_calls", "call_id", "tool_use_id", "x"]), kids, max_size=4),
    max_leaves=20)
role = st.sampled_from(["user", "assistant", "tool", "system", "developer", "bogus", 7, None])


@st.composite
def message(draw):
    m = {"role": draw(role), "content": draw(st.one_of(hostile_text, json_value))}
    if draw(st.booleans()):
        m["tool_calls"] = draw(st.lists(st.fixed_dictionaries({
            "id": st.one_of(st.text(max_size=8), st.none()), "type": st.just("function"),
            "function": st.fixed_dictionaries({"name": st.sampled_from(["read_logs", "headroom_retrieve", ""]),
                                               "arguments": st.one_of(st.just("{}"), hostile_text)})}), max_size=2))
    if draw(st.booleans()):
        m["tool_call_id"] = draw(st.one_of(st.text(max_size=8), st.integers()))
    return m


bodies = st.fixed_dictionaries(
    {"model": st.one_of(st.sampled_from(["gpt-4o", "claude-3-5-sonnet", ""]), json_value)},
    optional={
        "messages": st.one_of(st.lists(message(), max_size=5), json_value),
        "input": st.one_of(hostile_text, st.lists(json_value, max_size=4)),
        "tools": st.one_of(st.lists(json_value, max_size=3), json_value),
        "stream": st.one_of(st.booleans(), json_value),
        "max_tokens": st.one_of(st.integers(), json_value),
        "system": st.one_of(hostile_text, json_value),
    },
)


@pytest.mark.timeout(110)
def test_fuzzed_bodies_never_500_never_hang(fake, start_proxy):
    url, _ = start_proxy(compression_timeout_s=2.0, upstream_read_timeout_s=3.0)
    client = httpx.Client(timeout=CLIENT_TIMEOUT_S)
    seen: dict[int, int] = {}

    @settings(max_examples=150, deadline=None, database=None,
              suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                     HealthCheck.data_too_large])
    @given(path=st.sampled_from(PATHS), body=bodies, raw_junk=st.one_of(st.none(), st.binary(max_size=64)))
    def one(path, body, raw_junk):
        content = raw_junk if raw_junk is not None else json.dumps(body).encode()
        t0 = time.perf_counter()
        r = client.post(f"{url}{path}", content=content, headers={
            "content-type": "application/json", "authorization": "Bearer sk-fuzz", "anthropic-version": "2023-06-01"})
        elapsed = time.perf_counter() - t0
        assert r.status_code != 500 and r.status_code < 600, (r.status_code, r.text[:300])
        assert elapsed < CLIENT_TIMEOUT_S
        if r.status_code >= 400 and r.headers.get("content-type", "").startswith("application/json"):
            assert "error" in r.json() or "detail" in r.json()
        seen[r.status_code] = seen.get(r.status_code, 0) + 1

    with HealthProbe(url, interval_s=0.05) as probe:
        one()
    client.close()
    assert 200 in seen and 400 in seen, seen  # the fuzz reached both the happy and the refusing paths
    probe.assert_responsive()


def _answer_text(raw: str) -> str:
    """The answer's text: the body itself, or a stream's text deltas joined."""
    if not raw.startswith(("data:", "event:")):
        return raw
    out = []
    for line in raw.splitlines():
        if not line.startswith("data:") or line[5:].strip() == "[DONE]":
            continue
        ev = json.loads(line[5:])
        delta = ev.get("delta")
        if isinstance(delta, str):
            out.append(delta)  # Responses
        elif isinstance(delta, dict) and isinstance(delta.get("text"), str):
            out.append(delta["text"])  # Messages
        for ch in ev.get("choices") or []:
            out.append((ch.get("delta") or {}).get("content") or "")  # Chat Completions
    return "".join(out)


def test_concurrent_clients_never_see_each_others_answers(fake, start_proxy):
    url, _ = start_proxy()
    nonces = [f"nonce-{i:03d}-{'q' * (i % 5)}" for i in range(40)]

    def ask(i: int) -> tuple[int, str]:
        path = PATHS[i % 3]
        question = nonces[i] + (" \ud83d" if i % 7 == 0 else "")
        if path == "/v1/responses":
            body = {"model": "gpt-4o", "input": question, "stream": i % 2 == 0}
        else:
            body = {"model": "gpt-4o", "max_tokens": 20, "stream": i % 2 == 0,
                    "messages": [{"role": "user", "content": question}]}
        r = httpx.post(f"{url}{path}", content=json.dumps(body).encode(), timeout=30, headers={
            "content-type": "application/json", "authorization": f"Bearer sk-{i}", "x-fake-chunks": "4",
            "x-fake-delay-ms": "5"})
        return i, _answer_text(r.text)

    with concurrent.futures.ThreadPoolExecutor(20) as pool:
        answers = dict(pool.map(ask, range(len(nonces))))
    for i, text in answers.items():
        assert nonces[i] in text, (i, text[:300])
        others = [n for j, n in enumerate(nonces) if j != i and n in text and n not in nonces[i]]
        assert not others, (i, others)
