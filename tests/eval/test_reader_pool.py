"""Several reader copies asked whole questions side by side: the cores are shared out,
each question's arms stay on one reader in order, the first request of a question
forgets the prompt cache, and the answers are those of one reader asking in suite order."""

from __future__ import annotations

import os
import threading
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from headroom.eval.llm import LLMOptions, run_llm
from headroom.eval.reader_pool import ReaderPool, map_on_readers, members, split_cores
from headroom.eval.scenarios import build_suite

from .conftest import head_keeper_factory


@given(cores=st.integers(1, 64), workers=st.one_of(st.none(), st.integers(1, 80)))
def test_cores_are_shared_out_never_oversubscribed(cores, workers):
    n, threads = split_cores(cores, workers)
    assert 1 <= n <= cores and threads >= 1 and n * threads <= cores
    if workers is None:
        assert n == min(cores, 4)
    else:
        assert n == min(cores, workers)


def test_two_cores_give_two_single_thread_readers():
    assert split_cores(2, None) == (2, 1)
    assert split_cores(2, 1) == (1, 2)
    assert split_cores(16, None) == (4, 4)


@settings(max_examples=30, deadline=None)
@given(items=st.lists(st.integers(), max_size=40), readers=st.integers(1, 4))
def test_every_item_once_results_in_order_one_item_per_reader_at_a_time(items, readers):
    busy: dict[int, int] = {}
    lock = threading.Lock()
    seen = []

    def fn(item, reader):
        with lock:
            busy[reader] = busy.get(reader, 0) + 1
            assert busy[reader] == 1, "a reader was given two items at once"
            seen.append(item)
        with lock:
            busy[reader] -= 1
        return (item, reader)

    done = []
    out = map_on_readers(items, list(range(readers)), fn, on_done=lambda: done.append(1))
    assert [o[0] for o in out] == items and sorted(seen) == sorted(items) and len(done) == len(items)
    assert {o[1] for o in out} <= set(range(readers))


class Scripted:
    """A deterministic reader: its answer is a digest of the request, so any change in what
    it is asked changes the answer; it records what it was asked and when it forgot."""

    def __init__(self, name: str, log: list, lock: threading.Lock):
        self.name, self.log, self.lock = name, log, lock

    def forget(self):
        with self.lock:
            self.log.append((self.name, "forget", None))

    def complete(self, body):
        import hashlib
        import json

        text = json.dumps({k: body.get(k) for k in ("messages", "tools", "max_tokens")}, sort_keys=True)
        with self.lock:
            self.log.append((self.name, "ask", body))
        return {"choices": [{"message": {"role": "assistant", "content": hashlib.sha1(text.encode()).hexdigest()[:12]}}],
                "usage": {"prompt_tokens": len(text) // 4, "completion_tokens": 3}}

    def close(self):
        pass


def _run(endpoint, suite):
    res = run_llm(suite, LLMOptions("local:scripted", "scripted"), endpoint=endpoint,
                  pipeline_factory=head_keeper_factory(5), progress=False, limit=2)
    return [{k: v for k, v in r.items()} for r in res["cases"]], res


def test_a_pool_asks_what_one_reader_asks_and_answers_the_same():
    suite = build_suite("smoke", ["metrics", "code_search", "documents", "real_corpus"])
    lock = threading.Lock()
    one_log: list = []
    one_cases, one = _run(Scripted("solo", one_log, lock), suite)
    pool_log: list = []
    pool_cases, pooled = _run(ReaderPool([Scripted(f"r{i}", pool_log, lock) for i in range(3)]), suite)
    assert pool_cases == one_cases and pooled["readers"] == 3 and one["readers"] == 1
    asked = lambda log: sorted(repr(b) for _, kind, b in log if kind == "ask")
    assert asked(pool_log) == asked(one_log)


def test_a_question_stays_on_one_reader_in_arm_order_after_forgetting():
    suite = build_suite("smoke", ["metrics", "code_search"])
    lock = threading.Lock()
    log: list = []
    _run(ReaderPool([Scripted(f"r{i}", log, lock) for i in range(2)]), suite)
    # Which reader takes which question is the pool's scheduling: on a busy machine one
    # reader may take both before the other starts. What must hold is per reader.
    assert any(kind == "forget" for _, kind, _ in log)
    for name in ("r0", "r1"):
        mine = [(kind, b) for n, kind, b in log if n == name]
        if not mine:
            continue
        # Each reader's stream is questions one after another: forget, original, then the
        # compressed arms (their system prompt is the original's, their tool outputs shorter).
        starts = [i for i, (kind, _) in enumerate(mine) if kind == "forget"]
        assert starts and starts[0] == 0
        for a, b in zip(starts, [*starts[1:], len(mine)]):
            requests = [body for kind, body in mine[a + 1:b]]
            assert all(kind == "ask" for kind, _ in mine[a + 1:b]) and len(requests) >= 2
            original, compressed = requests[0], requests[1]
            assert not original.get("tools") and original["messages"][0] == compressed["messages"][0]
            assert len(str(compressed["messages"])) < len(str(original["messages"]))


def test_members_of_a_single_endpoint_is_itself():
    lock = threading.Lock()
    solo = Scripted("solo", [], lock)
    assert members(solo) == [solo]
    with pytest.raises(ValueError):
        ReaderPool([])


@pytest.mark.slow
def test_tiny_reader_pool_answers_like_one_reader(tmp_path):
    """Two copies of the tiny random Llama asked side by side give the single reader's
    answers, question for question and arm for arm (greedy decoding: any difference in
    what is asked, or how, would show)."""
    pytest.importorskip("transformers")
    from headroom.eval.reader import load_reader

    from .tiny_reader import build_tiny_causal_lm

    suite = build_suite("smoke", ["metrics", "documents"])
    texts = [o[:4000] for s in suite for o in s.tool_outputs()]
    path = build_tiny_causal_lm(tmp_path / "tiny-llama", texts)
    options = LLMOptions("local:tiny", "tiny", max_tokens=6)
    one = run_llm(suite, options, endpoint=load_reader(path, "cpu"), progress=False)
    pool = run_llm(suite, options, endpoint=ReaderPool([load_reader(path, "cpu"), load_reader(path, "cpu")]),
                   progress=False)
    strip = lambda cases: [{k: v for k, v in c.items() if k != "duration_s"} for c in cases]
    assert strip(pool["cases"]) == strip(one["cases"]) and len(one["cases"]) == 9


GGUF = os.environ.get("HEADROOM_TEST_GGUF")


@pytest.mark.slow
@pytest.mark.skipif(not GGUF or not Path(GGUF).is_file(), reason="set HEADROOM_TEST_GGUF to a small .gguf instruct model")
def test_gguf_forget_processes_the_whole_prompt_and_answers_do_not_depend_on_the_question_before():
    """With a real llama.cpp reader: after ``forget`` no token of the prompt comes from the
    cache (all of it is processed), and a question answered after another one gets the
    answer it gets on a fresh reader."""
    pytest.importorskip("xllamacpp")
    from headroom.eval.llm import _body, answer_budget
    from headroom.eval.reader import GGUFReader

    suite = build_suite("smoke", ["documents", "plain_text"])
    bodies = [_body(LLMOptions("x", "m"), s.openai_messages(p), answer_budget(p, 32)) for s in suite for p in s.probes]
    first, second = bodies[0], bodies[-1]
    fresh = GGUFReader(Path(GGUF), "cpu", 8192, threads=1)
    fresh.forget()
    alone = fresh.complete(second)
    assert alone["timings"]["cache_n"] == 0 and alone["timings"]["prompt_n"] == alone["usage"]["prompt_tokens"]
    reused = GGUFReader(Path(GGUF), "cpu", 8192, threads=1)
    reused.complete(first)
    reused.forget()
    after = reused.complete(second)
    assert after["timings"]["cache_n"] == 0 and after["timings"]["prompt_n"] == after["usage"]["prompt_tokens"]
    assert after["choices"][0]["message"]["content"] == alone["choices"][0]["message"]["content"]
    # Without forgetting, the next arm's prompt reuses the cache: processed + cached is the whole prompt.
    again = reused.complete(second)
    assert again["timings"]["cache_n"] + again["timings"]["prompt_n"] == again["usage"]["prompt_tokens"]
    assert again["timings"]["cache_n"] > 0


@pytest.mark.skipif(not GGUF or not Path(GGUF).is_file(), reason="set HEADROOM_TEST_GGUF to a small .gguf instruct model")
def test_a_gguf_reader_on_the_cpu_is_a_pool_sharing_the_usable_cores():
    pytest.importorskip("xllamacpp")
    from headroom.eval.reader import GGUFReader, load_reader
    from headroom.eval.reader_pool import usable_cores

    pool = load_reader(GGUF, "cpu", workers=2)
    try:
        readers = members(pool)
        assert all(isinstance(r, GGUFReader) for r in readers)
        assert len(readers) == min(2, usable_cores()) and sum(r.threads for r in readers) <= usable_cores()
    finally:
        pool.close()
    single = load_reader(GGUF, "cpu", workers=1)
    assert isinstance(single, GGUFReader) and single.threads == usable_cores()
    single.close()


def test_dearest_items_start_first_and_results_keep_the_items_order():
    started = []
    lock = threading.Lock()
    both_busy = threading.Barrier(2)  # neither of the first two finishes before both started

    def fn(item, reader):
        with lock:
            started.append(item)
            first_two = len(started) <= 2
        if first_two:
            both_busy.wait(timeout=10)
        return item * 10

    items = [3, 9, 1, 7, 5]
    out = map_on_readers(items, ["a", "b"], fn, cost=lambda x: x)
    assert out == [30, 90, 10, 70, 50]
    assert set(started[:2]) == {9, 7}  # the two readers took the two dearest first
    # One reader keeps the suite's order (a plain loop).
    started.clear()
    map_on_readers(items, ["a"], lambda item, reader: started.append(item), cost=lambda x: x)
    assert started == items
