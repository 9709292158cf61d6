"""Command-line options a question names ("what is -s for?", "what does --path-as-is do?"),
and the lines of a help text or manual page that define them.

An option is no word to the question readers (``-s`` is too short to be a term, and an
anchor is found as a substring, which ``-s`` is of ``--silent``); its definition is the
line that opens with it, possibly after its other spellings (``-s, --silent, --quiet``),
with the description below that line.
"""

from __future__ import annotations

import re

from .bounded import scan_tokens

# "-s", "-rf" is two options to a shell but one token here; "--path-as-is", "--file=FILE".
_ASKED = re.compile(r"(?<![\w-])(?:--[A-Za-z0-9][\w-]*|-[A-Za-z0-9?])(?![\w-])")
_DEFINING_SPAN = 80  # characters of a line its option spellings stand within
_MAX_OPTIONS = 8


def asked_options(query: str) -> list[str]:
    """The options the question names, in order, at most ``_MAX_OPTIONS``."""
    if not query or "-" not in query:
        return []
    return list(dict.fromkeys(scan_tokens(query, _ASKED)))[:_MAX_OPTIONS]


def defining_lines(lines: list[str], options: list[str]) -> list[int]:
    """Lines that define one of ``options``: the line, stripped, opens with an option, and
    the asked one stands among its leading spellings (before the first run of two blanks or
    the first word that is not an option or its argument)."""
    if not options:
        return []
    found = []
    wanted = [re.compile(rf"(?<![\w-]){re.escape(o)}(?![\w-])") for o in options]
    for k, ln in enumerate(lines):
        s = ln.lstrip()
        if s[:1] != "-" or not any(o in s[:_DEFINING_SPAN] for o in options):
            continue
        head = _spellings(s[:_DEFINING_SPAN])
        if any(rx.search(head) for rx in wanted):
            found.append(k)
    return found


_SPELLING = re.compile(r"--?[\w?][\w-]*(?:[= ]?(?:\[[^\]\s]*\]|<[^>\s]*>|[A-Z][A-Z_]*)?)?(?:,\s*|\s(?=-))?")


def _spellings(s: str) -> str:
    """The leading run of option spellings of a stripped line (``-s, --silent, --quiet``,
    ``-f FILE, --file=FILE``), up to the description."""
    pos = 0
    while (m := _SPELLING.match(s, pos)) is not None and m.end() > pos:
        pos = m.end()
    return s[:pos]
