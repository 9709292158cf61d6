"""Model prices and context windows from ``prices.json``, updatable without a release.

Prices change more often than code. The shipped table is read once; a user file named
by ``HEADROOM_PRICES_FILE`` (same shape, any subset of providers/models) is merged over
it, and :func:`update_prices` merges a dict at run time. Lookups match the longest table
key that prefixes the model name, so dated snapshots (``gpt-4o-2024-08-06``,
``claude-sonnet-4-5-20250929``) find their family.
"""

from __future__ import annotations

import json
import os
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

_SHIPPED = Path(__file__).with_name("prices.json")
_lock = threading.Lock()
_table: dict[str, dict[str, dict[str, Any]]] | None = None


@dataclass(frozen=True)
class ModelPrice:
    """USD per million tokens, and the context window in tokens."""

    model: str  # the table key that matched
    context: int
    input: float
    output: float
    cached_input: float | None = None  # prompt-cache reads
    cache_write: float | None = None  # Anthropic cache writes (5-minute TTL)


def _load_file(path: str | Path) -> dict[str, dict[str, dict[str, Any]]]:
    with open(path, encoding="utf-8") as f:
        raw = json.load(f)
    if not isinstance(raw, dict):
        raise TypeError(f"{path}: expected a JSON object of providers")
    return {p: models for p, models in raw.items() if not p.startswith("_") and isinstance(models, dict)}


def _merge(into: dict[str, dict[str, dict[str, Any]]], extra: dict[str, dict[str, dict[str, Any]]]) -> None:
    for provider, models in extra.items():
        target = into.setdefault(provider, {})
        for model, entry in models.items():
            if not isinstance(entry, dict):
                raise TypeError(f"price entry for {provider}/{model} must be an object")
            target[model] = {**target.get(model, {}), **entry}


def price_table() -> dict[str, dict[str, dict[str, Any]]]:
    """The merged table (shipped file, then ``HEADROOM_PRICES_FILE``, then updates)."""
    global _table
    with _lock:
        if _table is None:
            table = _load_file(_SHIPPED)
            user = os.environ.get("HEADROOM_PRICES_FILE")
            if user:
                _merge(table, _load_file(user))
            _table = table
        return _table


def update_prices(extra: dict[str, dict[str, dict[str, Any]]]) -> None:
    """Merge ``{"openai": {"gpt-4o": {"input": 2.5, ...}}}`` over the current table."""
    table = price_table()
    with _lock:
        _merge(table, extra)
        _found.clear()


def reset_prices() -> None:
    """Forget run-time updates; the next lookup re-reads the files."""
    global _table
    with _lock:
        _table = None
        _found.clear()


# (provider, model) -> its entry, found once: every call looks its model up several times
# (context window, provider, costs), each a scan of the provider's whole table. Cleared
# whenever the table changes; bounded.
_found: dict[tuple[str, str], ModelPrice | None] = {}


def lookup(provider: str, model: str | None) -> ModelPrice | None:
    """The price entry whose key is the longest prefix of ``model`` (case-insensitive)."""
    if not model:
        return None
    table = price_table()
    key = (provider, model)
    try:
        return _found[key]
    except KeyError:
        pass
    found = _lookup(table, provider, model)
    with _lock:
        if _table is table:  # not replaced meanwhile
            if len(_found) > 4096:
                _found.clear()
            _found[key] = found
    return found


def _lookup(table, provider: str, model: str) -> ModelPrice | None:
    name = model.lower().split("/")[-1]  # "openai/gpt-4o" (LiteLLM style) -> "gpt-4o"
    models = table.get(provider, {})
    best = max((k for k in models if name.startswith(k.lower())), key=len, default=None)
    if best is None:
        return None
    e = models[best]
    try:
        return ModelPrice(best, int(e["context"]), float(e["input"]), float(e["output"]),
                          _opt(e.get("cached_input")), _opt(e.get("cache_write")))
    except KeyError as exc:
        raise ValueError(f"price entry {provider}/{best} lacks {exc.args[0]!r}") from None


def _opt(v: Any) -> float | None:
    return None if v is None else float(v)
