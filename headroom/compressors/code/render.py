"""The compressed file: original lines, and one comment line per elision.

Every line out is either an original line, byte for byte, or an elision comment in the
file's own comment syntax saying which lines were cut (``# … lines 120-142 elided``).
Where the language needs a statement in a body (Python, shell), the elision carries its
no-op statement before the comment (``...  # …`` like a stub file, ``:  # …`` in shell).
Line numbers in the comments are the original's (1-based), so a reader can ask for them
by number; the retrieval marker after the code gives the hash.
"""

from __future__ import annotations

from .blocks import Unit
from .languages import Language

_NO_OP = {"python": "...", "shell": ":"}


def elision_line(unit: Unit, lang: Language, first: int, last: int) -> str:
    what = f"line {first + 1}" if first == last else f"lines {first + 1}-{last + 1}"
    comment = f"{lang.comment} … {what} elided"
    if unit.needs_statement:
        return f"{unit.indent}{_NO_OP.get(lang.name, '')}  {comment}" if lang.name in _NO_OP else f"{unit.indent}{comment}"
    return f"{unit.indent}{comment}"


def render(lines: list[str], elided: list[Unit], lang: Language, numbers: list[str] | None = None) -> str:
    """``lines`` with each elided unit's body replaced. ``numbers``: the ``cat -n`` prefixes
    of the original lines, put back on the lines kept (elisions get a blank one)."""
    out: list[str] = []
    src = lines if numbers is None else [p + ln for p, ln in zip(numbers, lines)]
    blank = " " * (len(numbers[0]) - 1) + numbers[0][-1] if numbers and numbers[0] else ""
    pos = 0
    for u in sorted(elided, key=lambda u: u.body_start):
        out.extend(src[pos:u.body_start])
        out.extend(src[k] for k in u.keep)
        first = u.body_start
        while first in u.keep:  # a docstring's kept ends lead the body
            first += 1
        out.append(blank + elision_line(u, lang, first, u.body_end))
        pos = u.body_end + 1
    out.extend(src[pos:])
    return "\n".join(out)
