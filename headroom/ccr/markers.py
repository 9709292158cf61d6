"""The retrieval marker appended to every lossy compression.

Format (kept from the seed project so existing prompts and tools recognise it):
``[{N} items compressed to {M}.{summary} Retrieve more: hash={hash}. Expires in {ttl}m.]``
"""

from __future__ import annotations

import re

MARKER_RE = re.compile(
    r"\[(?P<n>\d+) items compressed to (?P<m>\d+)\.(?P<summary>[^\[\]]*?) "
    r"Retrieve more: hash=(?P<hash>[0-9a-f]{24})\. Expires in (?P<ttl>\d+)m\.\]"
)
HASH_RE = re.compile(r"hash=([0-9a-f]{24})")
# Shortened tool-call arguments name their hash inline instead of carrying a marker.
INLINE_RE = re.compile(r"headroom_retrieve hash=(?P<hash>[0-9a-f]{24})")


def format_marker(items_before: int, items_after: int, hash: str, ttl_seconds: int, summary: str = "") -> str:
    summary = summary.replace("[", "(").replace("]", ")").strip()
    if summary and summary[-1] not in ".!?":
        summary += "."
    summary = f" {summary}" if summary else ""
    minutes = max(1, ttl_seconds // 60)
    return f"[{items_before} items compressed to {items_after}.{summary} Retrieve more: hash={hash}. Expires in {minutes}m.]"


def find_hashes(text: str) -> list[str]:
    """CCR hashes referenced by markers in ``text``, in order, without duplicates."""
    found = [(m.start(), m.group("hash")) for rx in (MARKER_RE, INLINE_RE) for m in rx.finditer(text)]
    seen: dict[str, None] = {}
    for _, h in sorted(found):
        seen.setdefault(h)
    return list(seen)


def has_marker(text: str | None) -> bool:
    """True when ``text`` references CCR content the model may want to retrieve."""
    return bool(text) and (MARKER_RE.search(text) is not None or INLINE_RE.search(text) is not None)
