"""LangChain wrapper (real langchain-core base classes, its fake chat model) and the
LiteLLM callback (driven through LiteLLM's documented hook signatures)."""

from __future__ import annotations

import asyncio
from datetime import datetime, timedelta
from types import SimpleNamespace
from typing import Any, ClassVar

import pytest
from tests.client.conftest import big_tool_output

from headroom.ccr.markers import find_hashes
from headroom.metrics import MetricsStore

lc = pytest.importorskip("langchain_core", reason="langchain-core is not installed")
from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
from langchain_core.messages import AIMessage, HumanMessage, ToolMessage

from headroom.integrations.langchain import HeadroomChatModel, retrieve_tool
from headroom.integrations.litellm import HeadroomLiteLLMCallback


class RecordingFake(GenericFakeChatModel):
    """LangChain's own fake chat model, remembering what it was sent."""

    seen: ClassVar[list] = []
    bound_kwargs: ClassVar[list] = []

    def _generate(self, messages, stop=None, run_manager=None, **kwargs):
        self.seen.append(messages)
        self.bound_kwargs.append(kwargs)
        return super()._generate(messages, stop=stop, run_manager=run_manager, **kwargs)

    def bind_tools(self, tools, **kwargs):
        return self.bind(tools=[t.name for t in tools], **kwargs)


def _conversation():
    return [
        HumanMessage("find the errors", id="h1"),
        AIMessage("", id="a1", tool_calls=[{"id": "call_1", "name": "search", "args": {"q": "error"}}]),
        ToolMessage(big_tool_output(seed="lc"), tool_call_id="call_1", id="t1"),
    ]


@pytest.fixture
def fake_model():
    RecordingFake.seen = []
    RecordingFake.bound_kwargs = []
    return RecordingFake(messages=iter([AIMessage("fine"), AIMessage("streamed reply"), AIMessage("async")]))


def test_langchain_wrapper_compresses_tool_messages_and_keeps_ids(fake_model):
    metrics = MetricsStore(":memory:")
    llm = HeadroomChatModel(inner=fake_model, metrics=metrics)
    convo = _conversation()
    out = llm.invoke(convo)
    assert out.content == "fine"
    (sent,) = RecordingFake.seen
    assert [type(m) for m in sent] == [HumanMessage, AIMessage, ToolMessage]
    assert sent[0] is convo[0] and sent[1] is convo[1]  # untouched messages go through as they were
    assert sent[2].tool_call_id == "call_1" and sent[2].id == "t1"
    hashes = find_hashes(sent[2].content)
    assert hashes and len(sent[2].content) < len(convo[2].content) / 3
    assert convo[2].content == big_tool_output(seed="lc")  # caller's message not mutated
    (row,) = metrics.query()
    assert row.provider == "langchain" and row.tokens_saved > 0 and row.ccr_hashes == hashes
    # the model can get the original back through the LangChain tool
    tool = retrieve_tool()
    assert tool.name == "headroom_retrieve"
    assert tool.invoke({"hash": hashes[0]}) == convo[2].content
    assert "unknown or expired" in tool.invoke({"hash": "0" * 24})


def test_langchain_stream_async_and_bound_tools(fake_model):
    llm = HeadroomChatModel(inner=fake_model)
    llm.invoke(_conversation())
    text = "".join(c.content for c in llm.stream(_conversation()))
    assert text == "streamed reply"
    assert asyncio.run(llm.ainvoke(_conversation())).content == "async"
    assert all(find_hashes(seen[-1].content) for seen in RecordingFake.seen)
    bound = llm.bind_tools([retrieve_tool()])
    fake_model.messages = iter([AIMessage("with tools")])
    assert bound.invoke(_conversation()).content == "with tools"
    assert RecordingFake.bound_kwargs[-1]["tools"] == ["headroom_retrieve"]
    assert find_hashes(RecordingFake.seen[-1][-1].content)


def _openai_messages():
    return [
        {"role": "user", "content": "find the errors"},
        {"role": "assistant", "content": None, "tool_calls": [
            {"id": "c1", "type": "function", "function": {"name": "search", "arguments": "{}"}}]},
        {"role": "tool", "tool_call_id": "c1", "content": big_tool_output(seed="ll")},
    ]


def test_litellm_pre_call_hook_and_success_logging():
    cb = HeadroomLiteLLMCallback(metrics=MetricsStore(":memory:"))
    data: dict[str, Any] = {"model": "openai/gpt-4o", "messages": _openai_messages(), "litellm_call_id": "abc"}
    new = asyncio.run(cb.async_pre_call_hook(None, None, data, "acompletion"))
    assert find_hashes(new["messages"][-1]["content"])
    assert data["messages"][-1]["content"] == big_tool_output(seed="ll")  # input not mutated
    assert cb.metrics.count() == 0  # recorded once the call finishes
    t0 = datetime(2026, 1, 1)
    response = SimpleNamespace(usage={"prompt_tokens": 900, "completion_tokens": 12,
                                      "prompt_tokens_details": {"cached_tokens": 256}})
    asyncio.run(cb.async_log_success_event({"litellm_call_id": "abc"}, response, t0, t0 + timedelta(milliseconds=250)))
    (row,) = cb.metrics.query()
    assert row.model == "openai/gpt-4o" and row.tokens_saved > 0
    assert (row.cached_tokens, row.output_tokens, row.latency_ms, row.status_code) == (256, 12, 250.0, 200)
    # other call types pass through untouched; unknown call ids are ignored
    emb = {"model": "text-embedding-3-small", "input": ["x"]}
    assert asyncio.run(cb.async_pre_call_hook(None, None, emb, "aembedding")) is emb
    cb.log_success_event({"litellm_call_id": "nope"}, response, t0, t0)
    assert cb.metrics.count() == 1


def test_litellm_failure_and_sdk_use_and_audit():
    cb = HeadroomLiteLLMCallback()
    data = {"model": "gpt-4o", "messages": _openai_messages(), "litellm_call_id": "x1"}
    asyncio.run(cb.async_pre_call_hook(None, None, data, "completion"))
    t0 = datetime(2026, 1, 1)
    cb.log_failure_event({"litellm_call_id": "x1", "exception": "RateLimitError"}, None, t0, t0)
    assert cb.metrics.query()[0].error == "RateLimitError"
    msgs = cb.compress("gpt-4o", _openai_messages())  # SDK use: recorded at once
    assert find_hashes(msgs[-1]["content"]) and cb.metrics.count() == 2
    audit = HeadroomLiteLLMCallback(mode="audit")
    assert audit.compress("gpt-4o", _openai_messages()) == _openai_messages()
    assert audit.metrics.query()[0].tokens_saved > 0
    with pytest.raises(ValueError):
        HeadroomLiteLLMCallback(mode="simulate")


def test_langchain_compression_error_sends_the_original_messages(fake_model):
    from headroom.config import HeadroomConfig
    from headroom.pipeline import Pipeline

    pipeline = Pipeline(HeadroomConfig())  # its own: the shared default pipeline stays whole

    def broken(*args, **kwargs):
        raise ValueError("a pipeline bug")

    pipeline.compress_body = broken
    metrics = MetricsStore(":memory:")
    llm = HeadroomChatModel(inner=fake_model, pipeline=pipeline, metrics=metrics)
    convo = _conversation()
    assert llm.invoke(convo).content == "fine"  # the error never reaches the caller
    (sent,) = RecordingFake.seen
    assert all(s is c for s, c in zip(sent, convo)) and len(sent) == len(convo)
    (row,) = metrics.query()
    assert row.error == "compression: ValueError: a pipeline bug" and row.tokens_saved == 0
