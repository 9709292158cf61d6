"""The in-process reader (``--reader PATH``): tool-call parsing, loading, and the whole
run on a tiny random causal LM built here (its answers are noise; the wiring is the test)."""

from __future__ import annotations

import json
import re

import pytest

from headroom.eval.reader import load_reader, parse_tool_calls


def test_tool_calls_are_read_in_the_forms_instruction_models_emit():
    names = {"headroom_retrieve"}
    text, calls = parse_tool_calls('<tool_call>{"name": "headroom_retrieve", "arguments": {"hash": "ab12"}}</tool_call>',
                                   names)
    assert text == "" and json.loads(calls[0]["function"]["arguments"]) == {"hash": "ab12"}
    text, calls = parse_tool_calls('Let me look. {"name": "headroom_retrieve", "parameters": {"hash": "cd34"}}', names)
    assert text == "Let me look." and calls[0]["function"]["name"] == "headroom_retrieve"
    # Other JSON in an answer is not a call.
    text, calls = parse_tool_calls('The row is {"name": "web-01", "cpu": 97}', names)
    assert calls == [] and text == 'The row is {"name": "web-01", "cpu": 97}'


def test_a_path_that_is_neither_gguf_nor_a_model_directory_is_refused(tmp_path):
    with pytest.raises(ValueError, match="expected a .gguf file or a transformers model directory"):
        load_reader(tmp_path)


def test_a_run_with_a_path_that_is_no_reader_stops_before_compressing(tmp_path, capsys, monkeypatch):
    import headroom.eval.compression
    from headroom.cli import main

    def compressing(*a, **k):
        raise AssertionError("the suite was compressed before the reader was looked at")

    monkeypatch.setattr(headroom.eval.compression, "run_compression", compressing)
    out = tmp_path / "results"
    assert main(["eval", "run", "--suite", "smoke", "--reader", str(tmp_path / "model.gguf"), "--out", str(out),
                 "--quiet", "--no-plots"]) != 0
    assert "model.gguf" in capsys.readouterr().err
    assert not out.exists()


@pytest.fixture(scope="module")
def tiny_reader_dir(tmp_path_factory):
    pytest.importorskip("transformers")
    from headroom.eval.scenarios import build_suite

    from .tiny_reader import build_tiny_causal_lm

    texts = [o[:4000] for s in build_suite("smoke", ["metrics", "documents", "text_logs"]) for o in s.tool_outputs()]
    return build_tiny_causal_lm(tmp_path_factory.mktemp("reader") / "tiny-llama", texts)


def test_an_over_long_prompt_is_a_scored_miss_not_a_truncation(tiny_reader_dir):
    from headroom.eval.llm import ask

    reader = load_reader(tiny_reader_dir, "cpu", context=64)
    ans = ask(reader, {"messages": [{"role": "user", "content": "word " * 200}], "max_tokens": 4})
    assert ans.text == "" and "exceeds the reader's context of 64" in ans.error


@pytest.mark.slow
def test_reader_run_end_to_end_on_cpu_leads_with_original_context_accuracy(tiny_reader_dir, tmp_path, capsys):
    from headroom.cli import main
    from headroom.eval.gate import evaluate
    from headroom.eval.report import load_results

    out = tmp_path / "res"
    rc = main(["eval", "run", "--reader", str(tiny_reader_dir), "--device", "cpu", "--suite", "smoke",
               "--families", "metrics,documents", "--configs", "deterministic", "--formats", "openai_chat",
               "--llm-max-tokens", "8", "--out", str(out), "--quiet", "--no-plots"])
    assert rc == 0
    data = load_results(out)
    llm = data["llm"]
    probes = 3  # metrics: spike + lookup; documents: warranty
    assert {arm: s["n"] for arm, s in llm["arms"].items()} == {"original": probes, "compressed": probes,
                                                               "compressed_retrieve": probes}
    assert all(s["prompt_tokens"] > 0 and s["errors"] == 0 for s in llm["arms"].values())
    assert llm["arms"]["compressed"]["prompt_tokens"] < llm["arms"]["original"]["prompt_tokens"]
    assert "lo" in llm["arms"]["compressed"]["delta_contains"]
    # Random weights cannot answer: the report says so first, and the gate ignores the deltas.
    assert not llm["reader_competent"]
    md = (out / "report.md").read_text()
    headline = md.index("Original-context accuracy of tiny-llama")
    assert headline < md.index("## Reader accuracy") < md.index("## Configurations")
    assert "reader not competent" in md[headline:md.index("## Configurations")]
    # Both phases' times on the meta line: the compression's alone would hide the reader's minutes.
    assert re.search(r"compression took [\d.]+ s, the reader [\d.]+ s", md)
    checks = evaluate(data, {"overall": {"min_llm_contains_delta": -0.05}})
    [llm_check] = [c for c in checks if c.scope == "llm"]
    assert llm_check.passed and llm_check.value is None and "reader not competent" in llm_check.note
    assert re.search(r"\| compressed_retrieve \| 3 \|", md)
