"""The router's two touch points with TOIN, kept here so the router stays small.

Learning must never cost a request its compression: a failing backend (Redis down, a
locked file) is logged and the output is compressed as if TOIN were off.
"""

from __future__ import annotations

import logging
from typing import Any

from .patterns import ToinHints
from .signature import Profile

log = logging.getLogger("headroom.toin")


def steer(toin: Any, parsed: Any, content_type: str, tool_name: str | None) -> tuple[Profile | None, ToinHints | None]:
    """Profile an output and look up its hints (None, None when TOIN is off or failing)."""
    if toin is None:
        return None, None
    try:
        prof = toin.profile(parsed, content_type, tool_name)
        return prof, toin.hints(prof)
    except Exception:
        log.warning("TOIN lookup failed; compressing without hints", exc_info=True)
        return None, None


def probe(text_hash: str, every: int) -> bool:
    """One output in ``every`` is compressed even when its pattern says skip, so the
    pattern keeps learning; chosen by content hash, so a re-sent output decides the same."""
    return int(text_hash[:8], 16) % every == 0


def observe(toin: Any, method: str, *args: Any, **kw: Any) -> None:
    """Call ``toin.<method>(...)``, logging instead of raising."""
    if toin is None:
        return
    try:
        getattr(toin, method)(*args, **kw)
    except Exception:
        log.warning("TOIN %s failed", method, exc_info=True)
