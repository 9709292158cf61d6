"""Compact JSON text for values that came from ``json.loads``.

Every SmartCrusher stage renders many small values (table rows, kept items, searchable
item texts), so the per-call cost of serialising matters here. Two encoders:

- ``dumps``: the standard library's, for anything that is output (tables, kept items):
  exact, ``NaN`` and ``Infinity`` included.
- ``index_text``: orjson, five times faster, for text that is only searched (anchors,
  error text, relevance). It writes NaN and infinities as ``null`` and floats such as
  ``1e-05`` as ``0.00001``: harmless for search, wrong for output.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from itertools import repeat
from typing import Any

import orjson

# One encoder for every call: json.dumps() with non-default options builds a new encoder
# each time, which is a third of the cost of rendering a 10 000-row table.
_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))
# ``JSONEncoder.encode`` still sets up the C encoder on every call (~1 us): for a table
# of 10 000 one-line rows that is most of the cost, so build it once. No circular-
# reference markers: values come from json.loads, which cannot make cycles.
_C_ENCODE = (
    json.encoder.c_make_encoder(None, _ENCODER.default, json.encoder.encode_basestring, None, ":", ",",
                                False, False, True)
    if json.encoder.c_make_encoder is not None else None
)


def dumps(value: Any) -> str:
    """Compact JSON, non-ASCII kept as is (fewer tokens than \\u escapes)."""
    if _C_ENCODE is None or isinstance(value, str):
        return _ENCODER.encode(value)
    return "".join(_C_ENCODE(value, 0))


def index_text(value: Any) -> str:
    """Compact JSON for searching only (see the module docstring)."""
    try:
        return orjson.dumps(value).decode()
    except TypeError:  # orjson.JSONEncodeError: ints beyond 64 bits, lone surrogates
        return dumps(value)


def dumps_many(values: Sequence[list | tuple]) -> list[str]:
    """``[dumps(v) for v in values]`` for arrays (lists or tuples, which JSON writes
    alike), looped in C: no Python call per value."""
    if _C_ENCODE is None:
        return [dumps(v) for v in values]
    return list(map("".join, map(_C_ENCODE, values, repeat(0))))


def index_texts(values: Sequence[Any]) -> list[str]:
    """``[index_text(v) for v in values]``, looped in C while orjson takes every value."""
    try:
        return list(map(bytes.decode, map(orjson.dumps, values)))
    except TypeError:  # one value orjson refuses: each its own way
        return [index_text(v) for v in values]
