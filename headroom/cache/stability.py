"""Prefix-stability report: does each turn's request extend the previous one byte for byte?

Provider prompt caches (OpenAI automatic caching, Anthropic ``cache_control``, Gemini
implicit caching) only hit on an identical prefix. The tracker serialises each request
in cache order (tools, system prompt, then the conversation's items, as the format's
adapter reads them: ``prefix_view``), one element at a time, and compares it with the
previous turn of the same session.
"""

from __future__ import annotations

import hashlib
import json
import threading
from dataclasses import asdict, dataclass
from typing import Any

from ..formats import prefix_view


def prefix_elements(body: dict[str, Any], fmt: str | None = None) -> list[str]:
    """The request as the cache sees it: serialised tools, system and items, in order
    (``fmt``'s view of the body, or the detected format's)."""
    view = prefix_view(body, fmt)
    dumps = lambda x: json.dumps(x, ensure_ascii=False, separators=(",", ":"))
    out = [dumps(t) for t in view.tools or []]
    if view.system is not None:
        out.append(dumps(view.system))
    out.extend(dumps(m) for m in view.items)
    return out


@dataclass
class TurnStability:
    turn: int
    elements: int  # tools + system + messages in this request
    stable_elements: int  # leading elements identical to the previous turn's
    stable_bytes: int  # UTF-8 bytes of those elements
    total_bytes: int
    prefix_hash: str  # hash of this turn's whole serialised request
    extends_previous: bool  # the previous request is a prefix of this one

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


class PrefixTracker:
    """Per-session history of :class:`TurnStability`; thread-safe."""

    def __init__(self) -> None:
        self._last: dict[str, list[str]] = {}
        self._turns: dict[str, list[TurnStability]] = {}
        self._lock = threading.Lock()

    def observe(self, body: dict[str, Any], session: str = "default", fmt: str | None = None) -> TurnStability:
        elems = prefix_elements(body, fmt)
        with self._lock:
            prev = self._last.get(session)
            stable = 0
            if prev is not None:
                for a, b in zip(prev, elems):
                    if a != b:
                        break
                    stable += 1
            digest = hashlib.sha256("\x00".join(elems).encode("utf-8", "surrogatepass")).hexdigest()[:16]
            turns = self._turns.setdefault(session, [])
            t = TurnStability(
                turn=len(turns) + 1,
                elements=len(elems),
                stable_elements=stable,
                stable_bytes=sum(len(e.encode()) for e in elems[:stable]),
                total_bytes=sum(len(e.encode()) for e in elems),
                prefix_hash=digest,
                extends_previous=prev is not None and stable == len(prev),
            )
            turns.append(t)
            self._last[session] = elems
            return t

    def report(self, session: str | None = None) -> dict[str, list[dict[str, Any]]]:
        with self._lock:
            keys = [session] if session is not None else list(self._turns)
            return {k: [t.to_dict() for t in self._turns.get(k, [])] for k in keys}

    def all_extend(self, session: str = "default") -> bool:
        """True when every turn after the first extended its predecessor."""
        with self._lock:
            turns = self._turns.get(session, [])
            return all(t.extends_previous for t in turns[1:])
