"""The one exchange loop (headroom.exchange.driver) over recording fake transports.

The sync and async runners perform the same generator, so for any script of model turns
they must send the same bodies and hand the caller the same answer or the same items.
"""

from __future__ import annotations

import asyncio
import copy
import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from headroom.ccr.scope import TENANT_META_KEY
from headroom.exchange import Unanswerable, arun, arun_stream, run, run_stream, start

from .test_exchange import ANSWER, LOG, body, core, retrieve_turn

RETRIEVE, TEXT = "retrieve", "text"


def turn_for(kind: str, sent: dict, n: int) -> dict:
    return retrieve_turn(sent, f"r{n}") if kind == RETRIEVE else copy.deepcopy(ANSWER)


def chunks(turn: dict) -> list[dict]:
    """A whole Chat Completions turn as the stream chunks a provider sends for it."""
    choice = turn["choices"][0]
    msg = choice["message"]
    out = [{"id": "c", "choices": [{"index": 0, "delta": {"role": "assistant"}}]}]
    if msg.get("content"):
        for word in msg["content"].split(" "):
            out.append({"id": "c", "choices": [{"index": 0, "delta": {"content": word + " "}}]})
    for i, tc in enumerate(msg.get("tool_calls") or []):
        out.append({"id": "c", "choices": [{"index": 0, "delta": {"tool_calls": [{"index": i, **tc}]}}]})
    out.append({"id": "c", "choices": [{"index": 0, "delta": {}, "finish_reason": choice["finish_reason"]}]})
    out.append({"id": "c", "choices": [], "usage": turn["usage"]})
    return out


class Recording:
    """A fake provider: answers round n with the script's n-th turn; keeps what it was sent."""

    def __init__(self, script: list[str]):
        self.script = list(script)
        self.sent: list[dict] = []
        self.closed = 0

    def answer(self, body: dict) -> dict:
        self.sent.append(copy.deepcopy(body))
        return turn_for(self.script[len(self.sent) - 1], body, len(self.sent))

    def turn(self, reply):
        return reply

    def events(self, item):
        return [(item, item, lambda data: data)]


class SyncFake(Recording):
    def send(self, body):
        return self.answer(body)

    def stream(self, body):
        return _Stream(self, chunks(self.answer(body)))


class AsyncFake(Recording):
    async def send(self, body):
        return self.answer(body)

    async def stream(self, body):
        return _AsyncStream(self, chunks(self.answer(body)))


class _Stream:
    def __init__(self, owner, items):
        self.owner, self.items = owner, items

    def __iter__(self):
        return iter(self.items)

    def close(self):
        self.owner.closed += 1


class _AsyncStream(_Stream):
    def __aiter__(self):
        async def gen():
            for i in self.items:
                yield i
        return gen()

    async def aclose(self):
        self.owner.closed += 1


def _sync(script, max_rounds, streamed):
    c = core(max_rounds)
    ex = start(c, body(), "openai_chat", "optimize", copy_body=True)
    fake = SyncFake(script)
    try:
        if streamed:
            out = list(run_stream(c, ex, fake, fake.stream(ex.send)))
        else:
            out = run(c, ex, fake)
    except Unanswerable as exc:
        out = f"unanswerable: {exc}"
    return fake, ex, out


def _async(script, max_rounds, streamed):
    async def go():
        c = core(max_rounds)
        ex = start(c, body(), "openai_chat", "optimize", copy_body=True)
        fake = AsyncFake(script)
        try:
            if streamed:
                out = [i async for i in arun_stream(c, ex, fake, await fake.stream(ex.send))]
            else:
                out = await arun(c, ex, fake)
        except Unanswerable as exc:
            out = f"unanswerable: {exc}"
        return fake, ex, out

    return asyncio.run(go())


def test_retrieve_rounds_then_the_callers_answer():
    fake, ex, out = _sync([RETRIEVE, TEXT], 3, streamed=False)
    assert out == ANSWER and (ex.rounds, ex.retrievals) == (1, 1)
    first, second = fake.sent
    assert first["tools"][-1]["function"]["name"] == "headroom_retrieve"
    assert second["messages"][-1] == {"role": "tool", "tool_call_id": "r1", "content": LOG}


def test_the_last_round_forbids_tools_and_a_call_after_it_never_reaches_the_caller():
    fake, ex, out = _sync([RETRIEVE, RETRIEVE, TEXT], 1, streamed=False)
    assert out == ANSWER and ex.final
    assert "tool_choice" not in fake.sent[1] and fake.sent[2]["tool_choice"] == "none"
    fake, ex, out = _sync([RETRIEVE, RETRIEVE, RETRIEVE], 1, streamed=True)
    assert out.startswith("unanswerable") and len(fake.sent) == 3
    assert fake.closed == 3  # every round's stream was closed


def test_a_stream_holds_the_retrieve_call_back_and_continues_with_the_next_round():
    _, ex, items = _sync([RETRIEVE, TEXT], 3, streamed=True)
    assert "headroom_retrieve" not in json.dumps(items)
    text = "".join(c["choices"][0]["delta"].get("content") or "" for c in items if c.get("choices"))
    assert text.strip() == "locked db" and ex.usage.output_tokens == 3 and ex.rounds == 1


def test_the_caller_stopping_closes_the_open_stream():
    c = core()
    ex = start(c, body(), "openai_chat", "optimize", copy_body=True)
    fake = SyncFake([TEXT])
    items = run_stream(c, ex, fake, fake.stream(ex.send))
    next(items)
    items.close()
    assert fake.closed == 1


def test_retrieval_is_scoped_to_the_callers_tenant():
    c = core()
    ex = start(c, body(), "openai_chat", "optimize", copy_body=True, tenant="tenant-a")
    other = c.store.store("secret of tenant b", meta={TENANT_META_KEY: "tenant-b"})

    class AsksForTheOther(SyncFake):
        def answer(self, body):
            self.sent.append(copy.deepcopy(body))
            if len(self.sent) == 1:
                turn = retrieve_turn(body)
                call = turn["choices"][0]["message"]["tool_calls"][0]
                call["function"]["arguments"] = json.dumps({"hash": other})
                return turn
            return copy.deepcopy(ANSWER)

    fake = AsksForTheOther([])
    assert run(c, ex, fake) == ANSWER
    answer = fake.sent[1]["messages"][-1]["content"]
    assert "secret" not in answer and other in answer


def test_a_compression_error_sends_the_original():
    c = core()

    def boom(*a, **k):
        raise RuntimeError("pipeline bug")

    c.pipeline.compress_body = boom
    ex = start(c, body(), "openai_chat", "optimize")
    fake = SyncFake([TEXT])
    assert run(c, ex, fake) == ANSWER
    assert fake.sent == [body()] and ex.compression_error == "RuntimeError: pipeline bug"


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(script=st.lists(st.sampled_from([RETRIEVE, TEXT]), min_size=1, max_size=5).map(lambda s: [*s, TEXT]),
       max_rounds=st.integers(0, 3), streamed=st.booleans())
def test_sync_and_async_runners_are_the_same_loop(script, max_rounds, streamed):
    s_fake, s_ex, s_out = _sync(script, max_rounds, streamed)
    a_fake, a_ex, a_out = _async(script, max_rounds, streamed)
    assert s_fake.sent == a_fake.sent and s_out == a_out
    assert (s_ex.rounds, s_ex.retrievals, s_ex.final) == (a_ex.rounds, a_ex.retrievals, a_ex.final)
    # Whatever the script, the caller never receives a headroom_retrieve call.
    assert "headroom_retrieve" not in json.dumps(s_out) or str(s_out).startswith("unanswerable")
    # At most max_rounds + 1 retrieve rounds, then one round that forbade tools.
    assert s_ex.rounds <= max_rounds + 1 and len(s_fake.sent) <= max_rounds + 2
    assert s_fake.closed == a_fake.closed == (len(s_fake.sent) if streamed else 0)


def test_drive_and_adrive_throw_a_failed_effect_into_the_loop():
    from headroom.exchange.driver import AsyncRunner, Send, SyncRunner, adrive, drive

    class Down:
        def send(self, body):
            raise ConnectionError(f"down: {body['n']}")

    class ADown:
        async def send(self, body):
            raise ConnectionError(f"down: {body['n']}")

    def loop(booked):
        try:
            yield Send({"n": 1})
        except ConnectionError as exc:
            booked.append(str(exc))
            return "booked"

    sync_booked, async_booked = [], []
    assert drive(loop(sync_booked), SyncRunner(Down())) == "booked"
    assert asyncio.run(adrive(loop(async_booked), AsyncRunner(ADown()))) == "booked"
    assert sync_booked == async_booked == ["down: 1"]

    def reraising():
        yield Send({"n": 3})

    with pytest.raises(ConnectionError, match="down: 3"):
        drive(reraising(), SyncRunner(Down()))
    with pytest.raises(ConnectionError, match="down: 3"):
        asyncio.run(adrive(reraising(), AsyncRunner(ADown())))
