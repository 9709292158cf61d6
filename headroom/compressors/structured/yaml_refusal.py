"""A cheap, sound proof that a text is not YAML, so the parse check can skip the parser.

``sha256sum -c`` prints ``path: OK`` lines, which the format detector reads as a YAML
mapping, and then a report line ``sha256sum: docs/a.txt: No such file or directory``:
a second ``: `` in a plain value, which YAML refuses ("mapping values are not allowed
here"). The parser reads every line before that one, and the structured compressor asks
twice (its output, then its input).

The proof, from how a YAML scanner reads block context:

1. A *simple* line is blank (spaces only), a comment, or ``key: value`` / ``key:`` at
   column 0, key and value of letters, digits, blanks and ``_./+@-`` (a key not starting
   with a blank, ``.``, ``+``, ``@`` or ``-``), one colon. It opens nothing that runs past
   its end: no quote, no bracket, no block scalar, no anchor, tag or alias, no document
   marker, and a plain value ends at a line that starts in column 0 once a mapping is open
   there. After a run of simple lines from the start of the text the scanner is therefore
   at the start of the next line, outside any flow collection, or has already failed.
2. At such a line start, ``key: value: ...`` in column 0 fails: ``key`` becomes a simple
   key, its ``:`` a value indicator (no more simple keys on that line), ``value`` a plain
   scalar that ends at the next ``: ``, and that colon a value indicator where no simple
   key is allowed.

Only a failure is ever claimed: the parser decides everything else. Checked with
hypothesis against the parse check in use (tests/compressors/test_yaml_refusal.py).
"""

from __future__ import annotations

import re

_WORD = r"[A-Za-z0-9_./+@ -]"  # what a simple key or value holds (no colon, no quote, no "#")
_KEY = rf"[A-Za-z0-9_/]{_WORD}*"
# YAML's line breaks besides "\n" end a comment early: a comment line holds none of them.
_SIMPLE_LINE = rf"(?:{_KEY}:(?: {_WORD}*)?|[ ]*#[^\n\r\x85\u2028\u2029]*|[ ]*)"
_SIMPLE_RUN = re.compile(rf"(?:{_SIMPLE_LINE}\n)*")
_FAILING_LINE = re.compile(rf"{_KEY}: [A-Za-z0-9_/.]{_WORD}*?:(?: |\n|\Z)")


def surely_not_yaml(text: str) -> bool:
    """True only when ``text`` cannot parse as YAML (False: not known, ask the parser)."""
    start = _SIMPLE_RUN.match(text).end()  # type: ignore[union-attr] - a starred group always matches
    return _FAILING_LINE.match(text, start) is not None
