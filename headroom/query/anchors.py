"""Query anchors: the exact things a user's question names.

Items that contain an anchor are never dropped by a compressor. Anchors are ids, UUIDs,
numbers, hostnames/IPs, paths, quoted strings and identifier-like words from the latest
user turns.

The question is attacker-controlled: it is read through ``headroom.query.bounded``
(capped, token by token), so a long run of path-like characters costs linear time
(``_PATH`` over the whole text took 22 s on 60 000 characters).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from .bounded import bound_question, scan_tokens

_UUID = re.compile(r"\b[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}\b")
_QUOTED = re.compile(r"\"([^\"]{2,80})\"|'([^']{2,80})'|`([^`]{2,80})`")
_HOST = re.compile(r"\b(?:\d{1,3}\.){3}\d{1,3}(?::\d+)?\b|\b[a-zA-Z0-9-]+(?:\.[a-zA-Z0-9-]+)+\b")
_NUMBER = re.compile(r"(?<![\w.])\d{2,}(?:\.\d+)?(?![\w.])")
# Identifier-like: has a digit, underscore, dash or inner capital (user_42, ORD-991, fooBar,
# _private_helper and __dunder__ with their leading underscores,
# GetStdHandle: an upper-case letter after lower-case ones, so a sentence's first word is none).
_IDENT = re.compile(r"(?<![\w-])_*(?=[A-Za-z0-9_-]*[0-9_-])[A-Za-z][A-Za-z0-9_-]{2,}\b|\b[a-z]+[A-Z][A-Za-z0-9]*\b|"
                    r"\b[A-Z][a-z0-9]+[A-Z][A-Za-z0-9]*\b|\b[A-Z]{2,}[A-Z0-9_-]*\d+\b")
_PATH = re.compile(r"(?:[\w.-]+/)+[\w.-]+")
# A hex id that may open with a digit (a short commit hash "3c61a54", a checksum's first
# bytes "86ed552f", a container id): _IDENT wants a letter first and _NUMBER digits only, so
# six of ten short hashes were no anchor. Six hex digits at least, one a letter, one a digit.
_HEX = re.compile(r"(?<![\w-])(?=[0-9a-fA-F]*[a-fA-F])(?=[0-9a-fA-F]*\d)[0-9a-fA-F]{6,}(?![\w-])")
# A hex literal as code writes it ("0x402331"): an address or a flag word.
_HEX_PREFIXED = re.compile(r"(?<![\w-])0[xX][0-9a-fA-F]{4,16}(?![\w-])")


@dataclass(frozen=True)
class Anchors:
    terms: frozenset[str] = field(default_factory=frozenset)

    def __bool__(self) -> bool:
        return bool(self.terms)

    def matches(self, text: str) -> bool:
        if not self.terms:
            return False
        low = text.lower()
        return any(t in low for t in self.terms)

    def matching(self, text: str) -> set[str]:
        low = text.lower()
        return {t for t in self.terms if t in low}


def extract_anchors(query: str) -> Anchors:
    if not query:
        return Anchors()
    query = bound_question(query)
    found = set(scan_tokens(query, _UUID, _HOST, _PATH, _IDENT, _NUMBER, _HEX, _HEX_PREFIXED))
    # Quotes may span spaces; each match is at most 82 characters, so this stays linear.
    for m in _QUOTED.finditer(query):
        found.add(next(g for g in m.groups() if g))
    # Very short or purely common tokens would match everything.
    terms = {t.lower().strip() for t in found if len(t.strip()) >= 2}
    return Anchors(frozenset(terms | {f for t in terms if t.startswith("0x") for f in _hex_forms(t)}))


_HEX_LITERAL = re.compile(r"0x0*([0-9a-f]{1,16})")
_HEX_WIDTHS = (8, 16)  # the widths tools pad an address to (32- and 64-bit)


def _hex_forms(term: str) -> set[str]:
    """The other ways a tool writes the number a hex literal of the question names: without
    its leading zeros, and padded to 8 and 16 digits (``addr2line -a`` prints 0x402331 as
    ``0x0000000000402331``); none for a term that is not a whole hex literal."""
    m = _HEX_LITERAL.fullmatch(term)
    if m is None:
        return set()
    digits = m.group(1)
    return {f"0x{digits}", *(f"0x{digits:0>{w}}" for w in _HEX_WIDTHS if w > len(digits))} - {term}
