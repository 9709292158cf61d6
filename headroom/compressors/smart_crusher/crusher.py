"""SmartCrusher: the JSON compressor behind the ContentRouter.

Order of preference:

1. **Lossless** — an array of objects becomes a compact table (keys once, one row per
   item, see :mod:`.table`); anything else is re-serialised without whitespace. If that
   alone saves ``lossless_min_savings`` of the tokens it is returned with ``lossy=False``:
   nothing is lost, so the router stores nothing in CCR.
2. **Lossy keep plan** — otherwise the array is analysed (field statistics, pattern) and
   only the items that matter survive (see :mod:`.keep_plan`). The output is still valid
   JSON; the router stores the original and appends the retrieval marker.
3. **Nested** — an object (or a short array) whose values hold long arrays keeps its
   shape; each long inner array is crushed by the same keep plan.

The router owns CCR, markers, memo, deadline and "never worse"; this module only
answers "what is the smaller text, and how many items does it keep".
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from ...query.names import named_by_parts
from ...toin import steer as toin_steer
from ...tokens import QUICK_EXACT_CHARS, QUICK_WINDOW_CHARS, QUICK_WINDOWS
from ..base import Compressed, CompressInput
from ..bm25_fast import relevance_scores
from ..detect import first_visible_char, parse_json
from ..tables.records import select_records
from .asked_field import AskedExtreme, asked_extreme
from .compact import dumps, index_text, index_texts
from .extreme_plan import grouped_items, plan_asked_extreme
from .keep_plan import KeepPlan, plan_records, plan_scalars, summarize
from .maps import extreme_positions, map_rows, map_shape, omitted_note, row_texts
from .patterns import Pattern, detect_pattern, find_roles
from .stats import FieldStats, field_stats
from .table import (
    Section,
    estimate_table_tokens,
    plan_table,
    render_sections,
    section_rows,
)
from .tree import compress_tree

if TYPE_CHECKING:
    from ...config import SmartCrusherConfig

# Sampling for the minify estimate: the token counter's quick_count() windows.
_SAMPLE_CHUNKS, _CHUNK_CHARS = QUICK_WINDOWS, QUICK_WINDOW_CHARS
_MAX_DEPTH = 32
CONSTANT_KEY, ITEMS_KEY = "_constant", "items"


@dataclass
class CrushedArray:
    items: list[Any]
    plan: KeepPlan
    pattern: Pattern
    stats: dict[str, FieldStats] = field(default_factory=dict)


def _is_scalar(v: Any) -> bool:
    return v is None or isinstance(v, (str, int, float, bool))


# A JSON string literal (raw newlines cannot occur in one), or whitespace outside them.
_STRING_OR_SPACE = re.compile(r'("(?:[^"\\\n]|\\.)*")|[ \t\r\n]+')
# Estimates that miss the bar by more than this share skip the exact check.
_CLEAR_MISS = 1.15
_TABLE_SAMPLE_ROWS = 64
# Lossy output is rendered as a table (see _render_lossy) only from this many kept rows
# and when it is this much shorter than the JSON forms.
_LOSSY_TABLE_MIN_ROWS, _LOSSY_TABLE_MARGIN = 30, 0.8


def minified_estimate(text: str, counter) -> int | None:
    """Tokens of ``text`` minified (whitespace outside strings removed), estimated from
    evenly spaced runs of whole lines minified on their own, without serialising the
    whole value. A raw newline never sits inside a valid JSON string, so a run of whole
    lines holds whole strings. None when the text is too small or its lines too long to
    sample that way."""
    if len(text) <= 2 * QUICK_EXACT_CHARS:
        return None
    step = len(text) // _SAMPLE_CHUNKS
    pieces = []
    for i in range(_SAMPLE_CHUNKS):
        start = text.find("\n", i * step, i * step + _CHUNK_CHARS)
        end = text.rfind("\n", start + 1, start + 1 + _CHUNK_CHARS) if start != -1 else -1
        if end > start:
            pieces.append(text[start + 1:end])
    sampled = sum(len(p) for p in pieces)
    if sampled < _CHUNK_CHARS * _SAMPLE_CHUNKS // 4:
        return None
    minified = "".join(_STRING_OR_SPACE.sub(lambda m: m.group(1) or "", p) for p in pieces)
    return round(counter.count(minified) * len(text) / sampled)


def item_texts(items: list[Any]) -> list[str]:
    """Searchable text per item: an object's values only (its keys are in every item,
    so they would make every item match a question that names a field)."""
    return index_texts([list(it.values()) if isinstance(it, dict) else it for it in items])


def lossy_min_items(inp: CompressInput, asked: AskedExtreme | None = None) -> int:
    """Arrays shorter than this are never cut: below ``ccr.min_items_to_cache`` the
    retrieval round trip a cut invites costs more than the items it saves. Not so when
    the question asks an extreme of a field (``asked``): the marker lists that field of
    every item, so the reader has what it asked for without a round trip."""
    if asked is not None:
        return inp.config.smart_crusher.min_items_to_analyze
    return max(inp.config.smart_crusher.min_items_to_analyze, inp.config.ccr.min_items_to_cache)


def render_array(items: list[Any]) -> str:
    """Valid JSON, one item per line: compact but still easy for a model to scan."""
    if not items:
        return "[]"
    return "[\n" + ",\n".join(dumps(it) for it in items) + "\n]"


def render_factored(items: list[dict], constants: dict[str, Any]) -> str:
    """``{"_constant": {...}, "items": [...]}`` with the constant keys left out of each item."""
    rows = ",\n".join(dumps({k: v for k, v in it.items() if k not in constants}) for it in items)
    return "{" + f'"{CONSTANT_KEY}":{dumps(constants)},"{ITEMS_KEY}":[\n{rows}\n]' + "}"


def json_form_lengths(items: list[dict], sections: list[Section], rows: list[str],
                      constants: dict[str, Any] | None) -> tuple[int, int | None] | None:
    """Exact ``len(render_array(items))`` and ``len(render_factored(items, constants))``
    (None when ``constants`` is None) from the items' table rows, without rendering either.

    A row is ``dumps`` of the values of the section's varying keys; the item's JSON adds
    ``dumps(key) + ":"`` per key, the section's constant values (``@const`` holds only
    values whose JSON text is the same in every item of the section) and one comma per
    pair. ``rows`` are the table's rows, section by section (``render_sections``). None
    when a key is not a string (``dumps`` of a dict writes ``1`` as ``"1"``).
    """
    n = len(items)
    if not n:
        return None
    plain = 4 + 2 * (n - 1)  # "[\n" ... "\n]" and ",\n" between items
    factored = len(render_factored([], constants)) + 2 * (n - 1) if constants is not None else None
    for sec in sections:
        if not all(type(k) is str for k in sec.keys):
            return None
        m = sec.end - sec.start
        key_len = {k: len(dumps(k)) + 1 for k in sec.keys}  # '"key":'
        const_len = {k: len(dumps(v)) for k, v in sec.const.items()}
        n_keys, n_varying = len(sec.keys), len(sec.keys) - len(sec.const)
        # An item's JSON is its row minus the row's brackets and commas, plus its own.
        fixed = 2 + sum(key_len.values()) + sum(const_len.values()) + max(n_keys - 1, 0)
        row_chars = sum(map(len, rows[sec.start:sec.end])) - m * (2 + max(n_varying - 1, 0))
        plain += m * fixed + row_chars
        if factored is None:
            continue
        # The factored item drops the pairs of the array-wide constants it holds.
        dropped = [k for k in sec.keys if k in constants]
        kept_keys = n_keys - len(dropped)
        less = sum(key_len[k] for k in dropped) + sum(const_len[k] for k in dropped if k in const_len)
        less += max(n_keys - 1, 0) - max(kept_keys - 1, 0)
        factored += m * (fixed - less) + row_chars
        varying_dropped = [k for k in dropped if k not in const_len]
        if varying_dropped:  # equal but not alike in every item (0.0 and -0.0): measure each
            factored -= sum(len(dumps(it[k])) for it in items[sec.start:sec.end] for k in varying_dropped)
    return plain, factored


class CrushedList(list):
    """An inner array after its keep plan: rendered one item per line, like top-level ones."""


class CrushedMap(dict):
    """A map-shaped object after its keep plan: one kept entry per line."""


def render_nested(value: Any) -> str:
    """Compact JSON, except that crushed inner arrays and maps put each kept item on its own line."""
    if isinstance(value, CrushedList):
        return render_array(value)
    if isinstance(value, CrushedMap):
        return "{\n" + ",\n".join(f"{dumps(k)}:{render_nested(v)}" for k, v in value.items()) + "\n}"
    if isinstance(value, dict):
        return "{" + ",".join(f"{dumps(k)}:{render_nested(v)}" for k, v in value.items()) + "}"
    if isinstance(value, list):
        return "[" + ",".join(render_nested(v) for v in value) + "]"
    return dumps(value)


class SmartCrusher:
    name = "smart_crusher"

    def compress(self, inp: CompressInput) -> Compressed | None:
        cfg = inp.config.smart_crusher
        if not cfg.enabled:
            return None
        if first_visible_char(inp.text) not in ("[", "{"):
            return None
        # The router hands over the value content detection parsed; parse only if called alone.
        data = inp.parsed if isinstance(inp.parsed, (list, dict)) else parse_json(inp.text)
        if data is None:
            return None
        try:
            # The table plan needs no token count: it runs while the router still counts.
            sections = plan_table(data, factor_constants=cfg.factor_constants) \
                if isinstance(data, list) and len(data) >= cfg.min_items_to_analyze else None
            tokens = inp.text_tokens()
            if tokens < cfg.min_tokens_to_crush:
                return None
            tree = compress_tree(data, tokens, inp)  # recursive trees (see .tree)
            if tree is not None:
                return tree
            if isinstance(data, list) and len(data) >= cfg.min_items_to_analyze:
                return self._compress_array(data, sections, tokens, inp, cfg)
            if isinstance(data, (list, dict)):
                return self._compress_nested(data, tokens, inp, cfg)
        except RecursionError:  # absurdly deep nesting: not worth a fight
            return None
        return None

    # -- top-level arrays -------------------------------------------------------------

    def _compress_array(self, data: list, sections: list[Section] | None, tokens: int, inp: CompressInput,
                        cfg: SmartCrusherConfig) -> Compressed | None:
        bar = tokens * (1 - cfg.lossless_min_savings)
        asked = asked_extreme(data, inp.query)
        if len(data) >= lossy_min_items(inp, asked) and self._lossless_clearly_misses(data, sections, bar, inp):
            # Lossless cannot win: skip rendering it. Table-shaped rows are still the
            # items' search text, rendered by the fast encoder (search only, not output).
            texts = ([r for sec in sections for r in section_rows(data, sec, encode=index_text)]
                     if sections is not None else item_texts(data))
            return self._crush_top_level(data, texts, tokens, inp, cfg, asked)
        table = render_sections(data, sections) if sections is not None else None
        lossless_text = table.text if table is not None else dumps(data)
        lossless_tokens = inp.counter.quick_count(lossless_text)
        lossless = Compressed(lossless_text, len(data), len(data), "table" if table else "minify", lossy=False)
        if lossless_tokens <= bar:
            return lossless
        if len(data) < lossy_min_items(inp, asked):
            # Too short to cut at this level: long arrays inside the items may still go;
            # failing that, the lossless form if it saves enough for the router at all.
            nested = self._compress_nested(data, tokens, inp, cfg, lossless_tried=True)
            if nested is None and lossless_tokens <= tokens * (1 - inp.config.router.min_savings):
                return lossless
            return nested
        return self._crush_top_level(data, table.rows if table is not None else item_texts(data), tokens, inp, cfg,
                                     asked)

    def _lossless_clearly_misses(self, data: list, sections: list[Section] | None, bar: float,
                                 inp: CompressInput) -> bool:
        """A sampled estimate puts the lossless form well above the bar (a table from 64
        evenly spaced rows, minified JSON from runs of the original's lines), so it need
        not be rendered whole to be sure. Close calls get the full render."""
        if sections is not None:
            if len(data) <= _TABLE_SAMPLE_ROWS:
                return False
            return estimate_table_tokens(data, sections, inp.counter, _TABLE_SAMPLE_ROWS) > bar * _CLEAR_MISS
        rough = minified_estimate(inp.text, inp.counter)
        return rough is not None and rough > bar * _CLEAR_MISS

    def _crush_top_level(self, data: list, texts: list[str], tokens: int, inp: CompressInput,
                         cfg: SmartCrusherConfig, asked: AskedExtreme | None) -> Compressed | None:
        numeric = select_records(data, texts, tokens, inp) if asked is None else None  # mostly numeric: a table
        if numeric is not None:
            summary = "; ".join(p for p in (numeric.summary(), f"column ranges: {numeric.columns}") if p)
            return Compressed(render_array([data[i] for i in numeric.kept]), len(data), len(numeric.kept),
                              "numeric_table", lossy=True, summary=summary)
        crushed = self.crush_array(data, texts, inp, cfg, asked)
        if len(crushed.items) >= len(data):
            # Nothing can go at this level; long arrays inside the items still might.
            return self._compress_nested(data, tokens, inp, cfg, lossless_tried=True)
        text, factored = self._render_lossy(crushed, cfg)
        strategy = crushed.pattern.value + ("+constants" if factored else "")
        return Compressed(text, len(data), len(crushed.items), strategy, lossy=True, summary=crushed.plan.summary())

    def crush_array(self, data: list, texts: list[str], inp: CompressInput, cfg: SmartCrusherConfig,
                    asked: AskedExtreme | None = None) -> CrushedArray:
        """Apply the keep plan to one array (already long enough to analyse); ``asked``:
        the extreme the question asks of a field of its items, when known."""
        common: dict[str, Any] = {
            "first": cfg.first_items, "last": cfg.last_items,
            "max_items": toin_steer.budget(inp.toin, cfg.max_items_after_crush),
            "aggressiveness": inp.aggressiveness, "anchors": inp.anchors, "query": inp.query,
            "score": lambda items: relevance_scores(inp, items),  # BM25's floats, for less
        }
        if asked is not None:  # "which item has the most comments?" of a nested listing
            plan = plan_asked_extreme(data, texts, asked, inp.anchors)
            return CrushedArray([data[i] for i in plan.kept], plan, Pattern.GENERIC)
        if all(_is_scalar(v) for v in data):
            plan = plan_scalars(data, texts, threshold=cfg.variance_threshold, **common)
            return CrushedArray([data[i] for i in plan.kept], plan, Pattern.GENERIC)
        # Rows given as arrays (``[[ts, value], ...]``) get the same column statistics,
        # with positions as field names.
        view = [{f"[{j}]": v for j, v in enumerate(it)} if type(it) is list else it for it in data]
        stats = field_stats(view, cfg.variance_threshold, outlier_cap=cfg.max_items_after_crush)
        roles = find_roles(view, stats)
        pattern = detect_pattern(roles)
        plan = plan_records(data, texts, stats, roles, pattern, rare_max=inp.config.router.rare_max, **common)
        plan = toin_steer.steer_plan(plan, data, inp.toin)  # learned fields (headroom.toin)
        return CrushedArray([data[i] for i in plan.kept], plan, pattern, stats)

    def _render_lossy(self, crushed: CrushedArray, cfg: SmartCrusherConfig) -> tuple[str, bool]:
        """The kept items as plain JSON, as factored JSON (array-wide constants named once)
        when that is shorter (fewer characters means fewer tokens here: the same rows
        minus the constant pairs, plus one header), or as a table when it beats the better
        JSON form by a clear margin: many kept records repeat their keys on every line,
        the table names them once, but plain JSON is what a reader parses without a legend.

        The table (from _LOSSY_TABLE_MIN_ROWS rows) is rendered first: its rows give the
        exact length of both JSON forms (:func:`json_form_lengths`), so only the form that
        is returned gets rendered."""
        items = crushed.items
        constants = {name: fs.constant_value for name, fs in crushed.stats.items() if fs.constant}
        factor = bool(cfg.factor_constants and constants and all(isinstance(it, dict) for it in items))
        table, lengths = None, None
        plain = factored = None
        if len(items) >= _LOSSY_TABLE_MIN_ROWS:
            sections = plan_table(items, factor_constants=cfg.factor_constants)
            if sections is not None:
                table = render_sections(items, sections)
                lengths = json_form_lengths(items, sections, table.rows, constants if factor else None)
        if lengths is None:
            plain = render_array(items)
            factored = render_factored(items, constants) if factor else None
            lengths = len(plain), (len(factored) if factored is not None else None)
        plain_len, factored_len = lengths
        use_factored = factored_len is not None and factored_len < plain_len
        if table is not None and len(table.text) < _LOSSY_TABLE_MARGIN * (factored_len if use_factored else plain_len):
            return table.text, bool(constants)
        if use_factored:
            return (factored if factored is not None else render_factored(items, constants)), True
        return (plain if plain is not None else render_array(items)), False

    # -- objects (and short arrays) holding long arrays ------------------------------

    def _compress_nested(self, data: list | dict, tokens: int, inp: CompressInput, cfg: SmartCrusherConfig,
                         *, lossless_tried: bool = False) -> Compressed | None:
        bar = tokens * (1 - cfg.lossless_min_savings)
        if not lossless_tried:
            # Pretty-printed JSON sheds ~30 % when minified, rarely the 70 % asked for: a
            # sampled estimate rules that out before serialising megabytes to be sure.
            rough = minified_estimate(inp.text, inp.counter)
            if rough is not None and rough > bar * _CLEAR_MISS:
                lossless_tried = True
        if not lossless_tried:
            minified = dumps(data)
            if inp.counter.quick_count(minified) <= bar:
                n = len(data) if isinstance(data, list) else 1
                return Compressed(minified, n, n, "minify", lossy=False)
        totals = {"before": 0, "after": 0}
        plans: list[KeepPlan] = []
        notes: list[str] = []
        new = self._crush_inner(data, inp, cfg, totals, plans, depth=0, notes=notes)
        if not plans or totals["after"] >= totals["before"]:
            return None
        summary = "; ".join(p for p in (_merge_summaries(plans), *notes) if p)
        return Compressed(render_nested(new), totals["before"], totals["after"], "nested", lossy=True, summary=summary)

    def _crush_inner(self, value: Any, inp: CompressInput, cfg: SmartCrusherConfig,
                     totals: dict[str, int], plans: list[KeepPlan], depth: int,
                     notes: list[str], name: str | None = None) -> Any:
        if depth > _MAX_DEPTH:
            return value
        if isinstance(value, dict):
            crushed = self._crush_grouped(value, inp, cfg, totals, plans, notes, name)
            if crushed is None:
                crushed = self._crush_map(value, inp, cfg, totals, plans, depth, notes, name)
            if crushed is not None:
                return crushed
            return {k: self._crush_inner(v, inp, cfg, totals, plans, depth + 1, notes, k) for k, v in value.items()}
        if not isinstance(value, list):
            return value
        asked = asked_extreme(value, inp.query) if len(value) >= cfg.min_items_to_analyze else None
        if len(value) >= lossy_min_items(inp, asked):
            texts = item_texts(value)
            # Rough size check (4 characters per token): tiny arrays are not worth a marker.
            if sum(len(t) for t in texts) >= 4 * cfg.min_tokens_to_crush:
                crushed = self.crush_array(value, texts, inp, cfg, asked)
                if len(crushed.items) < len(value):
                    totals["before"] += len(value)
                    totals["after"] += len(crushed.items)
                    plans.append(crushed.plan)
                    return CrushedList(crushed.items)
        return [self._crush_inner(v, inp, cfg, totals, plans, depth + 1, notes) for v in value]

    def _crush_grouped(self, value: dict, inp: CompressInput, cfg: SmartCrusherConfig, totals: dict[str, int],
                       plans: list[KeepPlan], notes: list[str], name: str | None) -> CrushedMap | None:
        """A listing grouped by key (version → release files) asked for an extreme of a
        field: the groups' items are one listing for the asked-extreme plan; the groups
        holding a kept item stay, with only those items."""
        groups = grouped_items(value, cfg.min_items_to_analyze)
        if groups is None or len(groups) < cfg.min_items_to_analyze:
            return None
        items = [it for _, it in groups]
        asked = asked_extreme(items, inp.query)
        if asked is None:
            return None
        plan = plan_asked_extreme(items, item_texts(items), asked, inp.anchors)
        if len(plan.kept) >= len(items):
            return None
        totals["before"] += len(items)
        totals["after"] += len(plan.kept)
        plans.append(plan)
        kept: dict[Any, CrushedList] = {}
        for i in plan.kept:
            kept.setdefault(groups[i][0], CrushedList()).append(items[i])
        where = f"{dumps(name)}: " if name is not None else ""
        notes.append(f"{where}{len(value) - len(kept)} of {len(value)} groups omitted")
        return CrushedMap(kept)

    def _crush_map(self, value: dict, inp: CompressInput, cfg: SmartCrusherConfig, totals: dict[str, int],
                   plans: list[KeepPlan], depth: int, notes: list[str], name: str | None) -> CrushedMap | None:
        """A map-shaped object (see :mod:`.maps`) cut like an array of its entries; the
        kept entries' values are crushed in turn (a dependency tree's inner maps)."""
        shape = map_shape(value, lossy_min_items(inp))
        if shape is None:
            return None
        texts = row_texts(value)
        if sum(len(t) for t in texts) < 4 * cfg.min_tokens_to_crush:
            return None
        rows = map_rows(value, shape)
        crushed = self.crush_array(rows, texts, inp, cfg)
        keys = list(value)
        # Entries whose compound key the question spells out word by word
        # ("TcpActiveOpens" for "connections opened actively"): no text search finds them.
        kept = sorted(set(crushed.plan.kept) | extreme_positions(rows) | set(named_by_parts(keys, inp.query or "")))
        if len(kept) >= len(value):
            return None
        totals["before"] += len(value)
        totals["after"] += len(kept)
        plans.append(crushed.plan)
        notes.append(omitted_note(name, value, kept, shape))
        return CrushedMap((keys[i], self._crush_inner(value[keys[i]], inp, cfg, totals, plans, depth + 1, notes,
                                                      keys[i])) for i in kept)


def _merge_summaries(plans: list[KeepPlan]) -> str:
    totals: dict[str, int] = {}
    for p in plans:
        for reason, n in p.counts().items():
            totals[reason] = totals.get(reason, 0) + n
    return "; ".join(p for p in (summarize(totals), *(p.note for p in plans)) if p)
