"""Questions that ask *when*, and the lines that can answer them.

"When does the certificate stop being valid?" names no field (``NotAfter``) by any word it
holds; what it asks for is a point in time. In a text where few lines hold a date, those
lines are the candidates: an ``openssl s_client`` transcript's one validity line among its
handshake details. In a log every line holds one, and the rule says nothing there.
"""

from __future__ import annotations

import re

_ASKS_WHEN = re.compile(r"\bwhen\b|\bwhat (?:date|day|time)\b|\bhow long (?:until|before)\b|\bexpir", re.IGNORECASE)
_MONTHS = "Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec"
# A calendar date: ISO (2027-01-13), a month name and a day with a year or a clock time
# ("Jan 13 16:33:46 2027", "13 Jan 2027"), a month name's full form too.
_DATE = re.compile(
    rf"\b\d{{4}}-\d{{2}}-\d{{2}}\b|\b(?:{_MONTHS})[a-z]*\.? +\d{{1,2}}(?:,? +\d{{4}}\b| +\d{{1,2}}:\d{{2}})"
    rf"|\b\d{{1,2}} +(?:{_MONTHS})[a-z]* +\d{{4}}\b")
_DATED_SHARE = 0.05  # lines holding a date: at most this share of the text's lines (else it is a log)
_DATED_MIN = 4


def asks_when(question: str) -> bool:
    return bool(question) and _ASKS_WHEN.search(question[:2000]) is not None


def dated_lines(lines: list[str]) -> list[int]:
    """The lines holding a calendar date, when they are few (see the module docstring)."""
    limit = max(_DATED_MIN, int(len(lines) * _DATED_SHARE))
    out: list[int] = []
    for i, ln in enumerate(lines):
        if _DATE.search(ln):
            out.append(i)
            if len(out) > limit:
                return []
    return out
