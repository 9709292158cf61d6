"""Event types from a program's own message catalogue, for facts the compressor never sees.

A C program that translates its messages ships their English format strings as the msgids
of its gettext catalogue (Debian installs ``/usr/share/locale/<lang>/LC_MESSAGES/<domain>.mo``).
Each printed message is an instance of one of them; which one is decided by the format
string (what the program's authors made variable), not by a masking rule over digits, so
"a message whose event type occurs once" here is a definition independent of
``compressors/templates.py`` (and of ``facts.py``'s template pass).
"""

from __future__ import annotations

import gettext
import re
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

# printf conversions (with flags, width, precision and length) and "%%".
_CONVERSION = re.compile(r"%(?:%|[-+ #0']*(?:\d+|\*)?(?:\.(?:\d+|\*))?(?:hh|h|ll|l|L|q|j|z|Z|t)?[diouxXeEfFgGaAcspmn])")
_MIN_LITERAL = 6  # a format string with less literal text than this matches anything


@dataclass(frozen=True)
class Entry:
    msgid: str
    pattern: re.Pattern[str]
    literal: int  # characters of literal text: the more, the more specific the entry


def _compile(msgid: str) -> Entry | None:
    parts, pos, literal = [], 0, 0
    for m in _CONVERSION.finditer(msgid):
        text = msgid[pos:m.start()]
        parts.append(re.escape(text))
        literal += len(text)
        parts.append("%" if m.group(0) == "%%" else ".*?")
        pos = m.end()
    parts.append(re.escape(msgid[pos:]))
    literal += len(msgid) - pos
    if literal < _MIN_LITERAL:
        return None
    return Entry(msgid, re.compile("".join(parts) + r"\Z", re.DOTALL), literal)


@lru_cache(maxsize=4)
def load(path: str) -> tuple[Entry, ...]:
    """The catalogue's one-line msgids as entries, most specific (most literal text) first."""
    with Path(path).open("rb") as fh:
        ids = [k for k in gettext.GNUTranslations(fh)._catalog if isinstance(k, str) and k and "\n" not in k]
    entries = [e for e in map(_compile, ids) if e is not None]
    return tuple(sorted(entries, key=lambda e: (-e.literal, e.msgid)))


def _words(text: str) -> set[str]:
    return set(re.findall(r"[a-z]{3,}", text.lower()))


class Matcher:
    """Message -> the catalogue entry it is an instance of (the most specific that matches
    it whole), or None for a message the catalogue does not hold (internal debug output)."""

    def __init__(self, entries: Sequence[Entry]):
        self.entries = entries
        # Candidates by a literal word they need: a message is tried only against entries
        # whose rarest word it contains, not all few thousand.
        self._by_word: dict[str, list[int]] = {}
        for k, e in enumerate(entries):
            words = _words(_CONVERSION.sub(" ", e.msgid))
            for w in words:
                self._by_word.setdefault(w, []).append(k)
        self._cache: dict[str, Entry | None] = {}

    def __call__(self, message: str) -> Entry | None:
        if message in self._cache:
            return self._cache[message]
        candidates = sorted({k for w in _words(message) for k in self._by_word.get(w, ())})
        found = next((self.entries[k] for k in candidates if self.entries[k].pattern.match(message)), None)
        self._cache[message] = found
        return found


def event_counts(messages: Iterable[str], matcher: Matcher) -> dict[str, int]:
    counts: dict[str, int] = {}
    for m in messages:
        e = matcher(m)
        if e is not None:
            counts[e.msgid] = counts.get(e.msgid, 0) + 1
    return counts


def literal_stretch(msgid: str) -> str:
    """The longest literal run of a format string (what every instance shows verbatim)."""
    return max((p.strip(" :,;.\"'()") for p in _CONVERSION.split(msgid)), key=len, default="")
