"""The library's front door: ``compress()`` and ``retrieve()``."""

from __future__ import annotations

import threading
from typing import Any

from .ccr.store import CompressionStore, Retrieved
from .config import HeadroomConfig
from .pipeline import Pipeline, PipelineResult

CompressResult = PipelineResult

_default_lock = threading.Lock()
_default_store: CompressionStore | None = None
_pipelines: dict[str, Pipeline] = {}


def default_store() -> CompressionStore:
    """The process-wide in-memory store ``compress()`` uses unless given another."""
    global _default_store
    with _default_lock:
        if _default_store is None:
            cfg = HeadroomConfig().ccr
            _default_store = CompressionStore(max_entries=cfg.store_max_entries, ttl_seconds=cfg.store_ttl_seconds)
        return _default_store


def default_pipeline(config: HeadroomConfig | None = None) -> Pipeline:
    """One pipeline per config, so its memo keeps repeated history byte-stable."""
    config = config or HeadroomConfig()
    key = config.fingerprint()
    with _default_lock:
        p = _pipelines.get(key)
    if p is None:
        store = default_store() if config.ccr.enabled and config.ccr.backend == "memory" else None
        p = Pipeline(config, store=store)
        with _default_lock:
            p = _pipelines.setdefault(key, p)
    return p


def compress(
    messages: list[dict[str, Any]] | dict[str, Any],
    model: str = "gpt-4o",
    *,
    config: HeadroomConfig | None = None,
    format: str | None = None,
    system: Any = None,
    query: str | None = None,
    pipeline: Pipeline | None = None,
) -> CompressResult:
    """Compress a conversation.

    ``messages`` is an OpenAI chat or Anthropic message list, or a whole request body
    (Chat Completions, Responses or Messages). The format is detected unless given.
    ``system`` is the Anthropic top-level system prompt when passing a message list.
    Returns a :class:`CompressResult` with ``messages`` in the same format.
    """
    if isinstance(messages, dict):
        # Never mutate the caller's body: render() returns a new dict anyway.
        body = messages if "model" in messages else {**messages, "model": model}
    elif isinstance(messages, list):
        body = {"model": model, "messages": messages}
        if system is not None:
            body["system"] = system
    else:
        raise TypeError(f"compress() takes a list of messages or a request body dict, not {type(messages).__name__}")
    p = pipeline or default_pipeline(config)
    return p.compress_body(body, format, model=model, query=query)


def retrieve(hash: str, query: str | None = None, *, store: CompressionStore | None = None) -> Retrieved | None:
    """The original content behind a retrieval marker (or its items matching ``query``)."""
    return (store or default_store()).retrieve(hash, query)
