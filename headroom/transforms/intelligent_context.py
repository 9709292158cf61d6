"""IntelligentContext: fit an over-budget conversation by keeping what matters, not what is new.

RollingWindow drops the oldest units. This transform scores every droppable unit (a tool
call with all its results, or a conversational turn) and spends the budget on the best:

- recency: newer units are more likely to be in play;
- semantic similarity to the recent turns (real MiniLM embeddings of each unit's most
  unusual lines; BM25 when the model is missing, which the decision record says);
- learned importance: per tool-output signature where TOIN is confident, else per tool
  from TOIN's retrieval counts: tools whose compressed outputs the model retrieved
  before are worth keeping whole (TOIN's backend is shared and, with SQLite or Redis,
  survives restarts);
- error indicators (tracebacks, failures: what agents come back to);
- forward references: a tool result whose identifiers (paths, ids, numbers) later
  messages mention is load-bearing;
- token density: repetitive output (the same line a thousand times) is cheap to lose.

Then it compresses first (the lowest-scored tool results are squeezed to the lines that
carry signal, original to CCR with a marker) and drops only if that is not enough, lowest
score first, through the shared ``context_units.drop_units`` (atomic units, CCR, marker).
System prompts, the frozen prefix and the last turns are protected by ``group_units``.
"""

from __future__ import annotations

import logging
import math
import re
import threading
import time
from dataclasses import dataclass, field
from typing import Any

from ..ccr.markers import format_marker, has_marker
from ..compressors.detect import detect_content_type
from ..formats import BlockKind, Conversation
from ..relevance.bm25 import BM25, tokenize
from ..toin.signals import UnitSignals, unit_signals
from ..token_accounting import message_tokens
from .base import TransformContext
from .context_units import (
    Unit,
    drop_units,
    group_units,
    over_budget,
    report_if_still_over,
)
from .protect import protection_reason

NAME = "intelligent_context"
log = logging.getLogger("headroom.transforms.intelligent_context")

WEIGHTS = {
    "recency": 0.20,
    "semantic": 0.30,
    "importance": 0.10,
    "error": 0.15,
    "forward_refs": 0.20,
    "density": 0.05,
}
# Conversational turns are small and carry the thread of the task; tool output is bulk.
TURN_BONUS = 0.10
# The model asked for this content explicitly (headroom_retrieve): keep it if at all possible.
RETRIEVED_BONUS = 0.5
SQUEEZE_MIN_TOKENS = 120
SQUEEZE_KEEP_FRACTION = 0.2
SALIENT_LINES_PER_UNIT = 6

_ERROR = re.compile(r"\b(?:error|exception|traceback|failed|failure|fatal|panic|denied|refused|timed? ?out|"
                    r"crash(?:ed)?|oomkilled|segfault|assert(?:ion)?error)\b", re.IGNORECASE)
# Identifiers worth following across messages: contain a digit or an inner _ . / - (paths,
# ids, versions, hosts) and are long enough not to be noise.
_REF = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.\-/:]*[A-Za-z0-9_]")


def _is_ref(tok: str) -> bool:
    return len(tok) >= 4 and any(c.isdigit() or c in "_./-" for c in tok[1:-1] + tok[-1])


def _refs(text: str) -> set[str]:
    """Identifiers in ``text``; paths also yield their parts (``a/b/x.sql`` -> ``x.sql``)."""
    out: set[str] = set()
    for t in _REF.findall(text):
        if _is_ref(t):
            out.add(t.lower())
            out.update(p.lower() for p in re.split(r"[/:]", t) if _is_ref(p))
    return out


@dataclass
class UnitView:
    unit: Unit
    text: str  # everything the unit says (results, call arguments, turn text)
    shape: str  # "tool:content_type" of its largest tool result, "" for turns
    largest: str = ""  # that result's text (TOIN reads its signature)
    features: dict[str, float] = field(default_factory=dict)
    score: float = 0.0


# --- learned importance from TOIN's per-tool retrieval counts --------------------------

class RetrievalImportance:
    """Importance per tool from how often the model retrieved that tool's outputs, read
    from TOIN (the one learner of retrieval feedback: every retrieval on every path, shared
    by the workers and replicas that share its backend, over its feedback window).

    ``r / (r + 3)``: one retrieval is a hint, a handful is a pattern. Re-read at most every
    ``refresh_s`` seconds per TOIN (``Toin.tool_activity`` writes TOIN's buffer and reads
    its backend: too dear for every request).
    """

    def __init__(self, refresh_s: float = 30.0):
        self.refresh_s = refresh_s
        self._cache: dict[int, tuple[float, dict[str, float]]] = {}
        self._lock = threading.Lock()

    def table(self, toin: Any) -> dict[str, float]:
        """Tool name -> importance in [0, 1); empty without TOIN."""
        if toin is None:
            return {}
        now = time.monotonic()
        with self._lock:
            hit = self._cache.get(id(toin))
            if hit and now - hit[0] < self.refresh_s:
                return hit[1]
        try:
            counts, _ = toin.tool_activity()
        except Exception:  # a backend down costs this signal, never the request
            log.warning("TOIN's per-tool counts are unreadable; importance left at 0", exc_info=True)
            counts = {}
        table = {tool: r / (r + 3) for tool, c in counts.items() if (r := c.get("events", 0)) > 0}
        with self._lock:
            self._cache[id(toin)] = (now, table)
        return table

    @staticmethod
    def lookup(table: dict[str, float], shape: str) -> float:
        """The importance of a unit of ``shape`` (``tool:content type``): its tool's."""
        return table.get(shape.split(":", 1)[0], 0.0) if shape else 0.0


_importance = RetrievalImportance()


# --- semantic similarity ---------------------------------------------------------------

_STOPWORDS = frozenset(
    [
        "a", "an", "and", "are", "as", "at", "be", "but", "by", "can", "could", "did", "do", "does", "for",
        "from", "had", "has", "have", "how", "i", "if", "in", "is", "it", "its", "me", "my", "no", "not",
        "of", "on", "or", "our", "so", "than", "that", "the", "their", "them", "then", "there", "these",
        "they", "this", "to", "was", "we", "were", "what", "when", "where", "which", "who", "whom", "why",
        "will", "with", "would", "you", "your", "also", "about", "again", "after", "all", "any", "been",
        "before", "being", "both", "each", "few", "more", "most", "other", "same", "some", "such", "only",
        "own", "very", "just", "now", "please", "tell", "show", "give", "find",
    ]
)


def salient_rarity(lines: list[str]) -> list[float]:
    """Per line, mean IDF of its tokens within ``lines``, scaled to [0, 1]."""
    toks = [set(tokenize(ln)) for ln in lines]
    df: dict[str, int] = {}
    for ts in toks:
        for t in ts:
            df[t] = df.get(t, 0) + 1
    raw = [sum(math.log(1 + len(lines) / df[t]) for t in ts) / len(ts) if ts else 0.0 for ts in toks]
    top = max(raw, default=0.0) or 1.0
    return [r / top for r in raw]


def salient_lines(texts: list[str], per_text: int) -> list[list[str]]:
    """The ``per_text`` most unusual lines of each text (highest mean IDF across all lines).

    Embedding whole tool outputs costs MiniLM time proportional to every token of the
    history; the lines that make a unit worth keeping are the ones unlike the rest
    (an error among INFO lines, one odd value in a table), so those are what we embed.
    """
    per_lines = [[ln.strip() for ln in t.splitlines() if ln.strip()] for t in texts]
    df: dict[str, int] = {}
    n_lines = 0
    for lines in per_lines:
        for ln in lines:
            n_lines += 1
            for tok in set(tokenize(ln)):
                df[tok] = df.get(tok, 0) + 1
    out: list[list[str]] = []
    for lines in per_lines:
        def rarity(ln: str) -> float:
            toks = set(tokenize(ln))
            return sum(math.log(1 + n_lines / df[t]) for t in toks) / len(toks) if toks else 0.0

        best = sorted(range(len(lines)), key=lambda i: (-rarity(lines[i]), i))[:per_text]
        out.append([lines[i][:400] for i in sorted(best)] or [""])
    return out


def semantic_scores(query: str, texts: list[str], device: str) -> tuple[list[float], str]:
    """Best salient-line similarity of each text to ``query``, and which signal produced it."""
    if not query.strip() or not texts:
        return [0.0] * len(texts), "no recent text"
    chunked = salient_lines(texts, SALIENT_LINES_PER_UNIT)
    flat = [c for cs in chunked for c in cs]
    try:
        from ..ml.embeddings import embed

        vecs = embed([query, *flat], device)
        sims = (vecs[1:] @ vecs[0]).tolist()
        how = "minilm"
    except Exception as exc:  # noqa: BLE001 - missing model/extra: say so, use the lexical signal
        bm = BM25(flat).scores(query)
        top = max(bm) or 1.0
        sims = [s / top for s in bm]
        how = f"bm25 (embeddings unavailable: {type(exc).__name__}: {exc})"
    out, k = [], 0
    for cs in chunked:
        out.append(max(sims[k : k + len(cs)]))
        k += len(cs)
    return out, how


def _rank_normalise(values: list[float]) -> list[float]:
    """Percentile ranks in [0, 1]: makes raw cosines comparable with the other factors."""
    if len(values) < 2:
        return [1.0] * len(values)
    order = sorted(range(len(values)), key=lambda i: values[i])
    ranks = [0.0] * len(values)
    for r, i in enumerate(order):
        ranks[i] = r / (len(values) - 1)
    return ranks


# --- the transform ----------------------------------------------------------------------

class IntelligentContext:
    name = NAME

    def __init__(self, importance: RetrievalImportance | None = None):
        self.importance = importance or _importance

    def apply(self, conv: Conversation, ctx: TransformContext) -> Conversation:
        fit = over_budget(conv, ctx, NAME)
        if fit is None:
            return conv
        budget, total = fit
        units = group_units(conv, ctx)
        views = self.score(conv, ctx, units)
        candidates = sorted((v for v in views if not v.unit.protected), key=lambda v: (v.score, v.unit.indices[0]))
        total -= self._squeeze(conv, ctx, candidates, total - budget)
        drop: list[Unit] = []
        for v in candidates:
            if total <= budget:
                break
            drop.append(v.unit)
            total -= v.unit.tokens
        if drop:
            scores = ", ".join(f"{v.score:.2f}" for v in candidates[: len(drop)])
            drop_units(conv, ctx, drop, NAME, f"over budget ({budget} tokens); lowest scores first ({scores})")
        report_if_still_over(conv, ctx, units, budget, NAME)
        return conv

    # scoring ------------------------------------------------------------------------------

    def score(self, conv: Conversation, ctx: TransformContext, units: list[Unit]) -> list[UnitView]:
        views = [self._view(conv, u) for u in units]
        n = len(views)
        recent = self._recent_text(conv, ctx)
        sims, how = semantic_scores(recent, [v.text for v in views], ctx.config.context.device)
        semantic = _rank_normalise(sims)
        table = self.importance.table(ctx.toin)
        # Identifiers shared by many units (dates, the repo name) say nothing about any one.
        unit_refs = [_refs(v.text) for v in views]
        df: dict[str, int] = {}
        for refs in unit_refs:
            for r in refs:
                df[r] = df.get(r, 0) + 1
        common = {r for r, c in df.items() if c > max(2, 0.3 * n)}
        later_refs: set[str] = set()
        forward = [0.0] * n
        # Walk newest to oldest, so ``later_refs`` holds what every later unit mentions.
        for k in range(n - 1, -1, -1):
            own = unit_refs[k] - common
            forward[k] = min(1.0, len(own & later_refs) / 2)
            later_refs |= _refs(self._mentions(conv, views[k].unit))
        learned_from = 0
        for k, v in enumerate(views):
            toks = tokenize(v.text)
            # Learned per tool-output signature (headroom.toin) where confident, else the
            # per-tool retrieval table and the keyword rule.
            tool, _, ctype = v.shape.partition(":")
            learned = (unit_signals(ctx.toin, v.largest, ctype, None if tool == "?" else tool, ctx.store)
                       if v.largest else UnitSignals())
            learned_from += learned.importance is not None
            v.features = {
                "recency": k / (n - 1) if n > 1 else 1.0,
                "semantic": semantic[k],
                "importance": (learned.importance if learned.importance is not None
                               else RetrievalImportance.lookup(table, v.shape)),
                "error": learned.error if learned.error is not None else 1.0 if _ERROR.search(v.text) else 0.0,
                "forward_refs": forward[k],
                "density": len(set(toks)) / len(toks) if toks else 0.0,
            }
            v.score = sum(WEIGHTS[f] * x for f, x in v.features.items())
            if v.unit.kind == "turn":
                v.score += TURN_BONUS
            if any(b.is_retrieve_output for i in v.unit.indices for b in conv.messages[i].blocks):
                v.score += RETRIEVED_BONUS
        toin_note = f"; TOIN importance/error learned for {learned_from} units" if learned_from else ""
        ctx.decide(NAME, "kept", f"scored {n} units; semantic signal: {how}{toin_note}")
        return views

    @staticmethod
    def _view(conv: Conversation, u: Unit) -> UnitView:
        parts: list[str] = []
        shape, biggest, largest = "", -1, ""
        for i in u.indices:
            for b in conv.messages[i].blocks:
                if b.text:
                    parts.append(b.text)
                if b.kind is BlockKind.TOOL_RESULT and b.text and len(b.text) > biggest:
                    biggest = len(b.text)
                    shape = f"{b.tool_name or '?'}:{detect_content_type(b.text).value}"
                    largest = b.text
        return UnitView(u, "\n".join(parts), shape, largest if shape else "")

    @staticmethod
    def _mentions(conv: Conversation, u: Unit) -> str:
        """What a unit says *about* earlier output: its text and call arguments, not its results."""
        return "\n".join(b.text for i in u.indices for b in conv.messages[i].blocks
                         if b.text and b.kind is not BlockKind.TOOL_RESULT)

    @staticmethod
    def _recent_text(conv: Conversation, ctx: TransformContext) -> str:
        last_assistant = next((m.text() for m in reversed(conv.messages) if m.role.value == "assistant" and m.text()), "")
        return "\n".join(t for t in (ctx.query, last_assistant[-1500:]) if t)

    # compress first ---------------------------------------------------------------------

    def _squeeze(self, conv: Conversation, ctx: TransformContext, candidates: list[UnitView], excess: int) -> int:
        """Shrink tool results of the lowest-scored units until ``excess`` tokens are gone.

        A squeezed result keeps its error lines and the lines most relevant to the recent
        turns (about a fifth of the lines), the original goes to CCR behind a marker, and
        the tool call/result ids stay, so the unit remains valid and retrievable.
        """
        if not ctx.keeps_originals:
            return 0
        saved = 0
        query = self._recent_text(conv, ctx)
        for v in candidates:
            if saved >= excess:
                break
            if v.unit.kind != "tool":
                continue
            for i in v.unit.indices:
                for b in conv.messages[i].blocks:
                    if b.kind is not BlockKind.TOOL_RESULT or not b.text or has_marker(b.text):
                        continue
                    if protection_reason(conv, i, b, ctx.config):
                        continue
                    before = ctx.tokens(b)
                    if before < SQUEEZE_MIN_TOKENS:
                        continue
                    squeezed = self._squeezed_text(b.text, query, ctx)
                    if squeezed is None:
                        continue
                    text, kept, lines = squeezed
                    h = ctx.keep_original(b.text, tool_name=b.tool_name, original_tokens=before, item_count=lines)
                    marker = format_marker(lines, kept, h, ctx.store.ttl_seconds, "Squeezed to fit the context window.")
                    new_text = f"{text}\n{marker}"
                    after = ctx.counter.count(new_text)
                    if after >= before:
                        continue
                    b.text = new_text
                    saved += before - after
                    ctx.decide(NAME, "compressed", f"over budget; low score {v.score:.2f}", message_index=i,
                               tool_name=b.tool_name, strategy="squeeze", tokens_before=before,
                               tokens_after=after, ccr_hash=h)
            v.unit.tokens = sum(message_tokens(conv.messages[i], ctx.counter) for i in v.unit.indices)
        return saved

    @staticmethod
    def _squeezed_text(text: str, query: str, ctx: TransformContext) -> tuple[str, int, int] | None:
        lines = [ln for ln in text.splitlines() if ln.strip()]
        if len(lines) < 5:
            return None
        budget = max(2, int(len(lines) * SQUEEZE_KEEP_FRACTION))
        # Function words would make any prose line "relevant" to any question.
        query = " ".join(w for w in query.split() if w.lower().strip("?,.!:;") not in _STOPWORDS)
        rel = (ctx.relevance(query, lines) if ctx.relevance is not None else BM25(lines).scores(query)) \
            if query.strip() else [0.0] * len(lines)
        top = max(rel) or 1.0
        # Ties (most lines match nothing) go to the lines least like their neighbours.
        rarity = salient_rarity(lines)
        score = [(1.0 if _ERROR.search(ln) else 0.0) + r / top + 0.1 * q for ln, r, q in zip(lines, rel, rarity)]
        keep = sorted(sorted(range(len(lines)), key=lambda i: (-score[i], i))[:budget])
        return "\n".join(lines[i] for i in keep), len(keep), len(lines)


__all__ = ["WEIGHTS", "IntelligentContext", "RetrievalImportance", "semantic_scores"]
