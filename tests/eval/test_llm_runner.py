"""The reader-backed runner end to end against a deterministic reader on 127.0.0.1.

The compressor is HeadKeeper (first 5 lines), so we know exactly which answers survive
compression and which are reachable only through ``headroom_retrieve``.
"""

from __future__ import annotations

import functools
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from headroom.config import HeadroomConfig
from headroom.eval.llm import LLMOptions, run_llm
from headroom.eval.scenarios import build_suite
from tests.servers import ServerThread

from .conftest import head_keeper_factory
from .fake_openai import FakeOpenAI


@pytest.fixture
def reader():
    with FakeOpenAI() as srv:
        yield srv


def _definition_scenario():
    # `def resolve_..._quota` sits in the middle of 60 rg hits: HeadKeeper drops it.
    return build_suite("smoke", ["code_search"])


def test_answer_only_recoverable_through_headroom_retrieve(reader):
    scenarios = _definition_scenario()
    probe = scenarios[0].probes[0]
    res = run_llm(scenarios, LLMOptions(reader.base_url, "reader"), pipeline_factory=head_keeper_factory(5),
                  progress=False)
    rows = {r["arm"]: r for r in res["cases"]}
    assert rows["original"]["contains"] == 1.0 and rows["original"]["retrieve_calls"] == 0
    # Not in view: the compressed arm (no tool) misses it; the retrieve arm gets it back.
    assert rows["compressed"]["contains"] == 0.0 and rows["compressed"]["retrieve_calls"] == 0
    assert rows["compressed_retrieve"]["contains"] == 1.0 and rows["compressed_retrieve"]["retrieve_calls"] == 1
    assert probe.expected in rows["compressed_retrieve"]["text"]

    compressed_requests = [b for b in reader.requests if b.get("tools")]
    first, follow_up = compressed_requests[0], compressed_requests[1]
    # The fact was not in what the model first saw...
    assert probe.key not in json.dumps([m for m in first["messages"] if m["role"] != "user"])
    assert [t["function"]["name"] for t in first["tools"]] == ["headroom_retrieve"]
    # ...and came back as the retrieve tool's result, answered from headroom's CCR store.
    tool_msgs = [m for m in follow_up["messages"] if m["role"] == "tool"]
    assert probe.key in tool_msgs[-1]["content"]
    arms = res["arms"]
    assert arms["compressed_retrieve"]["prompt_tokens"] > 0
    assert arms["compressed_retrieve"]["delta_contains"]["mean"] == 0.0
    assert arms["compressed"]["delta_contains"]["mean"] == -1.0


def test_without_the_retrieve_loop_the_answer_is_lost(reader):
    no_loop = HeadroomConfig(ccr={"inject_tool": False})
    res = run_llm(_definition_scenario(), LLMOptions(reader.base_url, "reader"), config=no_loop,
                  pipeline_factory=head_keeper_factory(5), progress=False)
    rows = {r["arm"]: r for r in res["cases"]}
    assert rows["original"]["contains"] == 1.0
    assert rows["compressed_retrieve"]["contains"] == 0.0
    assert res["arms"]["compressed_retrieve"]["delta_contains"]["mean"] == -1.0


def test_kept_facts_need_no_retrieval_and_cost_fewer_tokens(reader):
    # HeadKeeper(1000) keeps every line of the page: no marker, so no tool is offered.
    scenarios = build_suite("smoke", ["documents"])
    res = run_llm(scenarios, LLMOptions(reader.base_url, "reader", price_in_per_mtok=2.5, price_out_per_mtok=10),
                  pipeline_factory=head_keeper_factory(1000), progress=False)
    for r in res["cases"]:
        assert r["contains"] == 1.0 and r["retrieve_calls"] == 0
    assert res["arms"]["original"]["cost_usd"] > 0
    assert not any(b.get("tools") for b in reader.requests)


def test_proxy_arm_runs_the_ccr_loop_inside_the_proxy(reader, tmp_path):
    pytest.importorskip("fastapi")
    from headroom.ccr.store import CompressionStore
    from headroom.config import HeadroomConfig
    from headroom.proxy.app import create_app
    from headroom.proxy.config import ProxyConfig

    upstream = reader.base_url.removesuffix("/v1")
    pipeline = head_keeper_factory(5)(HeadroomConfig(), CompressionStore())
    app = create_app(ProxyConfig(openai_api_url=upstream, metrics_db=None), pipeline=pipeline)
    with ServerThread(app) as server:
        proxy_url = server.url + "/v1"
        res = run_llm(_definition_scenario(), LLMOptions(reader.base_url, "reader", proxy_url=proxy_url),
                      pipeline_factory=head_keeper_factory(5), progress=False)
    rows = {r["arm"]: r for r in res["cases"]}
    # The client (our runner) made no retrieve call itself: the proxy answered it.
    assert rows["proxy"]["retrieve_calls"] == 0 and rows["proxy"]["contains"] == 1.0
    continuations = [b for b in reader.requests if any(tc["function"]["name"] == "headroom_retrieve"
                                                       for m in b["messages"] for tc in m.get("tool_calls") or [])]
    # One from the runner's compressed_retrieve arm, one the proxy sent upstream on its own.
    assert len(continuations) == 2
    assert res["arms"]["proxy"]["delta_contains"]["mean"] == 0.0


def test_cli_llm_run_writes_the_llm_section(reader, tmp_path, capsys, monkeypatch):
    from headroom.cli import main

    monkeypatch.setenv("HEADROOM_EVAL_API_KEY", "test-key")
    out = tmp_path / "res"
    rc = main(["eval", "run", "--suite", "smoke", "--families", "documents", "--configs", "deterministic",
               "--formats", "openai_chat", "--device", "cpu", "--out", str(out), "--quiet", "--no-plots",
               "--llm-base-url", reader.base_url, "--llm-model", "reader"])
    assert rc == 0
    data = json.loads((out / "results.json").read_text())
    assert data["llm"]["concurrency"] == 4  # the default
    assert data["llm"]["model"] == "reader" and set(data["llm"]["arms"]) == {"original", "compressed", "compressed_retrieve"}
    assert data["llm"]["arms"]["original"]["contains"] == 1.0
    md = (out / "report.md").read_text()
    assert "Reader accuracy — reader" in md
    assert data["llm"]["reader_competent"] and "Original-context accuracy of reader: **100.0%** — competent" in md
    assert "test-key" not in (out / "results.json").read_text()


def test_default_pipeline_dropped_turn_comes_back_through_headroom_retrieve(reader, monkeypatch):
    """Real pipeline: the session is over its budget, so the turn holding DEPLOY_REGION is
    dropped to CCR behind a marker. The question names DEPLOY_REGION, so by default its
    line stays in view under the marker; without that excerpt the reader gets the answer
    only by retrieving it."""
    from headroom.transforms import context_units

    suite = build_suite("smoke", ["agent_session"])
    res = run_llm(suite, LLMOptions(reader.base_url, "reader"), progress=False)
    rows = {(r["arm"], r["question"]): r for r in res["cases"]}
    question = next(q for _, q in rows if "DEPLOY_REGION" in q)
    assert rows[("compressed", question)]["contains"] == 1.0  # in view, no retrieval needed

    monkeypatch.setattr(context_units, "dropped_excerpts", lambda *args: "")
    res = run_llm(suite, LLMOptions(reader.base_url, "reader"), progress=False)
    rows = {(r["arm"], r["question"]): r for r in res["cases"]}
    assert rows[("original", question)]["contains"] == 1.0
    assert rows[("compressed", question)]["contains"] == 0.0
    compressed = rows[("compressed_retrieve", question)]
    assert compressed["contains"] == 1.0 and compressed["retrieve_calls"] >= 1
    assert res["arms"]["compressed"]["prompt_tokens"] < res["arms"]["original"]["prompt_tokens"]


def test_rate_limits_are_retried_and_hard_errors_are_scored_misses():
    import httpx

    from headroom.eval.llm import ChatEndpoint, ask

    calls = []

    def handler(request):
        calls.append(1)
        if len(calls) == 1:
            return httpx.Response(429, json={"error": "slow down"})
        if len(calls) == 2:
            return httpx.Response(200, json={"choices": [{"message": {"role": "assistant", "content": "ok"}}]})
        return httpx.Response(400, json={"error": "bad request"})

    ep = ChatEndpoint("http://llm.invalid/v1", None, 5, transport=httpx.MockTransport(handler))
    assert ep.complete({"messages": []}, backoff_s=0)["choices"][0]["message"]["content"] == "ok"
    ans = ask(ep, {"messages": []})
    assert ans.text == "" and "HTTP 400" in ans.error
    assert len(calls) == 3


def test_cli_limit_asks_every_family_including_the_corpus(reader, tmp_path, capsys):
    from headroom.cli import main

    out = tmp_path / "res"
    rc = main(["eval", "run", "--suite", "smoke", "--families", "metrics,real_corpus", "--configs", "deterministic",
               "--formats", "openai_chat", "--device", "cpu", "--out", str(out), "--quiet", "--no-plots",
               "--llm-base-url", reader.base_url, "--llm-model", "reader", "--limit", "1", "--llm-concurrency", "2"])
    assert rc == 0
    llm = json.loads((out / "results.json").read_text())["llm"]
    assert llm["concurrency"] == 2
    for arm in ("original", "compressed", "compressed_retrieve"):
        assert llm["arms"][arm]["n"] == 2 and set(llm["arms"][arm]["families"]) == {"metrics", "real_corpus"}
    corpus = [c for c in llm["cases"] if c["family"] == "real_corpus"]
    assert corpus and all(isinstance(c["expected"], list) and c["expected"] for c in corpus)
    assert all(b["max_tokens"] <= 256 for b in reader.requests)


def test_the_eval_and_the_proxy_send_the_same_upstream_requests(reader):
    """The eval's LLM mode measures the proxy's own loop: for the same conversation, its
    compressed_retrieve arm and the proxy send the reader byte-identical rounds."""
    pytest.importorskip("fastapi")
    from headroom.ccr.store import CompressionStore
    from headroom.proxy.app import create_app
    from headroom.proxy.config import ProxyConfig

    # No retrieve round allowed after the first: the one answer goes back in a round
    # that forbids tool calls (the proxy's rule; the eval once had its own cap).
    config = HeadroomConfig(ccr={"max_retrieve_rounds": 0})
    upstream = reader.base_url.removesuffix("/v1")
    pipeline = head_keeper_factory(5)(config, CompressionStore())
    app = create_app(ProxyConfig(openai_api_url=upstream, metrics_db=None), pipeline=pipeline)
    with ServerThread(app) as server:
        res = run_llm(_definition_scenario()[:1], LLMOptions(reader.base_url, "reader", proxy_url=server.url + "/v1"),
                      config=config, pipeline_factory=head_keeper_factory(5), progress=False, limit=1)
    original, compressed, *loop = reader.requests
    half = len(loop) // 2
    eval_rounds, proxy_rounds = loop[:half], loop[half:]
    assert len(eval_rounds) == 2 and "tools" in eval_rounds[0] and "tools" not in compressed
    assert eval_rounds[1]["tool_choice"] == "none"
    assert eval_rounds == proxy_rounds
    rows = {r["arm"]: r for r in res["cases"]}
    assert rows["compressed_retrieve"]["contains"] == rows["proxy"]["contains"] == 1.0


# -- questions side by side over HTTP (--llm-concurrency) ---------------------------------------


class InFlight:
    """An OpenAI-compatible endpoint as an httpx transport: answers with the fake reader's
    :func:`read` (a function of the request alone) after a short pause, and records how
    many requests were in flight at once and how often it was closed."""

    def __init__(self, pause_s: float = 0.0):
        import threading

        self.pause_s, self.lock = pause_s, threading.Lock()
        self.now = self.most = self.closed = 0

    def handle(self, request):
        import time

        import httpx

        from .fake_openai import read

        with self.lock:
            self.now += 1
            self.most = max(self.most, self.now)
        try:
            time.sleep(self.pause_s)
            body = json.loads(request.content)
            prompt = len(json.dumps(body["messages"])) // 4
            return httpx.Response(200, json={"choices": [{"message": read(body)}],
                                             "usage": {"prompt_tokens": prompt, "completion_tokens": 7}})
        finally:
            with self.lock:
                self.now -= 1

    def transport(self):
        import httpx

        outer = self

        class Counted(httpx.MockTransport):
            def close(self) -> None:
                outer.closed += 1

        return Counted(self.handle)


# Several questions, some answered only after a retrieve round (HeadKeeper drops them).
_SIDE_BY_SIDE = ("metrics", "code_search", "documents", "agent_session")


def _asked(concurrency: int, pause_s: float = 0.0):
    reader, proxy = InFlight(pause_s), InFlight(pause_s)
    options = LLMOptions("http://reader.invalid/v1", "reader", proxy_url="http://proxy.invalid/v1",
                         concurrency=concurrency, bootstrap_rounds=200)
    res = run_llm(build_suite("smoke", list(_SIDE_BY_SIDE)), options, pipeline_factory=head_keeper_factory(5),
                  transport=reader.transport(), proxy_transport=proxy.transport(), progress=False)
    return res, reader, proxy


def test_questions_overlap_over_http_and_the_results_are_the_sequential_ones():
    one, one_reader, _ = _asked(1, pause_s=0.02)
    four, four_reader, four_proxy = _asked(4, pause_s=0.02)
    assert one_reader.most == 1 and four_reader.most > 1  # the sequential loop never overlaps
    assert four["cases"] == one["cases"] and four["arms"] == one["arms"]
    assert {r["arm"] for r in four["cases"]} == {"original", "compressed", "compressed_retrieve", "proxy"}
    assert any(r["retrieve_calls"] for r in four["cases"])  # the retrieve loop ran side by side too
    assert (one["concurrency"], four["concurrency"], four["readers"]) == (1, 4, 1)
    # One client per endpoint, closed once however many slots shared it.
    assert four_reader.closed == 1 and four_proxy.closed == 1


@functools.lru_cache(maxsize=1)
def _sequential_cases() -> str:
    return json.dumps(_asked(1)[0]["cases"])


@settings(max_examples=4, deadline=None)
@given(concurrency=st.integers(2, 9))
def test_results_do_not_depend_on_the_concurrency(concurrency):
    res = _asked(concurrency)[0]
    assert json.dumps(res["cases"]) == _sequential_cases() and res["concurrency"] == concurrency


def test_concurrency_below_one_is_refused():
    with pytest.raises(ValueError, match="at least 1"):
        LLMOptions("http://reader.invalid/v1", "reader", concurrency=0)


def test_cli_llm_concurrency_must_be_at_least_one(capsys):
    from headroom.cli import main

    with pytest.raises(SystemExit) as exit_:
        main(["eval", "run", "--llm-base-url", "http://reader.invalid/v1", "--llm-model", "m",
              "--llm-concurrency", "0"])
    assert exit_.value.code == 2 and "--llm-concurrency" in capsys.readouterr().err


def test_cli_llm_concurrency_with_a_local_reader_is_a_one_line_error(tmp_path, capsys):
    from headroom.cli import main

    rc = main(["eval", "run", "--suite", "smoke", "--reader", str(tmp_path / "model.gguf"), "--llm-concurrency", "2",
               "--out", str(tmp_path / "res"), "--quiet", "--no-plots"])
    err = capsys.readouterr().err
    assert rc == 2 and len(err.strip().splitlines()) == 1 and "Traceback" not in err
    assert "--llm-concurrency" in err and "--reader-workers" in err
    assert not (tmp_path / "res").exists()  # refused before the compression run
