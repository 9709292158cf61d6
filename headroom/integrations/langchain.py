"""LangChain: a chat model that compresses its input, then delegates to any chat model.

>>> from langchain_openai import ChatOpenAI
>>> llm = HeadroomChatModel(inner=ChatOpenAI(model="gpt-4o"))
>>> llm.invoke(messages)            # tool outputs compressed; same AIMessage back

Messages are converted to OpenAI chat form (``convert_to_openai_messages``), compressed
with the same pipeline as ``compress()``, and only the contents that changed are written
back into copies of the original LangChain messages (ids, names and metadata survive).
Give the model :func:`retrieve_tool` so it can ask for compressed originals back.

Requires ``langchain-core``; this module imports it, ``headroom.integrations`` does not.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Iterator
from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage, convert_to_messages, convert_to_openai_messages
from langchain_core.outputs import ChatGenerationChunk, ChatResult
from pydantic import ConfigDict, Field

from ..metrics import RequestMetrics
from ..pipeline import Pipeline


class HeadroomChatModel(BaseChatModel):
    inner: BaseChatModel
    model_name: str = "gpt-4o"  # used for token counting and metrics when the inner model has none
    pipeline: Any = Field(default=None, exclude=True)
    metrics: Any = Field(default=None, exclude=True)
    model_config = ConfigDict(arbitrary_types_allowed=True)

    @property
    def _llm_type(self) -> str:
        return f"headroom-{self.inner._llm_type}"

    def _pipeline(self) -> Pipeline:
        if self.pipeline is None:
            from ..api import default_pipeline

            self.pipeline = default_pipeline()
        return self.pipeline

    def _model(self) -> str:
        return getattr(self.inner, "model_name", None) or getattr(self.inner, "model", None) or self.model_name

    def compress_messages(self, messages: list[BaseMessage]) -> list[BaseMessage]:
        """``messages`` with compressed contents, as LangChain messages."""
        model = str(self._model())
        as_dicts = convert_to_openai_messages(messages)
        result = self._pipeline().compress_body({"model": model, "messages": as_dicts}, "openai_chat", model=model)
        if self.metrics is not None:
            self.metrics.record(RequestMetrics.from_pipeline(result, provider="langchain", model=model))
        compressed = result.body["messages"]
        if len(compressed) != len(messages):  # a context-budget stage dropped messages
            return convert_to_messages(compressed)
        out = []
        for original, before, after in zip(messages, as_dicts, compressed):
            changed = before.get("content") != after.get("content") and isinstance(after.get("content"), str)
            out.append(original.model_copy(update={"content": after["content"]}) if changed else original)
        return out

    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None,
                  run_manager: CallbackManagerForLLMRun | None = None, **kwargs: Any) -> ChatResult:
        return self.inner._generate(self.compress_messages(messages), stop=stop,
                                    run_manager=run_manager, **kwargs)

    async def _agenerate(self, messages: list[BaseMessage], stop: list[str] | None = None,
                         run_manager: AsyncCallbackManagerForLLMRun | None = None, **kwargs: Any) -> ChatResult:
        return await self.inner._agenerate(self.compress_messages(messages), stop=stop,
                                           run_manager=run_manager, **kwargs)

    def _stream(self, messages: list[BaseMessage], stop: list[str] | None = None,
                run_manager: CallbackManagerForLLMRun | None = None, **kwargs: Any) -> Iterator[ChatGenerationChunk]:
        yield from self.inner._stream(self.compress_messages(messages), stop=stop, run_manager=run_manager, **kwargs)

    async def _astream(self, messages: list[BaseMessage], stop: list[str] | None = None,
                       run_manager: AsyncCallbackManagerForLLMRun | None = None,
                       **kwargs: Any) -> AsyncIterator[ChatGenerationChunk]:
        async for chunk in self.inner._astream(self.compress_messages(messages), stop=stop,
                                               run_manager=run_manager, **kwargs):
            yield chunk

    def bind_tools(self, tools: Any, **kwargs: Any) -> Any:
        # Tool binding is the inner model's business; wrap the bound model again.
        bound = self.inner.bind_tools(tools, **kwargs)
        return HeadroomChatModel(inner=bound.bound, model_name=self.model_name, pipeline=self.pipeline,
                                 metrics=self.metrics).bind(**bound.kwargs)


def retrieve_tool(store: Any = None) -> Any:
    """``headroom_retrieve`` as a LangChain tool, answering from the CCR store."""
    from langchain_core.tools import StructuredTool

    from ..api import RetrievalNotFound, retrieve
    from ..ccr.tool import TOOL_DESCRIPTION

    def headroom_retrieve(hash: str, query: str | None = None) -> str:
        try:
            # A model asking with a query that matches nothing is better served by the
            # whole original than by an empty answer it would have to ask again for.
            return retrieve(hash, query, store=store, if_no_match="original").content
        except RetrievalNotFound:
            return f"headroom_retrieve: unknown or expired hash={hash}."

    return StructuredTool.from_function(headroom_retrieve, name="headroom_retrieve", description=TOOL_DESCRIPTION)


__all__ = ["HeadroomChatModel", "retrieve_tool"]
