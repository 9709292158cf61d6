"""The library's front door: ``compress()`` and ``retrieve()``."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import Any, Literal

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
    if store is not None:
        return store
    # Opened outside the registry lock: opening may touch a file or a server, and no caller
    # that holds the lock (retrieve(), default_pipeline()) may ever wait on it. Two threads
    # racing here both open; the loser's store is closed and the winner's is shared.
    opened = CompressionStore.from_config(ccr)
    with _default_lock:
        store = _stores.setdefault(key, opened)
    if store is not opened:
        opened.close()
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


class RetrievalNotFound(KeyError):
    """No live original for this hash: never stored here, evicted, or past its TTL."""

    def __init__(self, hash: str, ttl_seconds: int | None, where: str):
        super().__init__(hash)
        self.hash, self.ttl_seconds, self.where = hash, ttl_seconds, where

    def __str__(self) -> str:  # KeyError would print only the quoted hash
        kept = f"originals are kept {self.ttl_seconds} s (ccr.store_ttl_seconds / HEADROOM_CCR_TTL_SECONDS)" \
            if self.ttl_seconds else "no store was searched"
        return (f"no original for hash {self.hash!r} in {self.where}: unknown, evicted or expired; {kept}. "
                "A marker made in another process is found only in a shared store: pass config= with its "
                "SQLite path or Redis URL")


@dataclass
class QueryResult(Retrieved):
    """What ``retrieve(hash, query=...)`` returns: the matching items of the original.

    ``matches`` says how many items matched (``results`` lists them, ``content`` joins
    them with newlines). When nothing matched, ``no_match`` is True and ``content`` is
    empty, unless the call asked for the whole original instead
    (``if_no_match="original"``; then ``full`` is True as well).
    """

    query: str = ""
    no_match: bool = False


def retrieve(hash: str, query: str | None = None, *, store: CompressionStore | None = None,
             config: HeadroomConfig | None = None,
             if_no_match: Literal["empty", "original"] = "empty") -> Retrieved:
    """The original content behind a retrieval marker (or its items matching ``query``).

    Looks in ``store``, else the store of ``config``'s CCR settings, else every store
    ``compress()`` has used in this process (so a marker made under a custom config or the
    SQLite backend is found without repeating the config).

    Without ``query``: a :class:`~headroom.ccr.store.Retrieved` whose ``content`` is the
    exact original. With ``query``: a :class:`QueryResult` (``matches``, ``results``,
    ``no_match``). Raises :class:`RetrievalNotFound` (a ``KeyError``) naming the hash and
    the TTL when no store holds it.
    """
    if if_no_match not in ("empty", "original"):
        raise ValueError(f"if_no_match must be 'empty' or 'original', not {if_no_match!r}")
    if store is not None:
        stores = [store]
    elif config is not None:
        stores = [default_store(config.ccr)]
    else:
        with _default_lock:
            stores = list(_stores.values())
        stores = stores or [default_store()]  # outside the lock: default_store() takes it
    for s in stores:
        found = s.retrieve(hash, query)
        if found is not None:
            return found if not query else _query_result(found, query, if_no_match)
    ttls = sorted({s.ttl_seconds for s in stores})
    where = "the given store" if store is not None else f"{len(stores)} store(s) this process used"
    raise RetrievalNotFound(hash, ttls[-1] if ttls else None, where)


def _query_result(found: Retrieved, query: str, if_no_match: str) -> QueryResult:
    # The store answers a query that matched nothing with the whole original (what a
    # model's tool call wants); a library caller asked for matches and gets none, marked.
    no_match = found.full
    if no_match and if_no_match == "empty":
        return QueryResult(found.hash, "", False, found.tool_name, matches=0, item_count=found.item_count,
                           results=[], query=query, no_match=True)
    return QueryResult(found.hash, found.content, found.full, found.tool_name, matches=found.matches,
                       item_count=found.item_count, results=found.results if not no_match else [],
                       query=query, no_match=no_match)
