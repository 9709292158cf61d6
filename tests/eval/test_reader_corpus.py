"""The reader reads the real corpus: corpus probes carry their facts as answers, every
family is asked in all three arms, answers are sized to the probe, runs can be limited."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from headroom.eval.corpus import case_scenario, load_cases
from headroom.eval.llm import ANSWER_STYLE, LLMOptions, answer_budget, reader_work, run_llm
from headroom.eval.scenarios import build_suite
from headroom.eval.scoring import fact_recall, normalize

from .conftest import head_keeper_factory


class FactEcho:
    """A reader that states every candidate fact it can see in its prompt (user turns aside)."""

    def __init__(self, facts: list[str]):
        self.facts, self.bodies = facts, []

    def complete(self, body):
        self.bodies.append(body)
        context = "\n".join(str(m.get("content") or "") for m in body["messages"] if m["role"] != "user")
        seen = [f for f in self.facts if f in context]
        return {"choices": [{"message": {"role": "assistant", "content": "; ".join(seen)}}],
                "usage": {"prompt_tokens": len(context) // 4, "completion_tokens": 5}}

    def close(self):
        pass


def test_corpus_probes_carry_their_facts_as_answers():
    case = load_cases(sources=["redis_server"])[0]
    probe = case_scenario(case).probes[0]
    assert probe.expected == "" and probe.answers == tuple(f.text for f in case.facts)
    assert probe.reader_answers == probe.answers and len(probe.basis) == len(probe.evidence)


def test_every_family_is_asked_in_all_three_arms_and_scored_on_facts():
    scenarios = build_suite("smoke", ["metrics", "real_corpus"])
    work = reader_work(scenarios, limit=2)
    assert {s.family for s, _ in work} == {"metrics", "real_corpus"}
    assert sum(s.family == "real_corpus" for s, _ in work) == 2  # --limit is per family
    facts = [a for _, p in work for a in p.reader_answers]
    reader = FactEcho(facts)
    res = run_llm(scenarios, LLMOptions("local:echo", "echo"), endpoint=reader, pipeline_factory=head_keeper_factory(5),
                  progress=False, limit=2)
    arms = res["arms"]
    assert set(arms) == {"original", "compressed", "compressed_retrieve"}
    for arm in arms.values():
        assert set(arm["families"]) == {"metrics", "real_corpus"} and arm["n"] == 4
    # From the originals every fact is seen, so every corpus answer scores 1.
    corpus_rows = [r for r in res["cases"] if r["family"] == "real_corpus"]
    assert all(r["contains"] == 1.0 for r in corpus_rows if r["arm"] == "original")
    assert res["reader_competent"]
    # Each request asks for what its answer needs, with the answer style in the system prompt.
    for body in reader.bodies:
        assert body["max_tokens"] <= 256 and ANSWER_STYLE in body["messages"][0]["content"]
    assert min(b["max_tokens"] for b in reader.bodies) < 64


def test_answer_budget_fits_the_answer_and_respects_the_ceiling():
    probe = build_suite("smoke", ["metrics"])[0].probes[0]
    assert 16 <= answer_budget(probe, 256) < 64
    assert answer_budget(probe, 20) == 20


def test_fact_recall_counts_whole_facts_after_normalisation():
    facts = ["ERROR: disk quota exceeded", "worker-7"]
    assert fact_recall("The log says error disk quota exceeded; and worker-7.", facts) == 1.0
    assert fact_recall("disk quota was exceeded by worker-7", facts) == 0.5  # words must stay together
    assert fact_recall("worker-70 failed", ["worker-7"]) == 0.0  # a value is matched whole
    assert fact_recall("anything", []) == 0.0


@settings(max_examples=60, deadline=None)
@given(st.lists(st.text(min_size=1, max_size=25), min_size=1, max_size=4), st.text(max_size=30), st.text(max_size=30))
def test_a_reader_that_quotes_every_fact_scores_one(facts, before, after):
    answer = f"{before} " + " ; ".join(facts) + f" {after}"
    # Quoting a fact verbatim, with any text around it, always counts.
    assert fact_recall(answer, facts) == 1.0 or any(not normalize(f) for f in facts)
