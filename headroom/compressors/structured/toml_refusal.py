"""A cheap, sound proof that a text is not TOML, so the parse check can skip tomllib.

``sysctl -a`` and ``sysctl net.ipv4`` print ``key = value`` lines that the format
detector reads as TOML, until a value TOML has no word for (``20000<TAB>29999``, an empty
value, ``cubic``). tomllib then parses hundreds of lines in Python before it fails, and
the structured compressor asks twice (its output, then its input): most of the call.

The proof, from the TOML 1.0 grammar only (every top-level line is blank, a comment, a
table header, or ``key = value``):

1. A *plain* line opens nothing that runs past its end: it holds no quote (no string can
   start, so no multi-line string), no ``{`` (TOML 1.1 lets an inline table span lines)
   and no ``[`` but as its first visible character (a table header, which ends on its
   line; an array needs a ``[`` after ``=``), or it is a comment line. After a run of plain lines from the start of the text
   a parser is therefore at the start of the next line, at the top level, or has already
   failed.
2. At the top level some lines fail on their own: a bare ``key =`` followed by nothing, or
   by a character no TOML value starts with (values start with a quote, ``[``, ``{``, a
   digit, ``+``, ``-``, or the ``t``/``f``/``i``/``n`` of true, false, inf, nan), or by a
   run of digits and then, after blanks, anything but a comment (an integer ends there:
   dates and times hold ``-`` or ``:``). So does a line whose first visible character
   starts no key, table or comment (a key starts with a letter, a digit, ``_``, ``-`` or a
   quote): a merge conflict's ``<<<<<<< HEAD``, ``=======`` and ``>>>>>>> branch`` lines.
   Only ASCII punctuation counts there, so a TOML that allows other key characters changes
   nothing.

One such line right after a run of plain lines from the start (it need not be plain
itself) proves the text fails. Anything else is left to
tomllib: the refusal only ever answers "fails", never "parses".
"""

from __future__ import annotations

import re

# A line after which the parser is back at a line start (see 1 above). Built of
# characters, not tokens: a plain line need not be valid.
_PLAIN_LINE = r"(?:[ \t]*#[^\n]*|[ \t]*\[[^\n\"'{]*|[^\n\"'\[\]{}#]*(?:#[^\n]*)?)"
_PLAIN_RUN = re.compile(rf"(?:{_PLAIN_LINE}\n)*")

# ``key =`` from a line's start: bare keys only (no quote: the ``=`` is the line's first).
_KEY = re.compile(r"[ \t]*[A-Za-z0-9_\-]+(?:[ \t]*\.[ \t]*[A-Za-z0-9_\-]+)*[ \t]*=")
# What follows an ``=`` when the value fails at the top level (see 2 above). Led by the
# literal "=", a search skips from one "=" to the next in C.
_FAILING_VALUE = re.compile(
    r"=[ \t]*(?:"
    r"(?:#[^\n]*|\r)?$"  # no value
    r"|[^ \t\n\r\"'\[{tfin+\-0-9#]"  # a character no value starts with
    r"|[0-9]+[ \t]+[^ \t\n\r#]"  # an integer, then more than a comment
    r")",
    re.MULTILINE,
)


# A line whose first visible character starts nothing at the top level (see 2 above).
_FAILING_START = re.compile(r"^[ \t]*[!$%&()*+,./:;<=>?@\\\]^`{|}~]", re.MULTILINE)


def surely_not_toml(text: str) -> bool:
    """True only when ``text`` cannot parse as TOML (False: not known, ask the parser)."""
    # The first failing line of either kind: a parser at the top level fails on it. A merge
    # conflict's marker line fails the parse the structured compressor runs on its input
    # and each candidate output (issue 34: three tomllib parses of a 9 kB file, most of
    # the call); found here by one regex search.
    bad = _FAILING_START.search(text)
    first = len(text) + 1 if bad is None else bad.start()
    for m in _FAILING_VALUE.finditer(text):
        eq = m.start()
        if eq >= first:
            break  # a failing line starts before this one
        start = text.rfind("\n", 0, eq) + 1
        key = _KEY.match(text, start, eq + 1)
        if key is None or key.end() != eq + 1:
            continue  # not a bare ``key =`` line (a quoted key, an "=" inside a value)
        first = start
        break
    if first > len(text):
        return False
    # The first failing line: it fails only when the parser reaches it at the top level.
    return _PLAIN_RUN.match(text, 0, first).end() == first
