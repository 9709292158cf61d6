"""Records in plain text: short blocks of lines separated by blank lines.

``sqlite3 -line`` prints each row as ``column = value`` lines with a blank line between
rows; ``dpkg -s`` and Debian's status file print one stanza per package. A question names
one line of a record (the row's name, the package) and asks for another field of it: the
selectors keep the named line, and this module says which lines share its record.
"""

from __future__ import annotations

_RECORD_LINES = 40  # a blank-line separated block this short is one record (a dpkg stanza: 10-30)
_MIN_RECORDS = 3
_RECORD_CHARS = 2_000  # nor one this long (a stanza carrying a line of build ids)


def record_mates(raw: list[str], named: set[int]) -> set[int]:
    """The other lines of the short blank-line separated blocks holding ``named`` lines,
    when the text is made of such blocks (at least ``_MIN_RECORDS``); none otherwise."""
    if not named or sum(1 for ln in raw if not ln.strip()) < _MIN_RECORDS - 1:
        return set()
    out: set[int] = set()
    n = len(raw)
    for i in sorted(named):
        if i in out or not raw[i].strip():
            continue
        a = i
        while a > 0 and raw[a - 1].strip() and i - a < _RECORD_LINES:
            a -= 1
        b = i + 1
        while b < n and raw[b].strip() and b - a < _RECORD_LINES:
            b += 1
        if (a == 0 or not raw[a - 1].strip()) and (b == n or not raw[b].strip()) \
                and sum(map(len, raw[a:b])) <= _RECORD_CHARS:
            out.update(range(a, b))
    return out - named
