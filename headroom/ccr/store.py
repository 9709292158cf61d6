"""The CCR store: originals of every lossy compression, retrievable by hash.

Policy lives here (hashing, TTL, LRU capacity, search within an original, stats);
persistence lives in a backend (memory, SQLite, Redis).
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from ..formats.model import content_hash
from ..relevance.bm25 import BM25
from .backends import Backend, Entry, MemoryBackend, SQLiteBackend
from .file_lines import file_lines

log = logging.getLogger("headroom.ccr")


class StoreError(RuntimeError):
    """The backend failed (a read-only or deleted file, a lost Redis). Callers degrade:
    compression forwards the block unchanged, a retrieve call gets a tool error."""


def query_digest(query: str | None) -> str | None:
    """How a retrieval query is logged: a digest, never the text (it can hold user data).

    Equal queries still count as equal (feedback reads them), but the log holds no words.
    """
    if not query:
        return None
    return "sha256:" + hashlib.sha256(query.encode("utf-8", "surrogatepass")).hexdigest()[:16]


@dataclass
class Retrieved:
    hash: str
    content: str  # the exact original, or the matching items when a query was given
    full: bool  # True when ``content`` is the whole original
    tool_name: str | None
    matches: int = 0
    item_count: int = 0  # items in the whole original (as recorded when it was stored)
    results: list[str] | None = None  # the matching items, when a query matched

    def to_api(self, query: str | None = None) -> dict[str, Any]:
        """The documented retrieval answer (DESIGN §4), for the HTTP API and MCP.

        Full: ``hash, original_content, original_item_count, tool_name``; with a query:
        ``hash, query, results, count``. A query that matched nothing answers with empty
        results plus the whole original, so the caller never has to ask twice.
        """
        out: dict[str, Any] = {"hash": self.hash, "tool_name": self.tool_name, "original_item_count": self.item_count}
        if query:
            results = self.results or []
            out.update(query=query, results=results, count=len(results))
        if self.full:
            out["original_content"] = self.content
        # Older clients read these two.
        out.update(content=self.content, full=self.full)
        return out


def split_items(original: str) -> list[str]:
    """Items of an original for search: JSON array elements, else non-empty lines."""
    s = original.lstrip()
    if s.startswith("["):
        try:
            data = json.loads(original)
        except ValueError:
            data = None
        if isinstance(data, list):
            return [json.dumps(x, ensure_ascii=False) for x in data]
    return [line for line in original.splitlines() if line.strip()]


class CompressionStore:
    def __init__(
        self,
        backend: Backend | None = None,
        *,
        max_entries: int = 10_000,
        ttl_seconds: int = 1800,
        clock: Callable[[], float] = time.time,
    ):
        if max_entries < 1:
            raise ValueError("max_entries must be at least 1")
        if ttl_seconds < 1:
            raise ValueError("ttl_seconds must be at least 1")
        self.backend: Backend = backend if backend is not None else MemoryBackend()
        self.max_entries = max_entries
        self.ttl_seconds = ttl_seconds
        self.clock = clock
        self._lock = threading.Lock()
        self._stored = 0
        self._hits = 0
        self._misses = 0
        self._writes_since_sweep = 0
        # Called as fn(entry, query, retrieved, first) after every recorded retrieval, on
        # every path (proxy, MCP, library); ``first``: no earlier retrieval of this entry.
        self.retrieval_listeners: list[Callable[[Entry, str | None, Retrieved, bool], None]] = []
        # The last backend failure, until a later write succeeds (/health reads it).
        self.fault: str | None = None

    @classmethod
    def from_config(cls, ccr_config: Any) -> CompressionStore:
        """Build the store a :class:`~headroom.config.CCRConfig` describes."""
        backend: Backend
        if ccr_config.backend == "sqlite":
            backend = SQLiteBackend(ccr_config.sqlite_path)
        elif ccr_config.backend == "redis":
            from .redis_backend import RedisBackend

            backend = RedisBackend(ccr_config.redis_url, ttl_seconds=ccr_config.store_ttl_seconds)
        else:
            backend = MemoryBackend()
        return cls(backend, max_entries=ccr_config.store_max_entries, ttl_seconds=ccr_config.store_ttl_seconds)

    def store(
        self,
        original: str,
        *,
        compressed: str | None = None,
        tool_name: str | None = None,
        original_tokens: int = 0,
        compressed_tokens: int = 0,
        item_count: int = 0,
        meta: dict[str, Any] | None = None,
        known_hash: str | None = None,
    ) -> str:
        """Store ``original`` and return its hash. Storing it again refreshes the TTL.

        ``known_hash`` is ``content_hash(original)`` when the caller already computed it
        (the router keys its memo on it): large originals are then hashed once per block.
        """
        h = known_hash or content_hash(original)
        with self._guard("store"):
            self._store(h, original, compressed=compressed, tool_name=tool_name, original_tokens=original_tokens,
                        compressed_tokens=compressed_tokens, item_count=item_count, meta=meta)
        self.fault = None
        return h

    @contextmanager
    def _guard(self, what: str) -> Iterator[None]:
        """Any backend failure becomes StoreError, logged and remembered as the fault."""
        try:
            yield
        except StoreError:
            raise
        except Exception as exc:
            message = f"could not {what} the CCR store: {type(exc).__name__}: {exc}"
            log.error(message)
            self.fault = message
            raise StoreError(message) from exc

    def _store(self, h: str, original: str, *, compressed: str | None, tool_name: str | None,
               original_tokens: int, compressed_tokens: int, item_count: int, meta: dict[str, Any] | None) -> None:
        now = self.clock()
        prior = self.backend.get(h)
        entry = Entry(
            hash=h,
            original=original,
            created_at=prior.created_at if prior else now,
            expires_at=now + self.ttl_seconds,
            last_access=now,
            tool_name=tool_name or (prior.tool_name if prior else None),
            compressed=compressed,
            original_tokens=original_tokens,
            compressed_tokens=compressed_tokens,
            item_count=item_count,
            retrieval_count=prior.retrieval_count if prior else 0,
            meta=meta or {},
        )
        self.backend.put(entry)
        with self._lock:
            self._stored += 1
            self._writes_since_sweep += 1
            sweep = self._writes_since_sweep >= 256
            if sweep:
                self._writes_since_sweep = 0
        if sweep:
            self.backend.purge_expired(now)
        if sweep or self.backend.count() > self.max_entries:
            self.backend.evict_lru(self.max_entries)

    def refresh(self, original: str, *, known_hash: str | None = None, **store_kwargs: Any) -> str:
        """Restart the TTL of an original stored before, without writing it again (a
        memoised output is refreshed on every turn, and rewriting megabytes each time
        would cost more than the turn); store it when it is gone (evicted, or a process
        with a memory store restarted). Returns its hash."""
        h = known_hash or content_hash(original)
        now = self.clock()
        with self._guard("refresh"):
            extended = self.backend.extend(h, now + self.ttl_seconds, now)
        self.fault = None  # a write went through
        if extended:
            return h
        return self.store(original, known_hash=h, **store_kwargs)

    def get(self, hash: str) -> Entry | None:
        """The live entry for ``hash`` (None when unknown or expired). No side effects."""
        with self._guard("read"):
            e = self.backend.get(hash)
            if e is None:
                return None
            if e.expires_at <= self.clock():
                self.backend.delete(hash)
                return None
        return e

    def retrieve(self, hash: str, query: str | None = None, *, max_items: int = 20, record: bool = True) -> Retrieved | None:
        """The original for ``hash``; with ``query``, only the items that match it."""
        e = self.get(hash)
        with self._lock:
            if e is None:
                self._misses += 1
            else:
                self._hits += 1
        if e is None:
            return None
        now = self.clock()
        first = e.retrieval_count == 0  # read before touch(), which counts this one
        if record:
            try:
                with self._guard("count a retrieval of"):
                    self.backend.touch(hash, now)
            except StoreError:
                pass  # the original was read; a lost count must not withhold it
        found = None
        if query:
            items = self.search(hash, query, k=max_items)
            if items:
                found = Retrieved(hash, "\n".join(items), False, e.tool_name, matches=len(items),
                                  item_count=e.item_count, results=items)
        found = found or Retrieved(hash, e.original, True, e.tool_name, item_count=e.item_count)
        if record:
            for listener in self.retrieval_listeners:
                listener(e, query, found, first)
        return found

    def search(self, hash: str, query: str, k: int = 20) -> list[str]:
        """Items of the original that match ``query`` (BM25), in their original order.

        A query that is exactly a path a stored search output prints answers with every
        line of that file instead (:mod:`.file_lines`; not capped at ``k``): that is how
        the search compressor's marker tells the model to get one file's hits."""
        e = self.get(hash)
        if e is None:
            return []
        if lines := file_lines(e.original, query):
            return lines
        items = split_items(e.original)
        if not items:
            return []
        scores = BM25(items).scores(query)
        top = max(scores, default=0.0)
        if top <= 0:
            return []
        # Weak partial matches (a shared word like "user") would bury the real hit.
        best = sorted((i for i, s in enumerate(scores) if s >= 0.5 * top), key=lambda i: (-scores[i], i))[:k]
        return [items[i] for i in sorted(best)]

    def problem(self) -> str | None:
        """Why this store is degraded (its last failure, or a file gone or unwritable), or None."""
        try:
            return self.backend.problem() or self.fault
        except Exception as exc:  # noqa: BLE001 - a health probe reports, it does not raise
            return f"{type(exc).__name__}: {exc}"

    def stats(self) -> dict[str, Any]:
        try:
            entries: int | None = self.backend.count()
        except Exception as exc:  # noqa: BLE001 - stats report a broken backend, they do not raise
            entries = None
            self.fault = f"count failed: {type(exc).__name__}: {exc}"
        with self._lock:
            return {
                "backend": type(self.backend).__name__,
                "entries": entries,
                "problem": self.problem(),
                "max_entries": self.max_entries,
                "ttl_seconds": self.ttl_seconds,
                "stored": self._stored,
                "retrieve_hits": self._hits,
                "retrieve_misses": self._misses,
            }

    def close(self) -> None:
        self.backend.close()

