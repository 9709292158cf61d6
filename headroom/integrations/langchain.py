"""LangChain: a chat model that compresses its input, then delegates to any chat model.

>>> from langchain_openai import ChatOpenAI
>>> llm = HeadroomChatModel(inner=ChatOpenAI(model="gpt-4o"))
>>> llm.invoke(messages)            # tool outputs compressed; same AIMessage back

Messages are converted to OpenAI chat form (``convert_to_openai_messages``) and go
through headroom's exchange loop (:mod:`headroom.exchange`): compressed with the same
pipeline as ``compress()`` (a compression error sends the original messages), then sent
by the inner model, the loop's transport here. Only the contents that changed are written
back into copies of the original LangChain messages (ids, names and metadata survive).
Give the model :func:`retrieve_tool` so it can ask for compressed originals back: its
calls are the caller's (LangChain runs the tool), so the loop never answers them itself.

Requires ``langchain-core``; this module imports it, ``headroom.integrations`` does not.
"""

from __future__ import annotations

import functools
from collections.abc import AsyncIterator, Iterator
from typing import Any

from langchain_core.callbacks import AsyncCallbackManagerForLLMRun, CallbackManagerForLLMRun
from langchain_core.language_models import BaseChatModel
from langchain_core.messages import BaseMessage, convert_to_messages, convert_to_openai_messages
from langchain_core.outputs import ChatGenerationChunk, ChatResult
from pydantic import ConfigDict, Field

from ..exchange import Exchange, ExchangeCore, arun, run, start
from ..formats import OPENAI_CHAT
from ..modes import OPTIMIZE
from ..pipeline import Pipeline


class _Inner:
    """The inner chat model as the exchange loop's transport: a round is one call of
    ``generate`` on the round's messages, the caller's own objects where unchanged."""

    def __init__(self, generate: Any, originals: list[BaseMessage], as_dicts: list[dict[str, Any]]):
        self.generate = generate
        self.originals = originals
        self.as_dicts = as_dicts

    def messages(self, body: dict[str, Any]) -> list[BaseMessage]:
        sent = body["messages"]
        if len(sent) != len(self.originals):  # a context-budget stage dropped messages
            return convert_to_messages(sent)
        out = []
        for original, before, after in zip(self.originals, self.as_dicts, sent):
            changed = before.get("content") != after.get("content") and isinstance(after.get("content"), str)
            out.append(original.model_copy(update={"content": after["content"]}) if changed else original)
        return out

    def send(self, body: dict[str, Any]) -> Any:
        return self.generate(self.messages(body))

    def turn(self, reply: Any) -> None:
        return None  # a headroom_retrieve call here is the caller's: LangChain runs retrieve_tool


class _AsyncInner(_Inner):
    async def send(self, body: dict[str, Any]) -> Any:
        return await self.generate(self.messages(body))


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

    def _open(self, messages: list[BaseMessage], generate: Any, transport: type[_Inner] = _Inner,
              ) -> tuple[ExchangeCore, Exchange, _Inner]:
        """The exchange for ``messages`` (compressed, or the originals when compression
        failed), its row recorded, and the transport that sends it with ``generate``."""
        model = str(self._model())
        as_dicts = convert_to_openai_messages(messages)
        core = ExchangeCore(self._pipeline())
        ex = start(core, {"model": model, "messages": as_dicts}, OPENAI_CHAT, OPTIMIZE, model=model)
        if self.metrics is not None:
            self.metrics.record(core.finish(ex, status_code=None, stream=False, provider="langchain"))
        return core, ex, transport(generate, messages, as_dicts)

    def compress_messages(self, messages: list[BaseMessage]) -> list[BaseMessage]:
        """``messages`` with compressed contents, as LangChain messages."""
        _, ex, inner = self._open(messages, None)
        return inner.messages(ex.send)

    def _generate(self, messages: list[BaseMessage], stop: list[str] | None = None,
                  run_manager: CallbackManagerForLLMRun | None = None, **kwargs: Any) -> ChatResult:
        generate = functools.partial(self.inner._generate, stop=stop, run_manager=run_manager, **kwargs)
        return run(*self._open(messages, generate))

    async def _agenerate(self, messages: list[BaseMessage], stop: list[str] | None = None,
                         run_manager: AsyncCallbackManagerForLLMRun | None = None, **kwargs: Any) -> ChatResult:
        generate = functools.partial(self.inner._agenerate, stop=stop, run_manager=run_manager, **kwargs)
        return await arun(*self._open(messages, generate, _AsyncInner))

    # Streams: no round follows a turn of the caller's, so the inner stream is the answer.
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
