"""The library's front door: ``compress()`` and ``retrieve()``."""

from __future__ import annotations

import threading
from typing import Any

from .ccr.store import CompressionStore, Retrieved
from .config import CCRConfig, HeadroomConfig
from .pipeline import Pipeline, PipelineResult

CompressResult = PipelineResult

DEFAULT_MODEL = "gpt-4o"  # for a bare message list that names no model

_default_lock = threading.Lock()
# One store per CCR section (backend, path, TTL, capacity): a caller's config is honoured,
# and every pipeline with the same CCR settings shares one store.
_stores: dict[str, CompressionStore] = {}
_pipelines: dict[str, Pipeline] = {}


def default_store(ccr: CCRConfig | None = None) -> CompressionStore:
    """The process-wide store ``compress()`` uses for these CCR settings (default: defaults)."""
    ccr = ccr or HeadroomConfig().ccr
    key = ccr.model_dump_json()
    with _default_lock:
        store = _stores.get(key)
        if store is None:
            store = _stores[key] = CompressionStore.from_config(ccr)
        return store


def default_pipeline(config: HeadroomConfig | None = None) -> Pipeline:
    """One pipeline per config, so its memo keeps repeated history byte-stable."""
    config = config or HeadroomConfig()
    key = config.fingerprint()
    with _default_lock:
        p = _pipelines.get(key)
    if p is None:
        store = default_store(config.ccr) if config.ccr.enabled else None
        p = Pipeline(config, store=store)
        with _default_lock:
            p = _pipelines.setdefault(key, p)
    return p


def compress(
    messages: list[dict[str, Any]] | dict[str, Any],
    model: str | None = None,
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
    ``model`` (tokenizer and context window) defaults to the body's own ``model``, then
    to gpt-4o. Returns a :class:`CompressResult` with ``messages`` in the same format.
    """
    if isinstance(messages, dict):
        model = model or messages.get("model") or DEFAULT_MODEL
        # Never mutate the caller's body: render() returns a new dict anyway.
        body = messages if "model" in messages else {**messages, "model": model}
    elif isinstance(messages, list):
        model = model or DEFAULT_MODEL
        body = {"model": model, "messages": messages}
        if system is not None:
            body["system"] = system
    else:
        raise TypeError(f"compress() takes a list of messages or a request body dict, not {type(messages).__name__}")
    p = pipeline or default_pipeline(config)
    return p.compress_body(body, format, model=model, query=query)


def retrieve(hash: str, query: str | None = None, *, store: CompressionStore | None = None,
             config: HeadroomConfig | None = None) -> Retrieved | None:
    """The original content behind a retrieval marker (or its items matching ``query``).

    Looks in ``store``, else the store of ``config``'s CCR settings, else every store
    ``compress()`` has used in this process (so a marker made under a custom config or the
    SQLite backend is found without repeating the config).
    """
    if store is not None:
        return store.retrieve(hash, query)
    if config is not None:
        return default_store(config.ccr).retrieve(hash, query)
    with _default_lock:
        stores = list(_stores.values()) or None
    for s in stores or [default_store()]:
        found = s.retrieve(hash, query)
        if found is not None:
            return found
    return None
