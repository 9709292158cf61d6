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
from dataclasses import dataclass
from typing import Any

from .compact import dumps
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


def render_table(items: list[Any], *, factor_constants: bool = True, max_section_ratio: float = 0.25) -> Table | None:
    """The table for ``items``, or None when they are not records or not regular enough."""
    if not items or not all(isinstance(it, dict) for it in items):
        return None
    sections = _sections(items)
    if len(sections) > max(2, int(len(items) * max_section_ratio)):
        return None
    lines = [HEADER.format(n=len(items))]
    rows: list[str] = []
    for keys, start, end in sections:
        chunk = items[start:end]
        lines.append("@keys " + dumps(list(keys)))
        const = _constant_keys(chunk, keys) if factor_constants and len(chunk) >= _MIN_ROWS_FOR_CONST else {}
        if const:
            lines.append("@const " + dumps(const))
        varying = [k for k in keys if k not in const]
        if len(varying) == len(keys):
            rows.extend(dumps(list(it.values())) for it in chunk)
        else:
            rows.extend(dumps([it[k] for k in varying]) for it in chunk)
        lines.extend(rows[start:end])
    return Table("\n".join(lines), rows, len(sections))


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
