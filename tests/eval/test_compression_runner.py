"""The compression-only runner's bookkeeping, checked against compressors whose effect we know."""

from __future__ import annotations

import pytest

from headroom.eval.compression import run_compression
from headroom.eval.configs import EvalConfig, EvalOptions
from headroom.eval.scenarios import Probe, Scenario, ToolCall, Turn, build_suite
from headroom.pipeline import Pipeline
from headroom.compressors.base import Compressed
from headroom.compressors.detect import ContentType
from headroom.transforms.router import ContentRouter

from .conftest import head_keeper_factory


def _lines_scenario() -> Scenario:
    lines = [f"2026-03-04 10:00:{i % 60:02d} INFO worker-{i:03d} processed batch b{i:04d} in {i + 100} ms"
             for i in range(200)]
    out = "\n".join(lines)
    probes = [Probe("Which batch did worker `worker-002` process?", "b0002", ("b0002",), key="worker-002"),
              Probe("Which batch did worker `worker-150` process?", "b0150", ("b0150",), key="worker-150")]
    return Scenario("handmade", 200, 0, "sys", [Turn("tail the log", (ToolCall("tail", {"n": 200}, out),))], probes)


def test_kept_and_recoverable_are_counted_exactly():
    # HeadKeeper keeps the first 5 lines: b0002 stays visible, b0150 only behind the marker.
    res = run_compression([_lines_scenario()], ["deterministic"], pipeline_factory=head_keeper_factory(5),
                          formats=["openai_chat", "anthropic"], progress=False)
    cases = res["cases"]
    assert len(cases) == 4
    by_q = {(c["question"], c["format"]): c for c in cases}
    for fmt in ("openai_chat", "anthropic"):
        first = by_q[("Which batch did worker `worker-002` process?", fmt)]
        second = by_q[("Which batch did worker `worker-150` process?", fmt)]
        assert (first["kept"], first["recoverable"], first["lost"]) == (1, 0, 0)
        assert (second["kept"], second["recoverable"], second["lost"]) == (0, 1, 0)
        assert second["markers"] == 1 and second["tokens_after"] < second["tokens_before"]
    overall = res["summary"]["deterministic"]["overall"]
    assert overall["lost"] == 0
    assert overall["in_view_retention"] == 0.5 and overall["recoverable_only"] == 0.5
    assert overall["never_worse"] and 0.5 < overall["savings"] < 1
    router = res["summary"]["deterministic"]["transforms"]["content_router"]
    assert router["compressed"] == 4 and router["tokens_saved"] > 0


class _Forgetful:
    """A buggy compressor that drops lines but claims to be lossless (no CCR, no marker)."""

    name = "forgetful"

    def compress(self, inp):
        lines = inp.text.splitlines()
        return Compressed("\n".join(lines[:5]), len(lines), 5, "drop", lossy=False)


def test_lost_facts_are_detected_and_named():
    def factory(config, store):
        c = _Forgetful()
        return Pipeline(config, store=store, transforms=[ContentRouter(compressors={t: c for t in ContentType})])

    res = run_compression([_lines_scenario()], ["deterministic"], pipeline_factory=factory, formats=["openai_chat"],
                          progress=False)
    lost = [c for c in res["cases"] if c["lost"]]
    assert [c["lost_strings"] for c in lost] == [["b0150"]]
    overall = res["summary"]["deterministic"]["overall"]
    assert overall["lost"] == 1 and overall["in_view_retention"] == 0.5 and overall["recoverable_only"] == 0


def test_question_text_does_not_count_as_in_view():
    # A fact the question itself states proves nothing about the compressor.
    from headroom.eval.evidence import check_evidence, visible_text
    from headroom.formats import parse

    question = "Is batch b0150 done?"
    conv = parse({"model": "gpt-4o", "messages": [{"role": "system", "content": "sys"},
                                                  {"role": "user", "content": question}]}, "openai_chat")
    assert "b0150" not in visible_text(conv, question)
    assert "b0150" in visible_text(conv)
    assert check_evidence(("b0150",), visible_text(conv, question), "").lost == 1


def test_unavailable_configs_are_skipped_with_a_reason():
    def broken(config, store):
        raise ImportError("No module named 'some_optional_extra'")

    extra = {"needs_extra": EvalConfig("needs_extra", "test", lambda o: __import__("headroom").HeadroomConfig())}
    res = run_compression(build_suite("smoke", ["metrics"]), ["llmlingua2", "needs_extra"], pipeline_factory=broken,
                          extra_configs=extra, progress=False)
    status = {c["name"]: (c["status"], c["reason"]) for c in res["configs"]}
    assert status["llmlingua2"] == ("skipped", "no LLMLingua-2 checkpoint given (--llmlingua-model DIR)")
    assert status["needs_extra"][0] == "skipped" and "some_optional_extra" in status["needs_extra"][1]
    assert res["cases"] == [] and res["summary"] == {}
    with pytest.raises(ValueError, match="unknown configuration"):
        run_compression([], ["nope"], progress=False)


def test_device_reaches_the_ml_configs():
    from headroom.eval.configs import CONFIGS

    opts = EvalOptions(device="cuda", llmlingua_model="/models/llmlingua-2-xlm-roberta-large-meetingbank")
    assert CONFIGS["llmlingua2"].build(opts).llmlingua.device == "cuda"
    assert CONFIGS["llmlingua2"].build(opts).llmlingua.model_path == opts.llmlingua_model
    assert CONFIGS["relevance_hybrid"].build(opts).relevance.device == "cuda"
    assert CONFIGS["relevance_hybrid"].build(opts).relevance.mode == "hybrid"
    assert CONFIGS["intelligent_context"].build(opts).context.strategy == "intelligent"


def test_session_scenarios_run_under_their_context_budget():
    seen = []

    def factory(config, store):
        seen.append(config.context.max_tokens)
        return head_keeper_factory(5)(config, store)

    sessions = build_suite("smoke", ["agent_session", "metrics"])
    run_compression(sessions, ["deterministic"], pipeline_factory=factory, formats=["openai_chat"], progress=False)
    assert sessions[0].context_budget in seen and None in seen


@pytest.mark.slow
def test_default_pipeline_never_grows_a_request_and_never_crashes():
    """The real pipeline over the smoke suite: invariant 5 (never worse), no errors."""
    res = run_compression(build_suite("smoke"), ["deterministic"], progress=False)
    entry = res["configs"][0]
    assert entry["status"] == "ok", entry["reason"]
    assert all(c["error"] is None for c in res["cases"])
    assert all(c["tokens_after"] <= c["tokens_before"] for c in res["cases"])
    overall = res["summary"]["deterministic"]["overall"]
    assert overall["savings"] > 0
    # Every fact stays at least recoverable: a lossy step always leaves a marker and stores the original.
    assert overall["lost"] == 0, [c["lost_strings"] for c in res["cases"] if c["lost"]]


@pytest.mark.slow
def test_llmlingua2_config_runs_with_a_local_checkpoint(tmp_path):
    """With a checkpoint directory, the llmlingua2 config runs and LLMLingua-2 does the prose."""
    pytest.importorskip("transformers")
    from headroom.ml.testing import build_xlm_roberta

    model = build_xlm_roberta(tmp_path / "llmlingua-2-xlm-roberta-large-meetingbank")
    res = run_compression(build_suite("smoke", ["plain_text"]), ["llmlingua2"], formats=["openai_chat"],
                          options=EvalOptions(device="cpu", llmlingua_model=str(model)), progress=False)
    assert res["configs"][0]["status"] == "ok", res["configs"][0]["reason"]
    router = res["summary"]["llmlingua2"]["transforms"]["content_router"]
    assert any(k.startswith("via llmlingua") for k in router), router
    # Random weights: the run is labelled so nobody reads its numbers as LLMLingua-2's.
    assert res["configs"][0]["label"] == "untrained"
    from headroom.eval.report import config_table

    assert config_table(res)[1][0][1] == "ok (untrained)"


def test_no_ccr_config_leaves_no_markers_and_nothing_recoverable():
    res = run_compression(build_suite("smoke", ["text_logs", "build_output"]), ["no_ccr"], formats=["openai_chat"],
                          pipeline_factory=head_keeper_factory(5), progress=False)
    assert res["configs"][0]["status"] == "ok"
    assert all(c["markers"] == 0 and c["recoverable"] == 0 for c in res["cases"])
    # HeadKeeper is lossy, so without a store the router keeps every original.
    assert res["summary"]["no_ccr"]["overall"]["savings"] == 0


def test_cases_are_judged_alone_without_a_learner_carrying_state_between_them():
    """One pipeline serves a configuration's cases; TOIN (on by default in production)
    would learn from earlier cases and change later ones, so the runner turns it off."""
    seen = []

    def factory(config, store):
        seen.append(config.toin.enabled)
        p = Pipeline(config, store=store)
        assert p.toin is None
        return p

    run_compression([_lines_scenario()], ["deterministic"], pipeline_factory=factory, formats=["openai_chat"],
                    progress=False)
    assert seen == [False]


def test_models_load_before_the_first_case_is_compressed():
    """A configuration's models load through Pipeline.warm_up() before any case (as the
    proxy does before serving), so a load cannot time out the first cases."""
    calls: list[str] = []

    class Recording(Pipeline):
        def warm_up(self):
            calls.append("warm_up")
            return super().warm_up()

        def compress_body(self, *a, **kw):
            calls.append("compress")
            return super().compress_body(*a, **kw)

    res = run_compression([_lines_scenario()], ["deterministic"], formats=["openai_chat"], progress=False,
                          pipeline_factory=lambda config, store: Recording(config, store=store))
    assert calls[0] == "warm_up" and calls.count("warm_up") == 1 and "compress" in calls
    assert len(res["cases"]) == 2
