"""Lossless table rendering of an array of JSON objects, and its parser.

Repeating every key in every object is most of what a JSON array of records costs. The
table names the keys once and then writes one line per item::

    @table rows=3 (each row: JSON array of the values for @keys, minus @const keys)
    @keys ["ts","host","cpu","region"]
    @const {"region":"eu-1"}
    ["2024-05-01T00:00:00Z","web-1",0.41]
    ["2024-05-01T00:01:00Z","web-2",0.43]
    ["2024-05-01T00:02:00Z","web-1",0.97]

Rules (what makes it unambiguous):

- Every row is one line holding a JSON array (JSON escapes newlines, so a value never
  spans lines); directive lines start with ``@``, rows with ``[``.
- ``@keys`` starts a section: a run of consecutive items with exactly these keys in this
  order. A new key order (or key set) starts a new section, so missing keys and key order
  round-trip exactly.
- ``@const`` (optional, right after ``@keys``) holds keys whose value is the same in every
  item of the section; rows omit them.
- A row lists the values of the section's non-constant keys in ``@keys`` order.

``parse_table`` inverts ``render_table``: the parsed items equal ``json.loads`` of the
original, key order included.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from operator import itemgetter
from typing import Any

from .compact import dumps, dumps_many, index_text, index_texts
from .stats import hashable

HEADER = "@table rows={n} (each row: JSON array of the values for @keys, minus @const keys)"
# Sections of fewer rows than this do not get a @const line: it would not pay for itself.
_MIN_ROWS_FOR_CONST = 3


@dataclass
class Table:
    text: str
    # rows[i] is the rendered value list of item i (reused as the item's searchable text).
    rows: list[str]
    sections: int


@dataclass(frozen=True)
class Section:
    """A run of items ``[start, end)`` with exactly these ``keys``; ``const`` holds the
    keys whose value is the same in every item of the run (left out of the rows)."""

    keys: tuple
    start: int
    end: int
    const: dict[str, Any]

    @property
    def varying(self) -> list[str]:
        return [k for k in self.keys if k not in self.const]

    def header(self) -> list[str]:
        lines = ["@keys " + dumps(list(self.keys))]
        if self.const:
            lines.append("@const " + dumps(self.const))
        return lines


def _sections(items: list[dict]) -> list[tuple[tuple, int, int]]:
    out: list[tuple[tuple, int, int]] = []
    start = 0
    keys = tuple(items[0])
    for i in range(1, len(items)):
        k = tuple(items[i])
        if k != keys:
            out.append((keys, start, i))
            keys, start = k, i
    out.append((keys, start, len(items)))
    return out


def _constant_keys(items: list[dict], keys: tuple) -> dict[str, Any]:
    const: dict[str, Any] = {}
    first = items[0]
    for k in keys:
        v0, t0 = first[k], type(first[k])
        if t0 in (dict, list, float):  # compare as JSON text: key order, 1.0 vs 1, NaN
            h = hashable(v0)
            same = all(hashable(it[k]) == h for it in items)
        else:
            same = all(type(it[k]) is t0 and it[k] == v0 for it in items)
        if same:
            const[k] = v0
    return const


def plan_table(items: list[Any], *, factor_constants: bool = True,
               max_section_ratio: float = 0.25) -> list[Section] | None:
    """The table's sections for ``items``, or None when they are not records or not
    regular enough. Cheap next to rendering the rows."""
    if not items or not all(isinstance(it, dict) for it in items):
        return None
    runs = _sections(items)
    if len(runs) > max(2, int(len(items) * max_section_ratio)):
        return None
    out = []
    for keys, start, end in runs:
        chunk = items[start:end]
        const = _constant_keys(chunk, keys) if factor_constants and len(chunk) >= _MIN_ROWS_FOR_CONST else {}
        out.append(Section(keys, start, end, const))
    return out


def section_rows(items: list[dict], section: Section, encode: Callable[[Any], str] = dumps,
                 indices: Iterable[int] | None = None) -> list[str]:
    """Rows of one section (or of the given item indices in it), rendered by ``encode``."""
    picked = items[section.start:section.end] if indices is None else [items[i] for i in indices]
    values: list[list | tuple]
    if not section.const:
        values = [list(it.values()) for it in picked]
    else:
        # Tuples of the varying values (JSON writes them as arrays, like lists), taken
        # by one itemgetter call per item; zip makes 1-tuples of a single key's values.
        varying = section.varying
        if len(varying) > 1:
            values = list(map(itemgetter(*varying), picked))
        elif varying:
            values = list(zip(map(itemgetter(varying[0]), picked)))
        else:
            values = [()] * len(picked)
    if encode is dumps:
        return dumps_many(values)
    if encode is index_text:
        return index_texts(values)
    return [encode(list(v)) for v in values]


def render_sections(items: list[dict], sections: list[Section]) -> Table:
    lines = [HEADER.format(n=len(items))]
    rows: list[str] = []
    for sec in sections:
        lines.extend(sec.header())
        sec_rows = section_rows(items, sec)
        rows.extend(sec_rows)
        lines.extend(sec_rows)
    return Table("\n".join(lines), rows, len(sections))


def render_table(items: list[Any], *, factor_constants: bool = True, max_section_ratio: float = 0.25) -> Table | None:
    """The table for ``items``, or None when they are not records or not regular enough."""
    sections = plan_table(items, factor_constants=factor_constants, max_section_ratio=max_section_ratio)
    return render_sections(items, sections) if sections is not None else None


def estimate_table_tokens(items: list[dict], sections: list[Section], counter, sample: int = 64) -> int:
    """Tokens of the rendered table, from its header lines and ``sample`` evenly spaced
    rows (rows are alike, so their mean length in tokens carries over)."""
    n = len(items)
    header = [HEADER.format(n=n)] + [ln for sec in sections for ln in sec.header()]
    picks = sorted({round(i * (n - 1) / (sample - 1)) for i in range(sample)}) if n > sample else list(range(n))
    rows: list[str] = []
    for sec in sections:
        inside = [i for i in picks if sec.start <= i < sec.end]
        if inside:
            rows.extend(section_rows(items, sec, indices=inside))
    row_tokens = counter.quick_count("\n".join(rows)) + 1  # + the newline before the first row
    return counter.quick_count("\n".join(header)) + round(row_tokens * n / len(picks))


def parse_table(text: str) -> list[dict]:
    """Items back from a rendered table. Raises ValueError on anything malformed."""
    lines = text.split("\n")
    if not lines or not lines[0].startswith("@table "):
        raise ValueError("not a headroom table: missing @table header")
    items: list[dict] = []
    keys: list[str] | None = None
    const: dict[str, Any] = {}
    varying: list[str] = []
    for ln in lines[1:]:
        if ln.startswith("@keys "):
            keys = json.loads(ln[6:])
            const, varying = {}, list(keys)
        elif ln.startswith("@const "):
            if keys is None:
                raise ValueError("@const before @keys")
            const = json.loads(ln[7:])
            varying = [k for k in keys if k not in const]
        else:
            if keys is None:
                raise ValueError("row before @keys")
            row = json.loads(ln)
            if not isinstance(row, list) or len(row) != len(varying):
                raise ValueError(f"row has {len(row) if isinstance(row, list) else '?'} values, expected {len(varying)}")
            values = iter(row)
            items.append({k: const[k] if k in const else next(values) for k in keys})
    return items
