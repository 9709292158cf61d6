"""HeadroomClient: the official OpenAI / Anthropic client, with compression in front.

>>> client = HeadroomClient(original_client=OpenAI(), provider=OpenAIProvider())
>>> client.chat.completions.create(model="gpt-4o", messages=msgs)   # the SDK's own response

Modes (``default_mode`` or per call ``headroom_mode=...``):

- ``optimize``: compress with the same pipeline as ``compress()``, then call.
- ``audit``: call with the request exactly as given; record what optimize would save.
- ``simulate``: compress and return a :class:`SimulationResult`; no API call.
"""

from __future__ import annotations

import inspect
from typing import Any

from ..api import default_pipeline
from ..cache import CacheOptimizer
from ..config import HeadroomConfig
from ..formats import ANTHROPIC, OPENAI_CHAT, OPENAI_RESPONSES
from ..metrics import MetricsStore
from ..modes import OPTIMIZE
from ..pipeline import Pipeline
from ..providers import Provider, provider_named
from .engine import Engine
from .resources import AsyncCreates, AsyncMessages, Chat, Creates, Messages


def _provider_of_client(client: Any) -> Provider:
    """The provider whose SDK built ``client``: Anthropic's SDK, else OpenAI's (its API is
    the one other SDK shape the wrapper serves; a model's own provider is read per call)."""
    return provider_named("anthropic" if type(client).__module__.startswith("anthropic") else "openai")


def _is_async(resource: Any) -> bool:
    # The SDKs wrap async `create` in sync decorators, so the class name is the reliable sign.
    return type(resource).__name__.startswith("Async") or inspect.iscoroutinefunction(resource.create)


class HeadroomClient:
    def __init__(
        self,
        original_client: Any,
        provider: Provider | None = None,
        default_mode: str = OPTIMIZE,
        config: HeadroomConfig | None = None,
        metrics: MetricsStore | None = None,
        *,
        pipeline: Pipeline | None = None,
        cache_optimizer: bool | CacheOptimizer = False,
    ):
        """``metrics`` defaults to an in-memory store of the last 100,000 requests;
        pass ``MetricsStore("headroom.db")`` to keep rows for ``headroom report``.
        ``cache_optimizer=True`` adds Anthropic cache breakpoints and the prefix report."""
        self._original = original_client
        self.provider = provider or _provider_of_client(original_client)
        if cache_optimizer is True:
            cache: CacheOptimizer | None = CacheOptimizer()
        else:
            cache = cache_optimizer or None
        self.engine = Engine(
            pipeline=pipeline or default_pipeline(config),
            provider=self.provider,
            default_mode=default_mode,
            metrics=metrics if metrics is not None else MetricsStore(":memory:", max_rows=100_000),
            cache=cache,
        )
        chat = getattr(original_client, "chat", None)
        if chat is not None and hasattr(chat, "completions"):
            self.chat = Chat(self._wrap(chat.completions, OPENAI_CHAT), chat)
        messages = getattr(original_client, "messages", None)
        if messages is not None and hasattr(messages, "create"):
            cls = AsyncMessages if _is_async(messages) else Messages
            self.messages = cls(self.engine, messages, ANTHROPIC)
        responses = getattr(original_client, "responses", None)
        if responses is not None and hasattr(responses, "create"):
            self.responses = self._wrap(responses, OPENAI_RESPONSES)

    def _wrap(self, target: Any, fmt: str) -> Any:
        cls = AsyncCreates if _is_async(target) else Creates
        return cls(self.engine, target, fmt)

    @property
    def original_client(self) -> Any:
        return self._original

    @property
    def metrics(self) -> MetricsStore:
        return self.engine.metrics

    @property
    def default_mode(self) -> str:
        return self.engine.default_mode

    def get_summary(self, **filters: Any) -> dict[str, Any]:
        """Tokens saved in total, by model, by mode, by transform and by tool."""
        return self.engine.metrics.summary(**filters)

    def cache_report(self) -> dict[str, list[dict[str, Any]]]:
        """Prefix stability per session (needs ``cache_optimizer=True``)."""
        if self.engine.cache is None:
            raise RuntimeError("cache_report() needs HeadroomClient(..., cache_optimizer=True)")
        return self.engine.cache.report()

    def __getattr__(self, name: str) -> Any:
        # Everything headroom does not wrap (models, files, embeddings, beta, …).
        if name.startswith("__") or name == "_original":  # copy/pickle probes before __init__
            raise AttributeError(name)
        return getattr(self._original, name)

    def __repr__(self) -> str:
        return f"HeadroomClient({type(self._original).__name__}, mode={self.default_mode!r})"
