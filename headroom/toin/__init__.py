"""TOIN, tool-output intelligence: patterns learned per tool-output *structure* from
compressions, retrievals and questions, that steer later compressions.

Counts, types, rates and keyed hashes only: no value of a tool output is ever stored.
Use :func:`toin_from_config` for the instance a config describes (None when
``toin.enabled`` is off).
"""

from __future__ import annotations

from typing import Any

from .backends import MemoryToinBackend, RedisToinBackend, SQLiteToinBackend, backend_from_config
from .learner import Toin
from .patterns import Pattern, ToinHints
from .signature import Profile, profile


def toin_from_config(config: Any) -> Toin | None:
    """The learner a :class:`~headroom.config.HeadroomConfig` asks for, or None when off."""
    if not config.toin.enabled:
        return None
    # The suggested budget may grow up to 4x the crusher's item cap, never past it.
    return Toin(backend_from_config(config), config.toin, max_budget=4 * config.smart_crusher.max_items_after_crush)


__all__ = [
    "MemoryToinBackend",
    "Pattern",
    "Profile",
    "RedisToinBackend",
    "SQLiteToinBackend",
    "Toin",
    "ToinHints",
    "backend_from_config",
    "profile",
    "toin_from_config",
]
