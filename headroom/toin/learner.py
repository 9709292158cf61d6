"""``Toin``: observe compressions, retrievals and questions; answer hints.

One object per process (the pipeline owns it). Observations become counter increments
buffered in memory and written to the backend in one atomic batch every
``flush_seconds``; patterns are read back and cached for ``refresh_seconds``, so
replicas sharing a backend learn from each other at that pace and a request never
waits on storage beyond one batched write a second.

It also keeps the counts retrieval feedback is computed from (``toin/feedback.py``): per
tool name and time bucket, outputs compressed, outputs retrieved, retrieval calls and
proactive expansions, in the same batches, so every worker and replica sharing the
backend adds to the same per-tool counts.
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

from ..ccr.store import query_digest
from .backends import Deltas, Recent, ToinBackend, ToolDeltas
from .flush_timer import Scheduled, call_later
from .patterns import Pattern, ToinHints, build_pattern, hints_for
from .signature import Profile, profile

_WORD = re.compile(r"[a-z0-9][a-z0-9_.\-]*")
_PARTS = re.compile(r"[a-z0-9]+")
_CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")
EXPORT_FORMAT = "headroom-toin/1"
# Retrievals of an output stored without a tool name are counted under this name.
UNKNOWN_TOOL = "(unknown)"
# The feedback window is counted in this many buckets: activity leaves it between
# (BUCKETS_PER_WINDOW - 1) / BUCKETS_PER_WINDOW and one whole window after it happened.
BUCKETS_PER_WINDOW = 12
log = logging.getLogger("headroom.toin")


_Batch = tuple[Deltas, dict[str, dict[str, str]], ToolDeltas, Recent]


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
                 clock: Callable[[], float] = time.monotonic, max_tracked: int = 20_000,
                 feedback_window_seconds: float = 6 * 3600, wall_clock: Callable[[], float] = time.time,
                 flush_timer: bool | None = None):
        """``clock`` paces flushes and pattern re-reads; ``wall_clock`` dates per-tool
        activity (a time every process sharing the backend agrees on), which counts for
        retrieval feedback over the last ``feedback_window_seconds``. ``flush_timer``:
        write a buffer left behind by the last observations of a burst ``flush_seconds``
        later (default: only with the real clock; a scripted one replays without it)."""
        if feedback_window_seconds <= 0:
            raise ValueError("feedback_window_seconds must be positive")
        self.backend = backend
        self.config = config  # a ToinConfig
        self.max_budget = max_budget
        self.clock = clock
        self.wall_clock = wall_clock
        self.feedback_window_seconds = feedback_window_seconds
        self.bucket_seconds = feedback_window_seconds / BUCKETS_PER_WINDOW
        self._key: bytes | None = None
        self._lock = threading.Lock()
        self._deltas: Deltas = {}
        self._meta: dict[str, dict[str, str]] = {}
        self._tools: ToolDeltas = {}
        self._recent: Recent = {}
        self._last_flush = clock()
        self._flush_timer: Scheduled | None = None
        self._use_flush_timer = clock is time.monotonic if flush_timer is None else flush_timer
        self._pruned_before: int | None = None
        # Batches handed to the writer thread and not yet committed. Reads add them (and
        # the buffer) to what the backend holds, under ``_io``, which a commit also
        # holds: a process always sees all of its own observations, however slow the
        # disk or Redis, and a request never waits for a write.
        self._inflight: list[_Batch] = []
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
                for d, m, *_ in [*self._inflight, (self._deltas, self._meta)]:
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

    def _add(self, sig: str | None, counts: Iterable[tuple[str, int]], *, tool: str | None = None,
             tool_counts: Iterable[tuple[str, int]] = (), retrieval: str | None = None) -> None:
        """Buffer increments for ``sig`` and for ``tool`` in the current time bucket;
        ``retrieval`` (a query digest, "" for none) dates the tool's latest retrieval."""
        with self._lock:
            if sig is not None:
                row = self._deltas.setdefault(sig, {})
                for k, n in counts:
                    row[k] = row.get(k, 0) + n
            if tool is not None:
                now = self.wall_clock()
                row = self._tools.setdefault((tool, self.bucket(now)), {})
                for k, n in tool_counts:
                    row[k] = row.get(k, 0) + n
                if retrieval is not None:
                    self._recent.setdefault(tool, {})[retrieval] = now
            waited = self.clock() - self._last_flush
            due = waited >= self.config.flush_seconds
            if not due and self._flush_timer is None and self._use_flush_timer:
                # Written within flush_seconds even when nothing else happens: the last
                # observations of a burst must reach the other workers too.
                self._flush_timer = call_later(self.config.flush_seconds - waited, self._timed_flush)
        if due:
            self.flush(wait=False)

    def _timed_flush(self) -> None:
        with self._lock:
            self._flush_timer = None
        try:
            self.flush(wait=False)
        except RuntimeError:  # closed meanwhile (the writer is shut down): close() flushed
            pass

    def bucket(self, at: float) -> int:
        return int(at // self.bucket_seconds)

    def first_bucket(self) -> int:
        """The oldest bucket still inside the feedback window (whole buckets only)."""
        return self.bucket(self.wall_clock() - self.feedback_window_seconds) + 1

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
        tool, tool_counts = None, []
        for f in prof.fields.values():
            counts.append((f"f:{f.hash}:m:{f.semantic}", 1))
        if lossy and ccr_hash:
            counts += [("compressed", 1), ("items_in", items_before), ("items_kept", items_after),
                       (f"s:{strategy or '?'}:c", 1)]
            if not steered:  # the budget grows from what the compressor keeps on its own
                counts += [("plain", 1), ("plain_kept", items_after)]
            if self._remember(self._outputs, ccr_hash, (prof, strategy or "?")) and prof.tool_name:
                tool, tool_counts = prof.tool_name, [("stored", 1)]  # one output, counted once here
            if query:
                counts += self._question_counts(ccr_hash, prof, query)
        # The text fields change rarely: written once per signature and tool per process.
        if self._remember(self._described, (prof.signature, prof.tool_name)):
            meta = {"kind": prof.kind, "tool": prof.tool_name}
            if prof.fields:
                meta["fields"] = json.dumps(sorted((f.hash, f.type) for f in prof.fields.values()))
            with self._lock:
                self._meta.setdefault(prof.signature, {}).update(meta)
        self._add(prof.signature, counts, tool=tool, tool_counts=tool_counts)

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
        if first is None:
            first = entry.retrieval_count == 0
        # Per tool, every retrieval counts (also of outputs learned under no signature).
        tool = entry.tool_name or UNKNOWN_TOOL
        tool_counts = [("events", 1)] + ([("retrieved", 1)] if first else [])
        retrieval = query_digest(query) or ""
        sig = meta.get("toin")
        if not sig:
            self._add(None, (), tool=tool, tool_counts=tool_counts, retrieval=retrieval)
            return
        strategy = (meta.get("memo") or {}).get("strategy") or "?"
        counts: list[tuple[str, int]] = [("r_full" if full else "r_query", 1)]
        if not full:
            counts.append(("q_items", returned))
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
        self._add(sig, counts, tool=tool, tool_counts=tool_counts, retrieval=retrieval)

    def observe_expansion(self, tool_name: str | None, ccr_hash: str, items: int) -> None:
        """The ContextTracker appended ``items`` original items of ``ccr_hash`` before the
        model asked: shown per tool at /v1/feedback, never counted as a retrieval."""
        self._add(None, (), tool=tool_name or UNKNOWN_TOOL, tool_counts=[("expansions", 1), ("expanded_items", items)])

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
            batch = (self._deltas, self._meta, self._tools, self._recent)
            self._deltas, self._meta, self._tools, self._recent = {}, {}, {}, {}
            self._last_flush = self.clock()
            if not any(batch):
                batch = None
            else:
                self._inflight.append(batch)
        if batch is not None:
            done = self._writer.submit(self._write, batch)
            if wait or self.config.flush_seconds <= 0:
                done.result()

    def _write(self, batch: _Batch) -> None:
        with self._io:
            try:
                self.backend.add(*batch)
            except Exception:
                # Keep the counts for the next flush (Redis away, file locked): nothing is lost.
                log.warning("TOIN write failed; retrying with the next flush", exc_info=True)
                with self._lock:
                    for mine, theirs in ((self._deltas, batch[0]), (self._tools, batch[2])):
                        for key, d in theirs.items():
                            row = mine.setdefault(key, {})
                            for k, n in d.items():
                                row[k] = row.get(k, 0) + n
                    for sig, m in batch[1].items():
                        self._meta.setdefault(sig, {}).update(m)
                    for tool, times in batch[3].items():
                        row = self._recent.setdefault(tool, {})
                        for v, at in times.items():
                            row[v] = max(at, row.get(v, at))
            finally:
                with self._lock:
                    self._inflight.remove(batch)
            self._prune()

    def _prune(self) -> None:
        """Drop per-tool buckets that left the feedback window (once per new bucket)."""
        before = self.first_bucket()
        if before == self._pruned_before:
            return
        try:
            self.backend.prune_tools(before)
            self._pruned_before = before
        except Exception:  # the next flush tries again; the reads ignore old buckets anyway
            log.warning("TOIN pruning of old per-tool counts failed", exc_info=True)

    def tool_activity(self) -> tuple[dict[str, dict[str, int]], Recent]:
        """Per tool over the feedback window: counter totals (``stored``, ``retrieved``,
        ``events``, ``expansions``, ``expanded_items``) and the latest retrieval times by
        query digest ("" for any retrieval). Writes this process's buffer first and
        reads the backend: for admin routes and background refreshes, not requests."""
        self.flush()
        return self.backend.tool_counts(self.first_bucket()), self.backend.tool_recent()

    def close(self) -> None:
        with self._lock:
            timer, self._flush_timer = self._flush_timer, None
        if timer is not None:
            timer.cancel()
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
