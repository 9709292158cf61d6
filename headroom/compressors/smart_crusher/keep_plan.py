"""Which items of an array survive a lossy crush.

Two tiers. *Must-keep* items are never dropped: errors, anomalies (numeric outliers and
rare values of categorical fields), both sides of every change point, items naming a
query anchor, and the first/last few. *Filler*
slots, up to the target size, go to the best items by a list of rankings tried in order
(relevance to the question, then the pattern's own order: top scores for search results,
evenly spaced samples for a series). Kept items stay in their original order.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ...query.anchors import Anchors
from ...query.intent import content_lemmas, intents_of, names_content_word
from ...relevance.bm25 import tokenize
from ..flat_paths import flat_path_lines, pair_lines
from ..templates import keys_of, mine
from .nested_extremes import nested_extremes
from .nested_rare import nested_rare_items
from .patterns import FieldRoles, Pattern
from .rows import RowIndex
from .signals import (
    error_items,
    error_keys,
    is_error_item,
    rows_with_error_text,
    state_error_items,
    state_error_keys,
)
from .stats import FieldStats, change_point_positions, hashable, numeric_values, outlier_positions

# Must-keep reasons, in the order the summary lists them.
ERRORS, ANOMALIES, CHANGE_POINTS, ANCHORS = "errors", "anomalies", "change points", "anchor matches"
# Items whose message template occurs once (a string field with templates, e.g. a log's
# message): the one-off events a reader cannot ask for if they are not in view.
ONE_OFFS = "one-off events"
# Also kept, but not worth a word in the marker (exemplars: one item per repeated
# message template, so every kind of event is in view once).
EDGES, EXTREMES, EXEMPLARS = "edges", "extremes", "exemplars"
# An anchor found in more than this share of the items distinguishes nothing: ignored.
_ANCHOR_MAX_SHARE = 0.5
# Relevance scoring of longer arrays only looks at rows sharing a word with the question
# (the only rows BM25 can score above zero), and of those only the _MAX_SCORED that cover
# the rarest question words: relevance fills at most ~1.5x max_items slots, and scoring
# (tokenising) hundreds of rows would take most of the latency budget.
_PREFILTER_ABOVE = 64
_MAX_SCORED = 64
_RELEVANCE_MAX_SHARE = 0.1
# Question words that name nothing in the data: not worth a scan of every row.
_QUESTION_STOPWORDS = frozenset((
    "the", "and", "for", "are", "was", "were", "who", "what", "which", "when", "where", "why", "how", "does",
    "did", "has", "have", "had", "with", "from", "that", "this", "these", "those", "there", "their", "they",
    "them", "its", "any", "all", "our", "your", "you", "can", "could", "would", "should", "will", "about",
    "into", "than", "then", "been", "being",
))


_SINGULAR = {ERRORS: "error", ANOMALIES: "anomaly", CHANGE_POINTS: "change point", ANCHORS: "anchor match",
             ONE_OFFS: "one-off event"}
# A string field has templates when its values are text (some contain a space) and their
# keys (digit-led tokens masked) repeat: at most this share of the values are distinct keys.
_TEMPLATE_MAX_KEY_SHARE = 0.5
# A string field with at most this many distinct values is a category a question may name.
_MAX_ASKED_VALUES = 50
# Items kept for "largest/slowest" questions when one numeric field is the measure.
_TOP_K = 20
# Items kept at the start/end when the question asks for the first/last ones.
_INTENT_EDGE = 10
# A numeric column with more level shifts than max(max_items / 2, one per this many items)
# is a sawtooth (line numbers restarting per file), not a series changing regime.
_ITEMS_PER_SHIFT = 50
_NAMED_FILLER_SHARE = 1 / 3  # of the filler slots, when the question names rows that are here
# A question word held by at most this many rows names them (see rare_word_indices).
_RARE_WORD_ROWS = 3
_NAMED_VALUE_LEAVES = 256  # string leaves looked at per item (a package's metadata has ~100)
_NAMED_VALUE_CHARS = (3, 64)  # a value this long can be a name the question says


@dataclass
class KeepPlan:
    kept: list[int]
    # Must-keep item indices by reason (a change point keeps the items on both sides).
    must: dict[str, set[int]] = field(default_factory=dict)
    # Level shifts found (each one keeps two items).
    shifts: int = 0
    # What the marker adds after the counts (the asked field's column, see .asked_extreme).
    note: str = ""

    def counts(self) -> dict[str, int]:
        out = {reason: len(self.must.get(reason, ())) for reason in (ERRORS, ANOMALIES, ANCHORS, ONE_OFFS)}
        out[CHANGE_POINTS] = self.shifts
        return out

    def summary(self) -> str:
        return "; ".join(p for p in (summarize(self.counts()), self.note) if p)


def summarize(counts: dict[str, int]) -> str:
    """``"3 errors, 1 anomaly kept"``: what the marker tells the model survived."""
    parts = [f"{counts[r]} {_SINGULAR[r] if counts[r] == 1 else r}"
             for r in (ERRORS, ONE_OFFS, ANOMALIES, CHANGE_POINTS, ANCHORS) if counts.get(r)]
    return (", ".join(parts) + " kept") if parts else ""


def target_size(max_items: int, aggressiveness: float) -> int:
    """Filler budget: 1.5x ``max_items`` when gentle (0), 0.5x when aggressive (1)."""
    a = float(aggressiveness)
    a = 0.5 if math.isnan(a) else min(1.0, max(0.0, a))
    return max(1, round(max_items * (1.5 - a)))


def edge_indices(n: int, first: int, last: int) -> set[int]:
    return set(range(min(first, n))) | set(range(max(0, n - last), n))


def anchor_indices(index: RowIndex, anchors: Anchors) -> set[int]:
    if not anchors:
        return set()
    out: set[int] = set()
    limit = max(1, int(len(index.rows) * _ANCHOR_MAX_SHARE))
    for term in sorted(anchors.terms):
        hits = index.containing(term, limit)
        if len(hits) <= limit:
            out.update(hits)
    return out


def rare_word_indices(index: RowIndex, query: str, most: int = _RARE_WORD_ROWS) -> set[int]:
    """Rows holding a content word of the question that at most ``most`` rows hold.

    "Which code does Creuse in France have?" over 400 subdivisions: "france" is in a
    hundred rows and names none of them, "creuse" is in one and names it. A plain word
    is not an anchor (no digits, quotes or case to mark it), so without this the row is
    only a relevance candidate, and a question that also names a common value (the
    country) fills every slot with that value's rows first."""
    if not query:
        return set()
    content = content_lemmas(query)
    out: set[int] = set()
    for w in sorted({w for w in tokenize(query) if len(w) >= 4 and w in content and w not in _QUESTION_STOPWORDS}):
        hits = index.containing(w, most)
        if len(hits) <= most:
            out.update(hits)
    return out


def named_value_indices(items: Sequence[Any], query: str, most: int = _RARE_WORD_ROWS) -> set[int]:
    """Items holding a string value, at any depth, that the question says whole ("find
    click in the report" and ``"name": "click"``), when at most ``most`` items hold it.

    A plain word of the question inside longer values is not enough for nested records:
    "click" is in a hundred requirement strings (``click<8.3.0; extra == "dev"``) of
    ``pip inspect``'s 125 packages, and in the one package whose name it is."""
    qlow = query.lower()
    # Flat records are left to rare_word_indices and the categorical look-up: walking
    # every value of 10 000 rows would cost more than the rest of the plan.
    if not qlow or not any(isinstance(it, dict) and any(isinstance(v, (dict, list)) for v in it.values())
                           for it in items[:4]):
        return set()
    lo, hi = _NAMED_VALUE_CHARS
    holders: dict[str, set[int]] = {}
    for i, it in enumerate(items):
        if not isinstance(it, (dict, list)):
            continue
        stack, seen = [it], 0
        while stack and seen < _NAMED_VALUE_LEAVES:
            v = stack.pop()
            if isinstance(v, dict):
                stack.extend(v.values())
            elif isinstance(v, list):
                stack.extend(v)
            elif isinstance(v, str):
                seen += 1
                if lo <= len(v) <= hi and v.lower() in qlow:
                    holders.setdefault(v.lower(), set()).add(i)
    out: set[int] = set()
    for value, rows in holders.items():
        if len(rows) <= most and re.search(r"(?<!\w)" + re.escape(value) + r"(?!\w)", qlow) \
                and value not in _QUESTION_STOPWORDS:
            out |= rows
    return out


def sparse_key_anchor_indices(items: Sequence[Any], stats: dict[str, FieldStats], anchors: Anchors) -> set[int]:
    """Items having a key the question names, when only some items have it.

    Item texts hold values only, so this is where a question like "which orders have a
    `coupon_code`?" finds its items. A key every item has distinguishes nothing.
    """
    if not anchors:
        return set()
    n_dicts = sum(1 for it in items if isinstance(it, dict))
    keys = [k for k, fs in stats.items()
            if fs.present <= _ANCHOR_MAX_SHARE * n_dicts and anchors.matching(str(k).lower())]
    if not keys:
        return set()
    return {i for i, it in enumerate(items) if isinstance(it, dict) and any(k in it for k in keys)}


def evenly_spaced(n: int, k: int) -> list[int]:
    if k <= 0 or n <= 0:
        return []
    if k >= n:
        return list(range(n))
    return [round(i * (n - 1) / (k - 1)) for i in range(k)] if k > 1 else [n // 2]


def relevance_ranking(index: RowIndex, query: str, score: Callable[[list[str]], list[float]],
                      slots: int = 0) -> list[int]:
    """Indices with a positive relevance score, best first (ties: earlier first).

    Arrays longer than _PREFILTER_ABOVE score at most ``max(_MAX_SCORED, 2 * slots)``
    rows, those covering the rarest question words."""
    texts = index.rows
    if not query:
        return []
    candidates = list(range(len(texts)))
    if len(texts) > _PREFILTER_ABOVE:
        words = sorted({w for w in tokenize(query) if len(w) >= 3 and w not in _QUESTION_STOPWORDS})
        n = len(texts)
        limit = max(_MAX_SCORED, 2 * slots)
        # A word in more rows than this cannot tell the rows it is in apart (the best
        # `limit` of them would be the first ones), so it ranks nothing.
        common = max(limit * 2, int(n * _RELEVANCE_MAX_SHARE))
        # Pre-rank by the question words each row contains, weighted like BM25's idf
        # (a word in few rows says more), then score the best few properly.
        weight: dict[int, float] = {}
        for w in words:
            rows = index.containing(w, common)
            if len(rows) <= common:
                idf = math.log(1 + (n - len(rows) + 0.5) / (len(rows) + 0.5))
                for r in rows:
                    weight[r] = weight.get(r, 0.0) + idf
        if not weight:
            return []
        candidates = sorted(sorted(weight, key=lambda r: (-weight[r], r))[:limit])
    scores = score([texts[i] for i in candidates])
    by_index = dict(zip(candidates, scores))
    return sorted((i for i in candidates if by_index[i] > 0), key=lambda i: (-by_index[i], i))


def score_ranking(items: Sequence[Any], field_name: str) -> list[int]:
    """Items by their score field, best first; ``distance`` ranks ascending."""
    lower_is_better = field_name.lower().lstrip("_") in ("distance", "rank", "ranking")
    scored = []
    for i, it in enumerate(items):
        v = it.get(field_name) if isinstance(it, dict) else None
        if isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v):
            scored.append((v if lower_is_better else -v, i))
    scored.sort()
    return [i for _, i in scored]


_VARIABLE_PARTS = re.compile(r"\d+|[0-9a-f]{8,}|\"[^\"]*\"")


def message_templates(msgs: list[str]) -> list[str]:
    """``_VARIABLE_PARTS`` masked as ``#`` in each message: one regex pass over the joined
    messages when none holds a quote or a newline (then no match can cross from one
    message into the next: digit and hex runs stop at the newline, and there is no quote
    to open a quoted span), else a pass per message."""
    joined = "\n".join(msgs)
    if '"' not in joined:
        masked = _VARIABLE_PARTS.sub("#", joined).split("\n")
        if len(masked) == len(msgs):  # no message held a newline of its own
            return masked
    return [_VARIABLE_PARTS.sub("#", m) for m in msgs]


def rare_messages_first(items: Sequence[Any], field_name: str) -> list[int]:
    """One item per message template (numbers, hex ids, quoted values masked), rarest first.

    A log's repeated lines say little; the one-off lines are where the story is.
    """
    first: dict[str, int] = {}
    counts: dict[str, int] = {}
    where, msgs = [], []
    for i, it in enumerate(items):
        msg = it.get(field_name) if isinstance(it, dict) else None
        if isinstance(msg, str):
            where.append(i)
            msgs.append(msg)
    for i, t in zip(where, message_templates(msgs)):
        if t not in first:
            first[t] = i
        counts[t] = counts.get(t, 0) + 1
    return [first[t] for t in sorted(first, key=lambda t: (counts[t], first[t]))]


def fill(n: int, must: set[int], target: int, rankings: Iterable[Sequence[int]],
         dedupe: Sequence[Any] | None = None) -> list[int]:
    """``must`` plus filler from ``rankings`` (in order) up to ``target``, sorted."""
    kept = set(must)
    seen = {dedupe[i] for i in kept} if dedupe is not None else set()
    for ranking in rankings:
        for i in ranking:
            if len(kept) >= target:
                return sorted(kept)
            if i in kept:
                continue
            if dedupe is not None:
                if dedupe[i] in seen:
                    continue
                seen.add(dedupe[i])
            kept.add(i)
    return sorted(kept)


def plan_records(items: list[Any], texts: list[str], stats: dict[str, FieldStats], roles: FieldRoles,
                 pattern: Pattern, *, first: int, last: int, max_items: int, aggressiveness: float,
                 anchors: Anchors, query: str, score: Callable[[list[str]], list[float]],
                 rare_max: int = 5) -> KeepPlan:
    """Keep plan for an array of objects (non-object items are treated as plain text)."""
    n = len(items)
    index = RowIndex(texts)
    structural = error_items(items, error_keys(stats)) | state_error_items(items, state_error_keys(stats))
    structural |= {i for i, it in enumerate(items) if not isinstance(it, dict) and is_error_item(it)}
    must: dict[str, set[int]] = {
        ERRORS: structural | rows_with_error_text(index),
        ANOMALIES: set(),
        CHANGE_POINTS: set(),
        ANCHORS: (anchor_indices(index, anchors) | sparse_key_anchor_indices(items, stats, anchors)
                  | rare_word_indices(index, query) | named_value_indices(items, query)),
        EDGES: edge_indices(n, first, last),
    }
    shifts: set[int] = set()
    for name, fs in stats.items():
        if name == roles.timestamp:
            continue
        must[ANOMALIES].update(fs.outliers)
        must[ANOMALIES].update(fs.rare)
        if len(fs.change_points) <= max(max_items // 2, n // _ITEMS_PER_SHIFT):
            shifts.update(fs.change_points)
    for i in shifts:
        must[CHANGE_POINTS].update((i - 1, i))
    # A rare type or value one level down (a function without a description, under its library).
    must[ANOMALIES] |= nested_rare_items(items, stats, cap=max(max_items // 2, 4))
    intents = intents_of(query)
    template_keys = template_field_keys(items, stats, roles)
    if template_keys is not None:
        must[ONE_OFFS] = one_off_positions(template_keys, cap=max(4 * max_items, n // 4))
        must[EXEMPLARS] = exemplar_positions(template_keys, cap=max_items)
    _steer_by_intent(must, intents, items, stats, roles, n)
    if "extreme" in intents:  # measures one level down in each record (mpstat's "cpu-load")
        must.setdefault(EXTREMES, set()).update(nested_extremes(items, stats, query))
    must[ANCHORS] |= asked_value_positions(items, stats, query, cap=max(4 * max_items, 16), keys=template_keys)
    if (pairs := pair_lines(items)) is not None:  # a flattened document: [{path, value}, …]
        must[ANCHORS] |= flat_path_lines(pairs, must[ANCHORS], query)
    if template_keys is not None and len(must[ERRORS]) > target_size(max_items, aggressiveness):
        # Errors sharing a frequent message template say the same thing: past the budget,
        # one exemplar per such template (and every error the question names). An error
        # whose template occurs at most rare_max times is rare and stays.
        counts = Counter(template_keys[i] for i in must[ERRORS])
        rare = {i for i in must[ERRORS] if counts[template_keys[i]] <= rare_max}
        must[ERRORS] = one_per_key(must[ERRORS], template_keys, keep=must[ANCHORS] | rare)
    # An error is often also a rare value (the one "ERROR" level): say it once, as an error.
    must[ANOMALIES] -= must[ERRORS]
    must.get(ONE_OFFS, set()).difference_update(must[ERRORS])
    all_must = set().union(*must.values())
    slots = target_size(max_items, aggressiveness)
    if must[ANCHORS]:
        # The question names rows that are here: they answer it, and filler only shows
        # what the rest looks like, which a few rows do as well as a page of them.
        slots = max(1, round(slots * _NAMED_FILLER_SHARE))
    rankings: list[Sequence[int]] = [relevance_ranking(index, query, score, slots)]
    if pattern is Pattern.SEARCH_RESULTS and roles.score:
        by_score = score_ranking(items, roles.score)
        rankings = [by_score[: max(1, slots // 2)], *rankings, by_score]
    elif pattern is Pattern.LOGS:
        if roles.level:
            rankings.append([i for i, it in enumerate(items)
                             if isinstance(it, dict) and str(it.get(roles.level, "")).lower() in ("warn", "warning")])
        if roles.message:
            rankings.append(rare_messages_first(items, roles.message))
    rankings.append(evenly_spaced(n, slots))
    # With message templates, filler takes one item per template: near-duplicates (the
    # same event with another timestamp) never fill the slots.
    # (Only for logs: in other arrays the message is one field among others — search
    # hits "error <hash> in handler" differ by their paths — and titles like "result 7"
    # of search hits are templates too, whose filler is the best-scored hits.)
    dedupe = template_keys if pattern is Pattern.LOGS else None
    kept = fill(n, all_must, max(slots, len(all_must)), rankings, dedupe=dedupe)
    return KeepPlan(kept, must, len(shifts))


def template_field_keys(items: Sequence[Any], stats: dict[str, FieldStats], roles: FieldRoles) -> list[str] | None:
    """Per item, the template key of its message-like string field, or None when the
    array has no such field. The log's message field when known, else the string field
    with the most distinct values whose keys repeat (templates, not ids or names)."""
    n = len(items)
    names = [roles.message] if roles.message else []
    names += sorted((k for k, fs in stats.items() if k != roles.message and k != roles.timestamp
                     and fs.dominant_type == "string" and fs.distinct > 12 and fs.present >= 0.8 * n),
                    key=lambda k: (-stats[k].distinct, k))
    for name in names[:3]:
        # Messages have spaces: judged on the first 64 items before the whole column is read.
        head = [v for v in (it.get(name) if isinstance(it, dict) else None for it in items[:64]) if isinstance(v, str)]
        if sum(1 for v in head if " " in v) < 0.5 * len(head) or not head:
            continue
        col = [it.get(name) if isinstance(it, dict) else None for it in items]
        strings = [v for v in col if isinstance(v, str)]
        if len(strings) < 0.8 * n:
            continue
        keys = keys_of([v if isinstance(v, str) else "" for v in col])
        if len(set(keys)) <= _TEMPLATE_MAX_KEY_SHARE * n:
            return keys
    return None


def one_per_key(positions: set[int], keys: Sequence[str], keep: set[int]) -> set[int]:
    """The first of ``positions`` for each template key, plus those in ``keep`` (items a
    question names outright)."""
    first: dict[str, int] = {}
    for i in sorted(positions):
        first.setdefault(keys[i], i)
    return set(first.values()) | (positions & keep)


def exemplar_positions(keys: Sequence[str], cap: int) -> set[int]:
    """The first item of each template key seen more than once, when there are at most
    ``cap`` such keys (more means the keys are ids, not templates: nothing)."""
    counts = Counter(keys)
    repeated = {k for k, c in counts.items() if c > 1 and k}
    if len(repeated) > cap:
        return set()
    first: dict[str, int] = {}
    for i, k in enumerate(keys):
        if k in repeated:
            first.setdefault(k, i)
    return set(first.values())


def one_off_positions(keys: Sequence[str], cap: int) -> set[int]:
    """Items whose key occurs once. When there are more than ``cap``, those whose Drain
    cluster (a coarser template, :func:`..templates.mine`) is single too come first —
    "Unused argument 'x'" and "… 'y'" are one-off keys but one kind of finding — then
    an even spread of the rest."""
    counts = Counter(keys)
    once = [i for i, k in enumerate(keys) if counts[k] == 1 and k]
    if len(once) <= cap:
        return set(once)
    _, miner = mine([k for k in keys if k])
    alone = [i for i in once if miner.cluster_of(keys[i]).count == 1]
    if len(alone) >= cap:
        return set(evenly_spaced_subset(alone, cap))
    rest = [i for i in once if miner.cluster_of(keys[i]).count > 1]
    return set(alone) | set(evenly_spaced_subset(rest, cap - len(alone)))


def evenly_spaced_subset(seq: Sequence[int], k: int) -> list[int]:
    return [seq[i] for i in evenly_spaced(len(seq), k)] if len(seq) > k else list(seq)


def asked_value_positions(items: Sequence[Any], stats: dict[str, FieldStats], query: str, cap: int,
                          keys: Sequence[str] | None = None) -> set[int]:
    """Items whose categorical value is a word of the question ("which packages were
    upgraded?" and ``"component": "upgrade"``). When more than ``cap``: one per message
    template (``keys``) if the array has them, then an even spread up to ``cap``."""
    asked = content_lemmas(query)
    if not asked:
        return set()
    out: set[int] = set()
    for name, fs in stats.items():
        if fs.dominant_type != "string" or not 2 <= fs.distinct <= _MAX_ASKED_VALUES or fs.categories is None:
            continue
        named = {v for v in fs.categories if names_content_word(v, asked)}
        if not named:
            continue  # the common case: the column's few values, no per-item matching
        rows = [i for i, it in enumerate(items) if isinstance(it, dict) and it.get(name) in named]
        # A value most items hold names nothing in particular.
        if len(rows) <= _ANCHOR_MAX_SHARE * len(items):
            out.update(rows)
    if len(out) > cap and keys is not None:
        out = one_per_key(out, keys, keep=set())
    return set(evenly_spaced_subset(sorted(out), cap))


def _steer_by_intent(must: dict[str, set[int]], intents: frozenset[str], items: Sequence[Any],
                     stats: dict[str, FieldStats], roles: FieldRoles, n: int) -> None:
    """What the question asks for joins the must-keep items: the first/last items, the
    items holding each metric's extremes."""
    if "first" in intents:
        must[EDGES].update(range(min(n, _INTENT_EDGE)))
    if "last" in intents:
        must[EDGES].update(range(max(0, n - _INTENT_EDGE), n))
    if "extreme" in intents:
        ext = must.setdefault(EXTREMES, set())
        fields = [name for name, fs in stats.items()
                  if name != roles.timestamp and fs.is_numeric and not fs.monotonic and fs.distinct >= 3]
        # With one measure (a du listing's sizes) the question ranks by it: keep its top
        # few, since "the biggest file" is rarely the largest entry (a directory holding
        # it is larger). With several (metrics), the largest and smallest of each.
        top = _TOP_K if len(fields) == 1 else 1
        for name in fields:
            if stats[name].numbers is None:
                continue
            where, values = stats[name].numbers
            if not len(values):
                continue
            if top == 1:
                # The ends of the stable order below, without sorting: the last position
                # holding the largest value, the first holding the smallest.
                ext.add(int(where[len(values) - 1 - int(np.argmax(values[::-1]))]))
                ext.add(int(where[int(np.argmin(values))]))
                continue
            # A stable sort ranks equal values by position, as sorting (value, index) did.
            order = np.argsort(values, kind="stable")
            ext.update(where[order[-top:]].tolist())
            ext.update(where[order[:min(3, top)]].tolist())


def plan_scalars(items: list[Any], texts: list[str], *, threshold: float, first: int, last: int,
                 max_items: int, aggressiveness: float, anchors: Anchors, query: str,
                 score: Callable[[list[str]], list[float]]) -> KeepPlan:
    """Keep plan for an array of numbers/strings: min and max, outliers, level shifts, error
    strings, anchors, edges; filler skips values already kept."""
    n = len(items)
    where, values = numeric_values(items)
    anomalies: set[int] = set()
    extremes: set[int] = set()
    change_points: set[int] = set()
    shifts = 0
    if len(values):
        # argmin/argmax pick the first of equal extremes.
        extremes.update((int(where[values.argmin()]), int(where[values.argmax()])))
        anomalies.update(where[outlier_positions(values, threshold, max_items)].tolist())
        for p in change_point_positions(values, threshold):
            change_points.update((int(where[p - 1]), int(where[p])))
            shifts += 1
    index = RowIndex(texts)
    errors = {i for i, v in enumerate(items) if isinstance(v, str) and is_error_item(v)} | rows_with_error_text(index)
    must = {ERRORS: errors, ANOMALIES: anomalies, CHANGE_POINTS: change_points,
            ANCHORS: anchor_indices(index, anchors) | rare_word_indices(index, query),
            EDGES: edge_indices(n, first, last), EXTREMES: extremes}
    all_must = set().union(*must.values())
    slots = target_size(max_items, aggressiveness)
    rankings = [relevance_ranking(index, query, score, slots), evenly_spaced(n, max(slots * 4, slots)), range(n)]
    kept = fill(n, all_must, max(slots, len(all_must)), rankings, dedupe=[hashable(v) for v in items])
    return KeepPlan(kept, must, shifts)
