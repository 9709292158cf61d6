"""``Toin``: observe compressions, retrievals and questions; answer hints.

One object per process (the pipeline owns it). Observations become counter increments
buffered in memory and written to the backend in one atomic batch every
``flush_seconds``; patterns are read back and cached for ``refresh_seconds``, so
replicas sharing a backend learn from each other at that pace and a request never
waits on storage beyond one batched write a second.
"""

from __future__ import annotations

import functools
import json
import logging
import re
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from .backends import Deltas, ToinBackend
from .patterns import Pattern, ToinHints, build_pattern, hints_for
from .signature import Profile, profile

_WORD = re.compile(r"[a-z0-9][a-z0-9_.\-]*")
_PARTS = re.compile(r"[a-z0-9]+")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
EXPORT_FORMAT = "headroom-toin/1"
log = logging.getLogger("headroom.toin")


def query_words(text: str) -> set[str]:
    words = set(_WORD.findall(text.lower()))
    return words | {p for w in words for p in _PARTS.findall(w)}


@functools.lru_cache(maxsize=4096)  # field names repeat on every call of a tool
def _name_forms(name: str) -> tuple[str, str, tuple[str, ...]]:
    low = _CAMEL.sub("_", name).lower()
    return low, name.lower(), tuple(p for p in _PARTS.findall(low) if len(p) >= 3 and p not in ("the", "and", "for"))


def names_field(name: str, words: set[str]) -> bool:
    """Does a question (its lowercased words) name the field ``name``?

    By the whole name (``latency_ms``) or by every part of three letters or more
    (``latency`` for ``latency_ms``, ``created at`` for ``createdAt``)."""
    low, lower, parts = _name_forms(name)
    if low in words or lower in words:
        return True
    return bool(parts) and all(p in words for p in parts)


def fields_named(prof: Profile, text: str) -> tuple[set[str], set[str]]:
    """Field hashes a question names (by name or by a sampled value), and those named by
    one of their rare values."""
    words = query_words(text)
    named, rare = set(), set()
    for f in prof.fields.values():
        by_value = f.values_lower & words
        if names_field(f.name, words) or by_value:
            named.add(f.hash)
        if f.rare_values & words:
            rare.add(f.hash)
    return named, rare


class Toin:
    def __init__(self, backend: ToinBackend, config: Any, *, max_budget: int = 60,
                 clock: Callable[[], float] = time.monotonic, max_tracked: int = 20_000):
        self.backend = backend
        self.config = config  # a ToinConfig
        self.max_budget = max_budget
        self.clock = clock
        self._key: bytes | None = None
        self._lock = threading.Lock()
        self._deltas: Deltas = {}
        self._meta: dict[str, dict[str, str]] = {}
        self._last_flush = clock()
        # Batches handed to the writer thread and not yet committed. Reads add them (and
        # the buffer) to what the backend holds, under ``_io``, which a commit also
        # holds: a process always sees all of its own observations, however slow the
        # disk or Redis, and a request never waits for a write.
        self._inflight: list[tuple[Deltas, dict[str, dict[str, str]]]] = []
        self._io = threading.Lock()
        self._writer = ThreadPoolExecutor(1, thread_name_prefix="headroom-toin")
        self._patterns: dict[str, tuple[float, Pattern]] = {}
        # CCR hash -> (profile, strategy): what was compressed here, for attributing
        # later questions and retrievals. In memory only (profiles hold sample values).
        self._outputs: OrderedDict[str, tuple[Profile, str]] = OrderedDict()
        self._asked: OrderedDict[tuple[str, int], None] = OrderedDict()
        self._whole: OrderedDict[str, None] = OrderedDict()
        self._described: OrderedDict[tuple[str, str], None] = OrderedDict()
        self._max_tracked = max_tracked

    @property
    def store_id(self) -> tuple:
        """Where the counters live: equal for two learners writing the same place."""
        b = self.backend
        if hasattr(b, "path"):
            return ("sqlite", str(b.path))
        if hasattr(b, "prefix"):
            return ("redis", repr(b._r.connection_pool), b.prefix)
        return ("memory", id(b))

    # -- signatures and hints -------------------------------------------------------

    @property
    def key(self) -> bytes:
        if self._key is None:
            self._key = self.backend.key()
        return self._key

    def profile(self, parsed: Any, kind: str, tool_name: str | None) -> Profile:
        return profile(self.key, parsed, kind, tool_name)

    def pattern(self, signature: str, *, fresh: bool = False) -> Pattern:
        """The learned pattern, from a cache re-read every ``refresh_seconds``.

        Re-read inline (one indexed read of one signature's counters, about a tenth of
        a millisecond on SQLite) rather than in a background thread: then what a request
        sees depends only on the clock, and a replay with a scripted clock is exact."""
        now = self.clock()
        with self._lock:
            hit = self._patterns.get(signature)
        if hit is not None and not fresh and now - hit[0] < self.config.refresh_seconds:
            return hit[1]
        with self._io:
            counts, meta = self.backend.counts(signature), self.backend.meta(signature)
            with self._lock:
                for d, m in [*self._inflight, (self._deltas, self._meta)]:
                    for k, n in d.get(signature, {}).items():
                        counts[k] = counts.get(k, 0) + n
                    meta.update(m.get(signature, {}))
        p = build_pattern(signature, counts, meta, self.config.min_observations)
        with self._lock:
            self._patterns[signature] = (now, p)
        return p

    def hints(self, prof: Profile) -> ToinHints | None:
        """Hints for an output with this profile; None when nothing is confident yet."""
        p = self.pattern(prof.signature)
        return hints_for(p, {f.hash: f.name for f in prof.fields.values()}, self.config, self.max_budget)

    # -- observations ---------------------------------------------------------------

    def _add(self, sig: str, counts: Iterable[tuple[str, int]]) -> None:
        with self._lock:
            row = self._deltas.setdefault(sig, {})
            for k, n in counts:
                row[k] = row.get(k, 0) + n
            due = self.clock() - self._last_flush >= self.config.flush_seconds
        if due:
            self.flush(wait=False)

    def _remember(self, od: OrderedDict, key: Any, value: Any = None) -> bool:
        """Add ``key``; False when it was there already. Bounded (oldest forgotten)."""
        with self._lock:
            if key in od:
                od.move_to_end(key)
                return False
            od[key] = value
            while len(od) > self._max_tracked:
                od.popitem(last=False)
            return True

    def observe_compression(self, prof: Profile, *, strategy: str | None, items_before: int, items_after: int,
                            lossy: bool, ccr_hash: str | None, query: str = "", steered: bool = False) -> None:
        counts: list[tuple[str, int]] = [("seen", 1)]
        for f in prof.fields.values():
            counts.append((f"f:{f.hash}:m:{f.semantic}", 1))
        if lossy and ccr_hash:
            counts += [("compressed", 1), ("items_in", items_before), ("items_kept", items_after),
                       (f"s:{strategy or '?'}:c", 1)]
            if not steered:  # the budget grows from what the compressor keeps on its own
                counts += [("plain", 1), ("plain_kept", items_after)]
            self._remember(self._outputs, ccr_hash, (prof, strategy or "?"))
            if query:
                counts += self._question_counts(ccr_hash, prof, query)
        # The text fields change rarely: written once per signature and tool per process.
        if self._remember(self._described, (prof.signature, prof.tool_name)):
            meta = {"kind": prof.kind, "tool": prof.tool_name}
            if prof.fields:
                meta["fields"] = json.dumps(sorted((f.hash, f.type) for f in prof.fields.values()))
            with self._lock:
                self._meta.setdefault(prof.signature, {}).update(meta)
        self._add(prof.signature, counts)

    def _question_counts(self, ccr_hash: str, prof: Profile, question: str) -> list[tuple[str, int]]:
        # The same question over the same output counts once (the router sees it every turn).
        if not self._remember(self._asked, (ccr_hash, hash(question))):
            return []
        named, rare = fields_named(prof, question)
        return [(f"f:{h}:u", 1) for h in named] + [(f"f:{h}:rare", 1) for h in rare]

    def observe_question(self, ccr_hash: str, question: str) -> None:
        """A later turn's question over an output compressed earlier (a memo hit)."""
        if not question:
            return
        with self._lock:
            known = self._outputs.get(ccr_hash)
        if known is not None:
            counts = self._question_counts(ccr_hash, known[0], question)
            if counts:
                self._add(known[0].signature, counts)

    def on_retrieval(self, entry: Any, query: str | None, found: Any, first: bool) -> None:
        """A :class:`~headroom.ccr.store.CompressionStore` retrieval listener."""
        items = found.content.splitlines() if not found.full else []
        self.observe_retrieval(entry, query, found.full, found.matches, first=first, items=items)

    def observe_retrieval(self, entry: Any, query: str | None, full: bool, returned: int = 0, *,
                          first: bool | None = None, items: list[str] | None = None) -> None:
        """``entry`` (a CCR Entry) was retrieved; ``first``: never before, on any replica
        sharing the store (default: its retrieval count is still 0)."""
        meta = entry.meta if isinstance(entry.meta, dict) else {}
        sig = meta.get("toin")
        if not sig:
            return
        strategy = (meta.get("memo") or {}).get("strategy") or "?"
        counts: list[tuple[str, int]] = [("r_full" if full else "r_query", 1)]
        if not full:
            counts.append(("q_items", returned))
        if first is None:
            first = entry.retrieval_count == 0
        if first:
            counts += [("retrieved", 1), (f"s:{strategy}:r", 1)]
        if full and self._remember(self._whole, entry.hash):
            counts.append(("whole", 1))
        if query:
            prof = self._profile_of(entry, sig)
            if prof is not None:
                named, rare = fields_named(prof, query)
                named |= self._fields_matched(prof, query, items or [])
                counts += [(f"f:{h}:q", 1) for h in named] + [(f"f:{h}:rare", 1) for h in rare]
        self._add(sig, counts)

    @staticmethod
    def _fields_matched(prof: Profile, query: str, items: list[str]) -> set[str]:
        """Fields of the returned items whose value the query names (``ORD-17`` -> id)."""
        words = query_words(query)
        out: set[str] = set()
        for line in items[:50]:
            try:
                item = json.loads(line)
            except ValueError:
                continue
            if not isinstance(item, dict):
                continue
            for k, v in item.items():
                f = prof.fields.get(str(k))
                if f is not None and isinstance(v, (str, int)) and str(v).lower() in words:
                    out.add(f.hash)
        return out

    def _profile_of(self, entry: Any, sig: str) -> Profile | None:
        with self._lock:
            known = self._outputs.get(entry.hash)
        if known is not None:
            return known[0]
        # Compressed by another replica (or before a restart): profile the original again.
        try:
            parsed = json.loads(entry.original)
        except ValueError:
            return None
        prof = self.profile(parsed, "records", entry.tool_name)
        return prof if prof.signature == sig else None

    # -- storage --------------------------------------------------------------------

    def flush(self, *, wait: bool = True) -> None:
        """Write the buffered increments as one atomic batch; ``wait=False`` leaves the
        write to the writer thread (the request path), unless ``flush_seconds`` is 0."""
        with self._lock:
            batch = (self._deltas, self._meta)
            self._deltas, self._meta = {}, {}
            self._last_flush = self.clock()
            if not (batch[0] or batch[1]):
                batch = None
            else:
                self._inflight.append(batch)
        if batch is not None:
            done = self._writer.submit(self._write, batch)
            if wait or self.config.flush_seconds <= 0:
                done.result()

    def _write(self, batch: tuple[Deltas, dict[str, dict[str, str]]]) -> None:
        with self._io:
            try:
                self.backend.add(*batch)
            except Exception:
                # Keep the counts for the next flush (Redis away, file locked): nothing is lost.
                log.warning("TOIN write failed; retrying with the next flush", exc_info=True)
                with self._lock:
                    for sig, d in batch[0].items():
                        row = self._deltas.setdefault(sig, {})
                        for k, n in d.items():
                            row[k] = row.get(k, 0) + n
                    for sig, m in batch[1].items():
                        self._meta.setdefault(sig, {}).update(m)
            finally:
                with self._lock:
                    self._inflight.remove(batch)

    def close(self) -> None:
        self.flush()
        self._writer.shutdown(wait=True)
        self.backend.close()

    # -- reports, export and import -------------------------------------------------

    def signatures(self) -> list[str]:
        self.flush()
        return self.backend.signatures()

    def stats(self) -> dict[str, Any]:
        pats = [self.pattern(s, fresh=True) for s in self.signatures()]
        compressed = sum(p.compressed for p in pats)
        retrieved = sum(p.retrieved for p in pats)
        return {
            "enabled": True, "backend": type(self.backend).__name__, "signatures": len(pats),
            "compressed": compressed, "retrieved": retrieved,
            "retrieval_rate": round(retrieved / compressed, 4) if compressed else 0.0,
            "confident_signatures": sum(p.compressed >= self.config.min_observations for p in pats),
            "patterns": [{"signature": p.signature, "kind": p.kind, "tool_name": p.tool_name,
                          "compressed": p.compressed, "retrieval_rate": round(p.retrieval_rate, 4),
                          "fields": len(p.fields)} for p in pats],
        }

    def find(self, prefix: str) -> Pattern | None:
        """The pattern whose signature starts with ``prefix`` (None if none or ambiguous)."""
        hits = [s for s in self.signatures() if s.startswith(prefix)]
        return self.pattern(hits[0], fresh=True) if len(hits) == 1 else None

    def export(self) -> dict[str, Any]:
        """Everything learned, as counters and keyed hashes (plus the key, so an import
        elsewhere hashes field names the same way)."""
        sigs = self.signatures()
        return {"format": EXPORT_FORMAT, "key": self.key.hex(),
                "signatures": {s: {"counts": self.backend.counts(s), "meta": self.backend.meta(s)} for s in sigs}}

    def import_(self, data: dict[str, Any]) -> int:
        """Add an export's counters to this store. Returns the number of signatures."""
        if data.get("format") != EXPORT_FORMAT:
            raise ValueError(f"not a TOIN export (format {data.get('format')!r}, expected {EXPORT_FORMAT!r})")
        key = bytes.fromhex(data["key"])
        if key != self.key:
            if self.signatures():
                raise ValueError("this store already learned patterns under another key; import into an empty "
                                 "store, or export and import from the store that shares its key")
            self.backend.adopt_key(key)
            self._key = key
        sigs = data.get("signatures") or {}
        deltas = {s: {k: int(v) for k, v in (d.get("counts") or {}).items()} for s, d in sigs.items()}
        meta = {s: {k: str(v) for k, v in (d.get("meta") or {}).items()} for s, d in sigs.items()}
        self.backend.add(deltas, meta)
        with self._lock:
            self._patterns.clear()
        return len(sigs)
