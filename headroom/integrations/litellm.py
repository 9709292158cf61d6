"""LiteLLM: a callback that compresses requests and records metrics.

LiteLLM proxy (``config.yaml``: ``litellm_settings: callbacks: my_module.headroom_callback``)
calls ``async_pre_call_hook`` before every request; returning the modified ``data``
sends the compressed messages. The logging hooks (``log_success_event``,
``async_log_success_event`` and the failure twins) record one metrics row per request
with the provider's usage. With the LiteLLM SDK, call :meth:`compress` yourself:
``litellm.completion(model=m, messages=cb.compress(m, messages))``.

The class follows LiteLLM's documented ``CustomLogger`` interface and subclasses it when
``litellm`` is installed; headroom does not require it.
"""

from __future__ import annotations

import threading
from typing import Any

from ..exchange import Exchange, ExchangeCore, start
from ..formats import OPENAI_CHAT, openai_chat
from ..metrics import MetricsStore
from ..modes import AUDIT, OPTIMIZE
from ..pipeline import Pipeline

try:  # subclass the real base when present, so LiteLLM's isinstance checks pass
    from litellm.integrations.custom_logger import CustomLogger as _Base
except ImportError:  # pragma: no cover - depends on the environment
    _Base = object

_COMPLETION_CALLS = {"completion", "acompletion", "text_completion", "atext_completion"}


class HeadroomLiteLLMCallback(_Base):  # type: ignore[misc,valid-type]
    def __init__(self, pipeline: Pipeline | None = None, metrics: MetricsStore | None = None,
                 mode: str = OPTIMIZE):
        if mode not in (OPTIMIZE, AUDIT):
            raise ValueError(f"mode must be {OPTIMIZE!r} or {AUDIT!r}")
        self.pipeline = pipeline
        self.metrics = metrics if metrics is not None else MetricsStore(":memory:")
        self.mode = mode
        self._core: ExchangeCore | None = None
        self._pending: dict[str, tuple[Exchange, str]] = {}
        self._lock = threading.Lock()

    def core(self) -> ExchangeCore:
        if self._core is None:
            if self.pipeline is None:
                from ..api import default_pipeline

                self.pipeline = default_pipeline()
            self._core = ExchangeCore(self.pipeline)
        return self._core

    def compress(self, model: str, messages: list[dict[str, Any]], call_id: str | None = None) -> list[dict[str, Any]]:
        """Compressed messages (OpenAI chat form, which LiteLLM takes for every provider)."""
        name = model.split("/")[-1]
        body = {"model": name, "messages": messages}
        core = self.core()
        # The exchange loop's opening (a compression error sends the original messages);
        # LiteLLM sends the request itself, so the loop's rounds are not ours to run here.
        ex = start(core, body, OPENAI_CHAT, self.mode, model=name)
        if call_id:
            with self._lock:
                self._pending[call_id] = (ex, model)
        else:
            self.metrics.record(core.finish(ex, status_code=None, stream=False, provider="litellm", model=model))
        return ex.result.body["messages"] if ex.compressed else messages

    # -- LiteLLM proxy hook ---------------------------------------------------------------

    async def async_pre_call_hook(self, user_api_key_dict: Any, cache: Any, data: dict[str, Any],
                                  call_type: str) -> dict[str, Any]:
        if call_type not in _COMPLETION_CALLS or not isinstance(data.get("messages"), list):
            return data
        call_id = data.get("litellm_call_id")
        return {**data, "messages": self.compress(str(data.get("model") or ""), data["messages"], call_id)}

    # -- logging hooks --------------------------------------------------------------------

    def log_success_event(self, kwargs: dict[str, Any], response_obj: Any, start_time: Any, end_time: Any) -> None:
        self._finish(kwargs, response_obj, start_time, end_time, None)

    def log_failure_event(self, kwargs: dict[str, Any], response_obj: Any, start_time: Any, end_time: Any) -> None:
        self._finish(kwargs, response_obj, start_time, end_time, kwargs.get("exception") or "failed")

    async def async_log_success_event(self, kwargs: dict[str, Any], response_obj: Any, start_time: Any,
                                      end_time: Any) -> None:
        self._finish(kwargs, response_obj, start_time, end_time, None)

    async def async_log_failure_event(self, kwargs: dict[str, Any], response_obj: Any, start_time: Any,
                                      end_time: Any) -> None:
        self._finish(kwargs, response_obj, start_time, end_time, kwargs.get("exception") or "failed")

    def _finish(self, kwargs: dict[str, Any], response: Any, start: Any, end: Any, error: Any) -> None:
        call_id = kwargs.get("litellm_call_id")
        with self._lock:
            pending = self._pending.pop(call_id, None) if call_id else None
        if pending is None:
            return  # not a request we compressed
        ex, model = pending
        # LiteLLM answers in the Chat Completions shape for every provider.
        ex.usage = openai_chat.usage(response)
        latency = (end - start).total_seconds() * 1000 if hasattr(end - start, "total_seconds") else 0.0
        self.metrics.record(self.core().finish(
            ex, status_code=None if error else 200, stream=bool(kwargs.get("stream")),
            error=None if error is None else str(error), provider="litellm", model=model,
            latency_ms=round(latency, 3)))
