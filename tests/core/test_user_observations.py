"""Tool output sent as user messages (headroom.transforms.observations): a ReAct-style
session's earlier observations are compressed like tool outputs, reversibly and with the
same bytes in every later turn; text a person typed never changes, and the latest user
turn only when it answers the assistant's action (the newest observation).

The observations are real data: an installed module read as ``cat -n`` prints it, and
``ls -l``-style listing lines of installed files (sizes and names from the file system).
"""

from __future__ import annotations

import copy
import stat
import time
from pathlib import Path

import httpx
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from headroom.ccr.markers import find_hashes
from headroom.ccr.store import CompressionStore
from headroom.config import HeadroomConfig
from headroom.formats import parse
from headroom.pipeline import Pipeline
from headroom.tokens import counter_for
from headroom.transforms.base import TransformContext
from headroom.transforms.observations import (
    NAME,
    classify,
    is_sentence_like,
    observation_blocks,
    split_frame,
    typed_by_a_person,
)

SOURCE = Path(httpx.__file__).with_name("_client.py")
TASK = "Find out why the nightly batch failed and fix the client timeout handling."


def cat_n(path: Path, lines: int = 400) -> str:
    """A file as ``cat -n`` shows it: the number right-aligned in six columns, a tab."""
    return "\n".join(f"{i:>6}\t{line}" for i, line in enumerate(path.read_text().splitlines()[:lines], 1))


def ls_l(folder: Path) -> str:
    """``ls -l``-style lines for the files of an installed package (real names, sizes, times)."""
    out = []
    for p in sorted(folder.rglob("*.py"))[:150]:
        s = p.stat()
        when = time.strftime("%b %d %H:%M", time.gmtime(s.st_mtime))
        out.append(f"{stat.filemode(s.st_mode)} 1 root root {s.st_size:>8} {when} {p.relative_to(folder.parent)}")
    return "\n".join(out)


def worker_log(rare_at: int = 211) -> str:
    lines = [f"2026-11-22T04:{i // 60 % 60:02d}:{i % 60:02d} INFO worker-{i % 7} processed batch {i} in {i % 13} ms"
             for i in range(300)]
    lines[rare_at] = "2026-11-22T04:03:31 ERROR worker-1 batch 211 failed: disk quota exceeded on /var/data"
    return "\n".join(lines)


def react_session(turns: int) -> list[dict]:
    """system, the task, then (Thought/Action, Observation) pairs; the last is the newest observation."""
    steps = [("cat -n httpx/_client.py", "Observation:\n" + cat_n(SOURCE)),
             ("cat /var/log/worker.log", "Observation:\n```\n" + worker_log() + "\n```"),
             ("ls -l httpx", "Observation:\n" + ls_l(SOURCE.parent)),
             ("tail worker.log", "Observation:\n" + worker_log(rare_at=17))]
    msgs = [{"role": "system", "content": "You solve tasks with Thought, Action and Observation steps."},
            {"role": "user", "content": TASK}]
    for action, observation in steps[:turns]:
        msgs.append({"role": "assistant", "content": f"Thought: I need to look.\nAction: {action}"})
        msgs.append({"role": "user", "content": observation})
    return msgs


def run(pipeline: Pipeline, messages: list[dict], fmt: str = "openai_chat"):
    body = {"model": "gpt-4o", "messages": copy.deepcopy(messages)}
    if fmt == "anthropic":
        system = body["messages"].pop(0)["content"]
        body = {"model": "claude-sonnet-4-5", "max_tokens": 100, "system": system,
                "messages": [{"role": m["role"], "content": [{"type": "text", "text": m["content"]}]}
                             for m in body["messages"]]}
    return pipeline.compress_body(body, fmt)


def texts(result, fmt: str = "openai_chat") -> list[str]:
    msgs = result.body["messages"]
    return [m["content"] if isinstance(m["content"], str) else m["content"][0]["text"] for m in msgs]


@pytest.fixture
def pipeline() -> Pipeline:
    return Pipeline(HeadroomConfig(), store=CompressionStore())


@pytest.mark.parametrize("fmt", ["openai_chat", "anthropic"])
def test_earlier_observations_are_compressed_and_retrievable(pipeline, fmt):
    msgs = react_session(3)
    result = run(pipeline, msgs, fmt)
    sent = texts(result, fmt)
    original = [m["content"] for m in msgs[1:]] if fmt == "anthropic" else [m["content"] for m in msgs]
    offset = 1 if fmt == "anthropic" else 0  # Anthropic's system prompt is not a message
    task, first_obs, second_obs, latest = (1 - offset, 3 - offset, 5 - offset, 7 - offset)
    assert sent[task] == original[task] == TASK  # typed by a person
    for i in (first_obs, second_obs, latest):  # the newest observation too, in its own turn
        assert len(sent[i]) < len(original[i])
        # The agent's framing stays as it was sent; the output is reversible.
        assert sent[i].startswith("Observation:\n")
        [h] = find_hashes(sent[i])
        body = split_frame(original[i]).body
        assert pipeline.store.retrieve(h).content == body
    assert sent[second_obs].endswith("\n```")  # the closing fence stays too
    # The rare line stays in view (the question is the task, not the newest observation).
    assert "disk quota exceeded" in sent[second_obs]
    # Every assistant message is untouched.
    assert [t for t, m in zip(sent, result.body["messages"]) if m["role"] == "assistant"] == \
        [m["content"] for m in msgs if m["role"] == "assistant"]


def test_every_user_text_block_has_a_decision(pipeline):
    result = run(pipeline, react_session(3))
    user = [i for i, m in enumerate(result.body["messages"]) if m["role"] == "user"]
    decided = {d.message_index: d for d in result.decisions if d.transform == NAME}
    assert sorted(decided) == user
    assert decided[user[0]].action == "skipped"
    assert [decided[i].action for i in user[1:]] == ["classified", "classified", "classified"]
    assert all(decided[i].reason for i in user)


def test_compressed_observations_keep_their_bytes_in_later_turns(pipeline):
    """Cache stability: once compressed, an observation renders the same in every later
    turn, although the latest user turn (and with it the question) changed."""
    first = texts(run(pipeline, react_session(3)))
    second = texts(run(pipeline, react_session(4)))
    # Turn 2 only appends: the observation that was latest in turn 1 keeps the bytes it was
    # sent with, so the provider's cached prefix covers all of turn 1.
    assert second[:len(first)] == first
    assert len(second) == len(first) + 2
    # A fresh process sharing the CCR store renders the same bytes (the memo from the store).
    again = texts(run(Pipeline(HeadroomConfig(), store=pipeline.store), react_session(4)))
    assert again == second


def test_a_latest_user_turn_with_no_action_before_it_is_a_request_and_stays(pipeline):
    # A person pasting a log as the first message asks about it: it is not an observation.
    msgs = [{"role": "system", "content": "You help."}, {"role": "user", "content": "Observation:\n" + worker_log()}]
    result = run(pipeline, msgs)
    assert texts(result) == [m["content"] for m in msgs]
    [d] = [d for d in result.decisions if d.transform == NAME]
    assert d.action == "skipped" and "request" in d.reason


def test_prose_in_an_earlier_user_turn_is_never_rewritten(pipeline):
    essay = "\n".join(
        f"The {w} service should retry the upload when the network drops, and it should tell the user what happened."
        for w in ("first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth", "ninth", "tenth"))
    msgs = [{"role": "user", "content": essay}, {"role": "assistant", "content": "Understood."},
            {"role": "user", "content": "Go ahead."}]
    result = run(pipeline, msgs)
    assert texts(result) == [m["content"] for m in msgs]
    [d] = [d for d in result.decisions if d.transform == NAME and d.message_index == 0]
    assert d.action == "skipped" and "sentences" in d.reason


def test_classification_by_shape():
    assert classify("Observation:\n" + worker_log())[0]
    assert classify(ls_l(SOURCE.parent))[0]
    assert classify("$ cat -n client.py:\n" + cat_n(SOURCE))[0]
    # Renaming the framing changes nothing: it is read by its shape, not its words.
    assert classify("Result of the command:\n" + worker_log())[0]
    assert classify("[tool output]\n" + worker_log())[0]
    assert not classify("short\nmessage")[0]


def test_split_frame_keeps_whole_lines():
    text = "Observation:\n```\nline one\nline two\n```\n(Open file: x.py)"
    f = split_frame(text)
    assert f.head + f.body + f.tail == text
    assert f.body == "line one\nline two"
    assert split_frame("no framing here\nsecond").body == "no framing here\nsecond"


WORD = st.text(alphabet="abcdefghijklmnopqrstuvwxyz", min_size=2, max_size=9)
SENTENCE = st.builds(
    lambda first, rest, end: " ".join([first.capitalize(), *rest]) + end,
    WORD, st.lists(WORD, min_size=3, max_size=18), st.sampled_from([".", "?", "!", ""]))


@settings(max_examples=100, deadline=None)
@given(st.lists(SENTENCE, min_size=1, max_size=30), st.sampled_from(["\n", "\n\n", " "]))
def test_a_persons_sentences_are_never_tool_output(sentences, sep):
    text = sep.join(sentences)
    assert typed_by_a_person(text) is not None
    assert not classify(text)[0]


@settings(max_examples=40, deadline=None)
@given(st.lists(SENTENCE, min_size=1, max_size=6))
def test_a_short_message_is_never_tool_output_whatever_it_holds(lines):
    # Even lines that look like a log: a few lines are a person's paste or question.
    text = "\n".join(lines[:3] + worker_log().splitlines()[:3])
    assert not classify(text)[0]


def test_sentence_like():
    assert is_sentence_like("Please fix the parser when the input is empty.")
    assert not is_sentence_like("2026-11-22T04:00:01 INFO worker-1 processed batch 1 in 1 ms")
    assert not is_sentence_like("    return self._send_handling_auth(request, auth=auth)")


def test_the_agents_preceding_turn_is_what_the_observation_is_read_for():
    conv = parse({"model": "gpt-4o", "messages": react_session(3)}, "openai_chat")
    ctx = TransformContext(config=HeadroomConfig(), counter=counter_for("gpt-4o"), store=None)
    found = list(observation_blocks(conv, ctx))
    assert [i for i, _, _ in found] == [3, 5, 7]
    assert [b.tool_intent for _, _, b in found] == [conv.messages[k].text() for k in (2, 4, 6)]


def test_an_agent_loop_is_offered_the_retrieve_tool_from_its_first_observation(pipeline):
    # The tool list heads the provider's cached prefix: a ReAct agent (no tools of its own)
    # gets headroom_retrieve as soon as an observation is recognised, and keeps it.
    from headroom.exchange import ExchangeCore
    from headroom.modes import OPTIMIZE

    core = ExchangeCore(pipeline)
    one = react_session(1)
    result = run(pipeline, one)
    assert result.agent_loop
    sent = core.prepare(result.body, "openai_chat", OPTIMIZE, result=result).send
    assert [t["function"]["name"] for t in sent["tools"]] == ["headroom_retrieve"]
    chat = [{"role": "user", "content": "hello"}, {"role": "assistant", "content": "hi"},
            {"role": "user", "content": "what is a monad?"}]
    plain = run(pipeline, chat)
    assert not plain.agent_loop
    assert "tools" not in core.prepare(plain.body, "openai_chat", OPTIMIZE, result=plain).send


def test_an_agent_loop_with_short_first_observations_gets_the_tool_from_the_start(pipeline):
    # Its first outputs are too short to compress, yet the framing ("Observation:") after the
    # assistant's action shows the loop: the tool list must not change at the first marker.
    from headroom.exchange import ExchangeCore
    from headroom.modes import OPTIMIZE

    msgs = [{"role": "system", "content": "You solve tasks with Thought, Action and Observation steps."},
            {"role": "user", "content": TASK},
            {"role": "assistant", "content": "Thought: where am I?\nAction: pwd"},
            {"role": "user", "content": "Observation:\n/srv/app"}]
    result = run(pipeline, msgs)
    assert result.agent_loop and not result.carries_markers
    sent = ExchangeCore(pipeline).prepare(result.body, "openai_chat", OPTIMIZE, result=result).send
    assert [t["function"]["name"] for t in sent["tools"]] == ["headroom_retrieve"]
    # A person's short reply to the assistant is no agent loop.
    chat = [{"role": "user", "content": "hi"}, {"role": "assistant", "content": "Hello! What can I do?"},
            {"role": "user", "content": "tell me a joke"}]
    assert not run(pipeline, chat).agent_loop
