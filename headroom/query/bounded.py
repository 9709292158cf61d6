"""Bounded reading of user text: a question is attacker-controlled input.

Regexes with nested or unanchored quantifiers (``(?:[\\w.-]+/)+[\\w.-]+``) cost quadratic
time on one long run of matching characters, and they hold the GIL while they run, so
one hostile question once stalled every client of the proxy (issue 12, F1). Callers
therefore read at most ``QUESTION_MAX_CHARS`` of a question and run their patterns on
one whitespace-free token at a time, skipping tokens over ``MAX_TOKEN_CHARS``. For
patterns that cannot match whitespace this finds the same matches, in linear time.
"""

from __future__ import annotations

import re

# A question longer than this is read from its end (the question is usually last).
QUESTION_MAX_CHARS = 8192
# No id, path or hostname anyone names is longer; longer runs are skipped, not scanned.
MAX_TOKEN_CHARS = 512

def bound_question(text: str) -> str:
    """The part of a question the analysis reads: at most ``QUESTION_MAX_CHARS``, from the end."""
    return text[-QUESTION_MAX_CHARS:] if len(text) > QUESTION_MAX_CHARS else text


def scan_tokens(text: str, *patterns: re.Pattern[str]) -> list[str]:
    """Every match of ``patterns`` (none of which may match whitespace, nor look past it)
    in ``text``, token by token, grouped by pattern in the order given.

    When no whitespace-free run is longer than ``MAX_TOKEN_CHARS`` (every ordinary
    question), each pattern scans the whole text once: the same matches, since a match
    cannot cross whitespace and whitespace bounds a word like the edge of a token does,
    at the same worst case (each run is still at most ``MAX_TOKEN_CHARS``) and a tenth of
    the cost of one ``finditer`` per token and pattern. Otherwise the long runs are skipped
    token by token."""
    text = bound_question(text)
    found: list[str] = []
    words = text.split()
    if max(map(len, words), default=0) <= MAX_TOKEN_CHARS:
        for rx in patterns:
            found.extend(m.group(0) for m in rx.finditer(text))
        return found
    words = [w for w in words if len(w) <= MAX_TOKEN_CHARS]
    for rx in patterns:
        for word in words:
            found.extend(m.group(0) for m in rx.finditer(word))
    return found
